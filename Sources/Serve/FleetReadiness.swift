import FleetStore
import Foundation
import HTTPService
import Platform

/// Whether the collector's database is ready for the fleet's page, and what `serve` does
/// until it is: a fleet page started before its database (a boot where `serve` wins the
/// race against PostgreSQL or `airloc collect`) waits for it instead of exiting.
///
/// Contract:
/// - Until the database answers with a collector schema the page reads (5 to this airloc's
///   own), every path but the page's script, style and Leaflet is answered 503 with the
///   reason and `Retry-After`.
/// - ``watch(_:context:)`` asks again with back-off (1 s doubling to 30 s), says once when
///   waiting begins (and when its reason changes) and once when the database is ready, and
///   throws only for what waiting cannot cure: settings that cannot work (a wrong password,
///   a role or database that does not exist: 78), a schema newer than this airloc knows
///   (78), libpq missing (69).
public final class FleetReadiness: Sendable {
    private let waiting: Lock<String?>

    /// Ready at once (`ready`: routes made over a database known to be there), or waiting
    /// for ``watch(_:context:)`` to find the database ready.
    public init(ready: Bool = false) {
        waiting = Lock(ready ? nil : "connecting to the collector's database")
    }

    /// Why the page is not ready (nil: ready).
    public var reason: String? { waiting.withLock { $0 } }

    /// The 503 of a page that is not ready, or nil.
    func refusal() -> ServedReply? {
        guard let reason else { return nil }
        var reply = ServedReplies.error("the fleet page waits for the collector's database: \(reason)", status: 503)
        reply.headers.append(("Retry-After", "5"))
        return reply
    }

    /// Checks `fleet` until it is ready or the stop (see the contract); the failure that
    /// waiting cannot cure, or nil.
    func watch(_ fleet: FleetDatabase, context: ServiceContext) async -> ServiceFailure? {
        var backoff = Backoff(first: .seconds(1), cap: .seconds(30))
        var said: String?
        while !context.isStopping {
            let checked = await BlockingWork.run("airloc-serve-db") { _ in
                Result { () throws(DatabaseError) in try fleet.schemaVersion() }
            }
            let problem: String
            switch checked {
            case .success(let version)
            where version >= FleetDatabase.shareSchema && version <= FleetDatabase.newestSchema:
                waiting.withLock { $0 = nil }
                if said != nil {
                    context.notify(
                        .info("\(fleet.name) is ready (collector schema \(version)): serving the fleet", from: .serve))
                }
                return nil
            case .success(let version) where version > FleetDatabase.newestSchema:
                return ServiceFailure(
                    service: .serve, kind: .configuration,
                    message: "[serve] source = collector: \(fleet.name): "
                        + DatabaseError.newerSchema(found: version, known: FleetDatabase.newestSchema).description)
            case .success(let version):
                problem =
                    version == 0
                    ? "it holds no collector schema yet (`airloc collect` makes it when it starts)"
                    : "it holds collector schema \(version); `airloc collect` of this version brings it to "
                        + "\(FleetDatabase.shareSchema) when it starts"
            case .failure(let error):
                if case .library = error {
                    return ServiceFailure(service: .serve, kind: .unavailable, message: error.description)
                }
                if error.isConfiguration {
                    return ServiceFailure(
                        service: .serve, kind: .configuration,
                        message: "[serve] source = collector: \(fleet.name): \(error.description)")
                }
                problem = error.description
            }
            waiting.withLock { $0 = problem }
            if problem != said {
                said = problem
                context.notify(
                    .warning("waiting for \(fleet.name): \(problem); the page answers 503 meanwhile", from: .serve))
            }
            try? await context.time.sleep(for: backoff.failed())
        }
        return nil
    }
}
