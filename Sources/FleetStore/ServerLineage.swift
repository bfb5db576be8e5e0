/// Which history of a cluster a read-write PostgreSQL server is on: its system identifier
/// (the same for a primary and every standby copied from it) and its timeline (one more
/// at every promotion or point-in-time recovery).
///
/// Contract: a collector remembers the lineage it last wrote to in a run. A server is
/// refused when it is another cluster, or on an older timeline than that: a former primary
/// started again as it was, which would take rows on a history the cluster has left
/// (a split brain). A newer timeline of the same cluster is a failover, and is taken.
/// A new run starts without memory, so moving the fleet to another server is a restart.
public struct ServerLineage: Sendable, Equatable, CustomStringConvertible {
    /// `pg_control_system().system_identifier`.
    public var system: String
    /// The timeline the server writes its WAL on.
    public var timeline: Int

    /// A lineage of `system` on `timeline`.
    public init(system: String, timeline: Int) {
        self.system = system
        self.timeline = timeline
    }

    /// "timeline 2 of system 7715619605500579903".
    public var description: String { "timeline \(timeline) of system \(system)" }

    /// The lineage of the server `connection` is on; nil for a server in recovery (a
    /// standby has no timeline of its own to write on, and takes no rows).
    package static func read(_ connection: PostgresConnection) throws(DatabaseError) -> ServerLineage? {
        // The WAL file's name begins with the timeline (8 hex digits); pg_control_checkpoint
        // would say the timeline of the last checkpoint, which lags a promotion.
        let rows = try connection.execute(
            """
            SELECT system_identifier::text,
                   CASE WHEN pg_is_in_recovery() THEN NULL
                        ELSE substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8) END
            FROM pg_control_system()
            """)
        guard let row = rows.first, row.count == 2, let system = row[0], let hex = row[1],
            let timeline = Int(hex, radix: 16)
        else { return nil }
        return ServerLineage(system: system, timeline: timeline)
    }

    /// Why `server` must not be written to by a collector that wrote to `self` (nil: it may).
    public func refusal(of server: ServerLineage) -> String? {
        if server.system != system {
            return "is another cluster (system identifier \(server.system), not \(system), which this collector "
                + "wrote to): not writing to it; restart the collector to take a new database"
        }
        if server.timeline < timeline {
            return "is on timeline \(server.timeline), behind timeline \(timeline): a former primary; not writing to it"
        }
        return nil
    }
}

extension PostgresConnection {
    /// A connection to the first server of `conninfo`'s host list that answers and may be
    /// written to after `known` (nil: any; see ``ServerLineage``), with its lineage (nil
    /// when the server would not say). libpq alone would take the first read-write server,
    /// a former primary among them; so each host is tried on its own, in the list's order.
    /// When none may be used, the error names each one and why; when one is, `passedOver`
    /// names the servers refused before it (the operator is told of a former primary that
    /// is up).
    package static func writable(
        conninfo: String, password: String?, connectTimeout: Int, after known: ServerLineage?
    ) throws(DatabaseError) -> (connection: PostgresConnection, lineage: ServerLineage?, passedOver: [String]) {
        let servers = servers(in: conninfo)
        var reasons: [String] = []
        var refused: [String] = []
        for server in servers.isEmpty ? [nil] : servers.map(Optional.some) {
            let connection: PostgresConnection
            do {
                connection = try PostgresConnection(
                    conninfo: conninfo, password: password, connectTimeout: connectTimeout, server: server)
            } catch {
                guard let server, case .connect(let reason) = error else { throw error }
                reasons.append("\(server): \(reason)")
                continue
            }
            // A server that cannot say (an old one, a role without the functions) is taken
            // as before: the check guards against a split brain, it is not a gate to pass.
            let lineage = (try? ServerLineage.read(connection)) ?? nil
            if let known, let lineage, let refusal = known.refusal(of: lineage) {
                connection.close()
                reasons.append("\(server?.description ?? "the server") \(refusal)")
                refused.append(reasons.last!)
                continue
            }
            return (connection, lineage, refused)
        }
        throw .connect(reasons.joined(separator: "; "))
    }
}
