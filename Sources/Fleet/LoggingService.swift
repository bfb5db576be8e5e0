import Airloc
import FieldLog
import Foundation
import Logbook
import MQTT
import Platform

/// The field logger and, with a broker, its publisher and their connection, and the
/// uploads, run together as `airloc log run` runs them: what a Swift program starts to
/// log and publish (docs/library.md).
///
/// Contract:
/// - ``run(_:)`` logs until the calling task is cancelled (SIGTERM), or until a service
///   fails for good (the broker refuses the credentials, an upload's server refuses its
///   first request: a configuration matter, retrying cannot help), and returns what this
///   run wrote and that failure.
/// - One ``ServiceGroup``; the stop goes in this order: the logger finishes the row it
///   is writing; the publisher publishes what was written since, while the broker keeps
///   acknowledging; the uploads stop; the connections say `offline` and disconnect.
public struct LoggingService: Sendable {
    /// The logger.
    public var logger: FieldLogger
    /// The publisher, with a broker.
    public var publisher: FleetPublisher?
    /// The uploads (module `Uploads`) and their own connections: services of the group.
    public var uploads: [any Service] = []
    /// The clock of the group.
    public var time: any TimeSource = SystemTime()
    /// Where every service's notices go.
    public var notify: @Sendable (ServiceNotice) -> Void

    /// What a run did.
    public struct Outcome: Sendable {
        /// What the logger wrote.
        public var written: FieldLogger.Written
        /// The failures that ended the run (refused credentials, an upload refused at start).
        public var failures: [ServiceFailure]

        /// The broker's refusal of the credentials, when that ended the run.
        public var refused: String? { failures.first { $0.service == .mqtt }?.message }
    }

    /// The service of these parts.
    public init(
        logger: FieldLogger, publisher: FleetPublisher?, uploads: [any Service] = [],
        notify: @escaping @Sendable (ServiceNotice) -> Void = { _ in }
    ) {
        self.logger = logger
        self.publisher = publisher
        self.uploads = uploads
        self.notify = notify
    }

    /// Logs `following` until the stop (see the contract).
    public func run(_ following: LocationSession.Following) async -> Outcome {
        let logged = FieldLogService(logger: logger, following: following)
        // In the order of the stop: the logger writes its last row before the publisher
        // drains, which it does before its connection closes.
        var services: [any Service] = [logged]
        if let publisher { services.append(publisher) }
        services += uploads
        if let publisher { services.append(publisher.client) }
        let group = ServiceGroup(services, time: time, notify: notify)
        let outcome = await group.run()
        return Outcome(written: await logged.written.value, failures: outcome.failures)
    }
}

/// The logger as a service of the group: follows until the stop, then hands on what it wrote.
struct FieldLogService: Service {
    let name = ServiceName.logger
    let logger: FieldLogger
    let following: LocationSession.Following
    let written = OnceCell<FieldLogger.Written>()

    func run(_ context: ServiceContext) async throws(ServiceFailure) {
        var logger = self.logger
        await logger.run(following, until: context)
        written.set(logger.written)
    }
}
