import Airloc
import Collector

/// `airloc doctor`'s checks of `[collect]` on a collector's host: the settings make a
/// plan (a broker and a database given, the password file private), and the database
/// accepts the connection. Nothing is written; the broker is checked by `collect` itself.
enum CollectorProbe {
    /// The checks, and whether a failure is of the configuration (78); none when
    /// `[collect]` is not configured.
    static func checks(_ settings: Settings) -> (checks: [HealthCheck], configuration: Bool) {
        let collect = settings.collect
        guard collect.broker != nil || collect.database != nil else { return ([], false) }
        let name = "collector database"
        let plan: CollectorPlan
        do { plan = try CollectorPlan(settings: collect, stateDirectory: settings.directories.state) } catch {
            return ([HealthCheck(name: name, status: .fail, detail: error.description, advice: "fix [collect]")], true)
        }
        do {
            let connection = try PostgresConnection(conninfo: plan.conninfo, password: plan.password, connectTimeout: 5)
            connection.close()
            return (
                [HealthCheck(name: name, status: .ok, detail: "\(plan.safeDatabaseName) accepts the connection")], false
            )
        } catch {
            return (
                [
                    HealthCheck(
                        name: name, status: .fail, detail: error.description,
                        advice: error.isConfiguration
                            ? "check [collect] database and password-file, and the role's privileges"
                            : "check that PostgreSQL runs and [collect] database names it")
                ], error.isConfiguration
            )
        }
    }
}
