import FleetStore
import Foundation
import Gazetteer
import HTTPService
import Platform
import Settings

/// `airloc serve`'s one service: the HTTP server over ``DeviceRoutes``, on the service
/// runtime like the logger and the collector.
///
/// Contract: ``init(settings:gazetteer:)`` refuses what must not start (a network address
/// without a password, a password file others can read, a taken port) with a
/// ``ServiceFailure`` before anything listens; ``run(_:)`` serves until the group asks it
/// to stop, then ends every event stream and closes every connection.
public final class DeviceServer: Service {
    /// "serve".
    public let name = ServiceName.serve
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
    /// Where a browser opens it: the address it listens on, or, listening on every
    /// address, the host's name and its network addresses (``ServedAddresses``).
    public var urls: [String] { ServedAddresses.urls(host: source.settings.serve.host, port: port) }
    /// What `airloc serve` says on stderr when it listens: where, and, on every address,
    /// where another machine opens it.
    public var announcement: String {
        let listening = "http://\(address)/"
        let elsewhere =
            urls.first == listening ? "" : "airloc: open \(urls.joined(separator: " or ")) from another machine\n"
        return "airloc: serving \(listening)\n" + elsewhere
    }
    private let server: HTTPServer
    private let notices = NoticeRelay()
    /// With `[serve] source = collector`: the database, and whether it is ready yet.
    private let fleet: (database: FleetDatabase, readiness: FleetReadiness)?

    /// Serves until SIGTERM or SIGINT, or a failure, as `airloc serve` runs: one
    /// ``ServiceGroup`` of this server, stopped in order (the streams ended, then the
    /// connections closed).
    public func runUntilStopped(notify: @escaping @Sendable (ServiceNotice) -> Void) async -> ServiceGroup.Outcome {
        let group = ServiceGroup([self], notify: notify)
        return await SignalWatch.untilInterrupted { await group.run() }
    }

    /// A server for `settings.serve`, listening already.
    public init(settings: Settings, gazetteer: Gazetteer, limits: HTTPServer.Limits = HTTPServer.Limits())
        throws(ServiceFailure)
    {
        MemoryRelease.limitArenas()
        let serve = settings.serve
        if let refusal = serve.refusal {
            throw ServiceFailure(service: .serve, kind: .configuration, message: refusal)
        }
        var password: String?
        if let file = serve.passwordFile {
            do { password = try SecretFile.read(file) } catch {
                throw ServiceFailure(
                    service: .serve, kind: .configuration, message: "[serve] password-file: \(error.description)")
            }
        }
        let source = DeviceSource(settings: settings, gazetteer: gazetteer, watching: serve.source == .logbook)
        let fleet = try serve.source == .collector ? Self.fleetAndReadiness(settings) : nil
        let notices = self.notices
        do throws(HTTPServer.StartError) {
            if let fleet {
                let routes = FleetRoutes(
                    fleet: fleet.0, serve: serve, password: password, readiness: fleet.1, notify: { notices.say($0) })
                // Every answer on the connection's thread: libpq blocks.
                server = try HTTPServer(
                    host: serve.host, port: serve.port, limits: limits, quick: { routes.answer($0) }
                ) {
                    routes.answer($0)
                }
            } else {
                let routes = DeviceRoutes(source: source, password: password, notify: { notices.say($0) })
                server = try HTTPServer(
                    host: serve.host, port: serve.port, limits: limits, onStop: { source.watch?.stop() },
                    quick: { routes.recentAnswer($0) }
                ) {
                    routes.answer($0)
                }
            }
        } catch {
            throw ServiceFailure(
                service: .serve, kind: error.libraryMissing ? .unavailable : .configuration,
                message: error.libraryMissing
                    ? error.description : "[serve] listen = \(serve.listen): \(error.description)")
        }
        self.source = source
        self.fleet = fleet.map { ($0.0, $0.1) }
        port = server.port
    }

    /// The collector's database of `[collect] database` (its settings checked now; the
    /// database itself is waited for: ``FleetReadiness``).
    static func fleet(_ settings: Settings) throws(ServiceFailure) -> FleetDatabase {
        do { return try FleetDatabase(settings: settings.collect) } catch {
            throw ServiceFailure(
                service: .serve, kind: .configuration, message: "[serve] source = collector: \(error.description)")
        }
    }

    /// The fleet's database and whether it is ready now: a page whose database answers
    /// at start is ready when it says where it serves (a script's first request is not a
    /// 503); one that is not is waited for by ``run(_:)``.
    static func fleetAndReadiness(_ settings: Settings) throws(ServiceFailure) -> (FleetDatabase, FleetReadiness) {
        let database = try fleet(settings)
        let version = try? database.schemaVersion()
        let ready = version.map { $0 >= FleetDatabase.shareSchema && $0 <= FleetDatabase.newestSchema } ?? false
        return (database, FleetReadiness(ready: ready))
    }

    /// Checks that `fleet` holds a collector schema with share links, at once (for a
    /// command that cannot wait: `serve share`).
    static func schema(_ fleet: FleetDatabase) throws(ServiceFailure) {
        let version: Int
        do { version = try fleet.schemaVersion() } catch {
            throw ServiceFailure(
                service: .serve, kind: error.isConfiguration ? .configuration : .unavailable,
                message: "[serve] source = collector: \(fleet.name): \(error.description)")
        }
        guard version >= FleetDatabase.shareSchema else {
            throw ServiceFailure(
                service: .serve, kind: .configuration,
                message: "[serve] source = collector: \(fleet.name) holds collector schema \(version); "
                    + "`airloc collect` of this version brings it to \(FleetDatabase.shareSchema) when it starts")
        }
    }

    /// Serves until asked to stop; with the fleet's page, waits for its database meanwhile
    /// and fails for what waiting cannot cure.
    public func run(_ context: ServiceContext) async throws(ServiceFailure) {
        notices.connect(context.notify)
        defer { server.stop() }
        if let fleet {
            let watching = Task { await fleet.readiness.watch(fleet.database, context: context) }
            context.whenStopping { watching.cancel() }
            if let failure = await watching.value { throw failure }
        }
        await context.stopRequested()
    }
}
