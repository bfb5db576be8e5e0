import Airloc
import FieldLog
import Fleet
import Foundation
import Gazetteer
import Location
import Logbook
import Platform
import Settings
import Uploads

/// `airloc log run` assembled, for the command line and any Swift program alike: the
/// one-logger-per-logbook lock, the logbook, the sensors held, the publisher with its
/// connection, the uploads, and the logger that follows the location — one
/// ``LoggingService``, run until SIGTERM.
///
/// Contract:
/// - ``init(settings:gazetteer:notify:)`` checks and holds everything before anything runs:
///   the always grant (or given coordinates: ``Problem/notAuthorized``), the logbook's lock
///   (another logger writes it: ``Problem/lock``), the logbook itself, the `[mqtt]` and
///   `[upload.NAME]` settings and the sensors' ports (``Problem/configuration``).
/// - ``announcements`` says what it will do (the logbook, where it publishes and uploads,
///   each sensor), without a position.
/// - ``run()`` logs until SIGTERM or a service's failure, then gives the lock and the
///   sensors back.
public final class LoggerStation: Sendable {
    /// Why the station cannot start.
    public enum Problem: Error, Sendable, CustomStringConvertible {
        /// Logging senses the location unattended: it needs the always grant.
        case notAuthorized
        /// The location cannot be followed as configured.
        case location(LocationSessionError)
        /// Another logger writes this logbook, or the lock cannot be made.
        case lock(WriterLockError)
        /// The logbook cannot be opened for writing.
        case logbook(LogbookError)
        /// The device id cannot be kept in the state directory.
        case storage(String)
        /// Settings that cannot work (`[mqtt]`, `[upload.NAME]`, a sensor).
        case configuration(String)

        /// What is wrong, in words.
        public var description: String {
            switch self {
            case .notAuthorized:
                return "the logger senses this device's location continuously and unattended, which needs the "
                    + "'always' grant: run `airloc auth grant --always` (as a service: as the service's user), "
                    + "or log a fixed place with --lat/--lon"
            case .location(let error): return error.description
            case .lock(let error): return error.description
            case .logbook(let error): return error.description
            case .storage(let reason), .configuration(let reason): return reason
            }
        }
    }

    /// The logbook written.
    public let logbook: Logbook
    /// What it will do, in lines for the journal.
    public let announcements: [String]
    private let service: LoggingService
    private let following: LocationSession.Following
    private let lock: WriterLock
    private let sensors: LoggerSensors

    /// The station of `settings`, everything held (see the contract).
    public init(
        settings: Settings, gazetteer: Gazetteer, notify: @escaping @Sendable (ServiceNotice) -> Void
    ) throws(Problem) {
        if let exposed = ConfigurationExposure.problem(settings) { throw .configuration(exposed) }
        let session = LocationSession(
            settings: settings, gazetteer: gazetteer, unattended: true, takesChosenPlace: false)
        do { following = try session.follow() } catch {
            if case .notAuthorized(let refusal) = error, refusal == .notDetermined || refusal == .needsAlways {
                throw .notAuthorized
            }
            throw .location(error)
        }
        // One logger per logbook: two would fight over the client id and the rows.
        do { lock = try WriterLock.take(beside: settings.logDatabase) } catch { throw .lock(error) }
        do {
            logbook = try Logbook(
                url: settings.logDatabase, outbox: FleetPublisher.publishes(settings),
                collector: FleetPublisher.awaitsCollector(settings))
        } catch { throw .logbook(error) }
        var lines = ["logging to \(logbook.url.path)"] + following.warnings.map { "warning: \($0)" }
        let publisher: FleetPublisher?
        do { publisher = try FleetPublisher.make(settings: settings, logbook: logbook) } catch {
            switch error {
            case .connection, .passwordFile: throw .configuration(error.description)
            case .deviceID, .logbook: throw .storage(error.description)
            }
        }
        if let publisher { lines.append("publishing to \(publisher.destination)") }
        do { sensors = try LoggerSensors.holding(settings) } catch { throw .configuration(error.description) }
        lines += sensors.announcements
        let uploaders: [Uploader]
        do { uploaders = try Uploader.make(settings: settings, logbook: logbook) } catch {
            throw .configuration(error.description)
        }
        lines += uploaders.map { "uploading to [upload.\($0.plan.name)] \($0.plan.type.rawValue)" }
        announcements = lines
        let logger = FieldLogger(
            logbook: logbook, settings: settings, gazetteer: gazetteer, accuracy: following.accuracy,
            sensor: sensors.particulate, climate: sensors.sensors, notify: notify)
        service = LoggingService(
            logger: logger, publisher: publisher, uploads: uploaders + uploaders.compactMap(\.broker), notify: notify)
    }

    /// Logs until SIGTERM (or a service's failure); what this run wrote, and why it ended.
    public func run() async -> LoggingService.Outcome {
        let (service, following) = (self.service, self.following)
        let outcome = await SignalWatch.untilInterrupted { await service.run(following) }
        withExtendedLifetime((lock, sensors)) {}
        return outcome
    }
}
