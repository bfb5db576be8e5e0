import FleetStore
import FleetWire
import Foundation
import Platform
import Settings

/// What a collector's host needs beyond the plan: one collector per state directory, and
/// a database that answers (for `doctor`).
///
/// Contract: ``takeLock()`` returns at once — the lock beside the status file, held until
/// released, or an error whose text names the collector that holds it (a second
/// collector there would use the same default client id and take the first one's broker
/// session); ``probeDatabase(_:stateDirectory:)`` connects once (5 s at most), writes nothing, and says
/// whether a failure is of the settings.
extension CollectorPlan {
    /// The lock of this plan's state directory (nil without a status file).
    public func takeLock() throws(WriterLockError) -> WriterLock? {
        guard let statusFile else { return nil }
        return try WriterLock.take(beside: statusFile, writer: .collector)
    }

    /// What `doctor` says of `[collect]`'s database.
    public struct DatabaseProbe: Sendable {
        /// It answered.
        public var ok: Bool
        /// What happened.
        public var detail: String
        /// What to do about a failure.
        public var advice: String?
        /// The failure is of the settings (78), not of a server that may come back.
        public var configuration: Bool
    }

    /// Connects to `[collect]`'s database once; nil when `[collect]` is not configured.
    public static func probeDatabase(_ collect: CollectSettings, stateDirectory: URL) -> DatabaseProbe? {
        guard collect.broker.url != nil || collect.database != nil else { return nil }
        let settingsAdvice = "fix [collect] database, password-file, the role's privileges"
        do {
            if collect.broker.url == nil {
                // The fleet page's host (`[serve] source = collector`): the database alone.
                let fleet = try FleetDatabase(settings: collect, size: 1)
                let version = try fleet.schemaVersion()
                return DatabaseProbe(
                    ok: true, detail: "\(fleet.name) accepts the connection (collector schema \(version))",
                    configuration: false)
            }
            let plan = try CollectorPlan(settings: collect, stateDirectory: stateDirectory)
            try PostgresConnection(conninfo: plan.conninfo, password: plan.password, connectTimeout: 5).close()
            return DatabaseProbe(
                ok: true, detail: "\(plan.safeDatabaseName) accepts the connection", configuration: false)
        } catch let error as DatabaseError {
            let advice =
                error.isConfiguration ? settingsAdvice : "check that PostgreSQL runs and [collect] database names it"
            return DatabaseProbe(
                ok: false, detail: error.description, advice: advice, configuration: error.isConfiguration)
        } catch {
            return DatabaseProbe(ok: false, detail: "\(error)", advice: settingsAdvice, configuration: true)
        }
    }
}
