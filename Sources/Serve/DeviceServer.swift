import Airloc
import Foundation
import Gazetteer
import HTTPService
import Platform

/// `airloc serve`'s one service: the HTTP server over ``DeviceRoutes``, on the service
/// runtime like the logger and the collector.
///
/// Contract: ``init(settings:gazetteer:)`` refuses what must not start (a network address
/// without a password, a password file others can read, a taken port) with a
/// ``ServiceFailure`` before anything listens; ``run(_:)`` serves until the group asks it
/// to stop, then ends every event stream and closes every connection.
public final class DeviceServer: Service {
    /// "serve".
    public let name = "serve"
    /// The port it listens on (the one chosen when `listen` said port 0).
    public let port: Int
    /// What it serves.
    public let source: DeviceSource
    /// Where it listens, as `listen` is written (`127.0.0.1:8642`, `[::1]:8642`), with the bound port.
    public var address: String {
        var serve = source.settings.serve
        serve.port = port
        return serve.listen
    }
    private let server: HTTPServer

    /// A server for `settings.serve`, listening already.
    public init(settings: Settings, gazetteer: Gazetteer, limits: HTTPServer.Limits = HTTPServer.Limits())
        throws(ServiceFailure)
    {
        let serve = settings.serve
        if let refusal = serve.refusal {
            throw ServiceFailure(service: "serve", kind: .configuration, message: refusal)
        }
        var password: String?
        if let file = serve.passwordFile {
            do { password = try SecretFile.read(file) } catch {
                throw ServiceFailure(
                    service: "serve", kind: .configuration, message: "[serve] password-file: \(error.description)")
            }
        }
        let source = DeviceSource(settings: settings, gazetteer: gazetteer)
        let routes = DeviceRoutes(source: source, password: password)
        do {
            server = try HTTPServer(
                host: serve.host, port: serve.port, limits: limits, onStop: { source.watch?.stop() },
                quick: { routes.recentAnswer($0) }
            ) {
                await routes.answer($0)
            }
        } catch {
            throw ServiceFailure(
                service: "serve", kind: error.libraryMissing ? .unavailable : .configuration,
                message: error.libraryMissing
                    ? error.description : "[serve] listen = \(serve.listen): \(error.description)")
        }
        self.source = source
        port = server.port
    }

    /// Serves until asked to stop.
    public func run(_ context: ServiceContext) async throws(ServiceFailure) {
        await context.stopRequested()
        server.stop()
    }
}
