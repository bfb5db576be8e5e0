import Collector
import FleetStore
import Foundation
import HTTPService
import MQTT
import Platform

/// `airloc collect` as it runs, assembled in one place for the command line and any Swift
/// program alike: the one-collector-per-state-directory lock, the collector over its broker
/// connection and PostgreSQL, and its `/metrics` where `[collect] metrics` says — one
/// ``ServiceGroup``, stopped in the order collector, broker, metrics.
///
/// Contract: ``init(plan:)`` takes the lock (refused with ``Problem/lock`` while another
/// collector holds it) and binds the metrics address (``Problem/metrics``) before anything
/// runs; ``run(notify:)`` runs until SIGTERM or a service's failure and gives the lock back
/// when it returns.
public final class CollectorStation: Sendable {
    /// Why the station cannot start.
    public enum Problem: Error, Sendable, CustomStringConvertible {
        /// Another collector holds this state directory.
        case lock(WriterLockError)
        /// The broker connection cannot be made (libmosquitto missing: unavailable).
        case broker(MQTTError)
        /// `[collect] metrics` cannot be served.
        case metrics(HTTPServer.StartError)

        /// What is wrong, in words.
        public var description: String {
            switch self {
            case .lock(let error): return error.description
            case .broker(let error): return "[collect] broker: \(error)"
            case .metrics(let error): return "[collect] metrics: \(error)"
            }
        }
    }

    /// The collector.
    public let collector: Collector
    /// Where its metrics are read (nil without `[collect] metrics`).
    public let metricsURL: String?
    private let metrics: MetricsService?
    private let lock: WriterLock?

    /// The station of `plan`, its lock taken and its metrics address bound.
    public init(plan: CollectorPlan) throws(Problem) {
        do { lock = try plan.takeLock() } catch { throw .lock(error) }
        do { collector = try Collector(plan: plan) } catch { throw .broker(error) }
        do { metrics = try MetricsService(collector) } catch { throw .metrics(error) }
        metricsURL = metrics?.url
    }

    /// Runs the collector, its connection and its metrics until SIGTERM (or a failure).
    public func run(notify: @escaping @Sendable (ServiceNotice) -> Void) async -> ServiceGroup.Outcome {
        let services: [any Service] = [collector, collector.client] + (metrics.map { [$0] } ?? [])
        let group = ServiceGroup(services, notify: notify)
        let outcome = await SignalWatch.untilInterrupted { await group.run() }
        withExtendedLifetime(lock) {}
        return outcome
    }
}

/// The collector's `/metrics` (``CollectorMetrics``) on the one HTTP server, as a service of
/// its group: bound when made, answering until asked to stop.
final class MetricsService: Service {
    let name = ServiceName.metrics
    let url: String
    private let server: HTTPServer

    /// nil without `[collect] metrics`.
    init?(_ collector: Collector) throws(HTTPServer.StartError) {
        guard let host = collector.plan.settings.metricsHost else { return nil }
        let current = collector.current
        server = try HTTPServer(
            host: host, port: collector.plan.settings.metricsPort, quick: { Self.reply($0, state: current.state) }
        ) { Self.reply($0, state: current.state) }
        url = "http://\(host.contains(":") ? "[\(host)]" : host):\(server.port)/metrics"
    }

    func run(_ context: ServiceContext) async throws(ServiceFailure) {
        await context.stopRequested()
        server.stop()
    }

    /// The reply to a request of the metrics server: `/metrics`, else 404.
    static func reply(_ request: ServedRequest, state: CollectorState) -> ServedReply {
        guard request.path == "/metrics" else { return ServedReply(status: 404, text: "not found: try /metrics\n") }
        let open = MetricsExposition.asksOpenMetrics(request)
        var reply = ServedReply(
            status: 200, contentType: MetricsExposition(openMetrics: open).contentType,
            text: CollectorMetrics.text(state, openMetrics: open))
        reply.headers.append(("Cache-Control", "no-store"))
        return reply
    }
}
