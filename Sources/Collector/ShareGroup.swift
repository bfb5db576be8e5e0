import FleetStore
import FleetWire
import Foundation
import Platform

/// What PostgreSQL says to one member of a `[collect] share` group after a batch: which
/// devices it acknowledges, and what the database holds of their rows.
///
/// Contract: every stream of an owned device is read as the database holds it after the
/// batch's commit (its `through` and the ids stored above it, in one statement per kind);
/// ``revised`` lists the rows of owned devices stored with a revision above 0 in the last
/// ``ShareGroup/revisedWindow`` seconds, by any member.
public struct ShareView: Sendable {
    /// The devices whose acknowledgements this member publishes: its lease, taken or
    /// renewed in this round, lasts ``ShareGroup/lease`` seconds from the round's start.
    public var owned: Set<String>
    /// Each stream of an owned device: its `through` and the ids stored above it.
    public var streams: [StoreLedger.StreamKey: (through: Int64, above: [Int64])]
    /// Stream owner → row id → the revision stored.
    public var revised: [String: [String: Int64]]

    /// A view of the database's words.
    public init(
        owned: Set<String>, streams: [StoreLedger.StreamKey: (through: Int64, above: [Int64])] = [:],
        revised: [String: [String: Int64]] = [:]
    ) {
        self.owned = owned
        self.streams = streams
        self.revised = revised
    }
}

/// The collectors of one `[collect] share` group, as PostgreSQL coordinates them: the
/// broker hands each row to any member, so no member's memory knows what is stored; the
/// database does, and it names one member per device to say it (its acknowledgement
/// lease), so that acknowledgements stay monotonic and paced across the group.
///
/// Contract:
/// - ``record(_:_:)`` keeps a batch's revised rows, after its commit, for the devices'
///   lease holders to read.
/// - ``round(member:devices:database:)`` runs after a batch's commit, at most once a
///   second, each statement on its own: it takes or renews the lease of each device the
///   batch stored rows of or that was heard from in the last minute (a lease is taken
///   only when free, expired or already the member's), and reads the owned devices'
///   streams (``ShareView``).
/// - A lease lasts ``lease`` seconds of the database's clock; a member publishes for a
///   device only within ``lease`` less ``margin`` of its round's start, so two members'
///   acknowledgements of one device are always a second or more apart, and the newer
///   owner's first one reads the database after the older owner's last.
package enum ShareGroup {
    /// Seconds an acknowledgement lease lasts.
    static let lease = 5
    /// What a member leaves of its lease unused: the gap between two owners.
    static let margin: Duration = .seconds(1)
    /// Seconds of revised rows read back each round.
    static let revisedWindow = 60

    /// Keeps `revised`, stored rows with a revision above 0 (see the contract).
    static func record(_ revised: [DeviceRow], _ database: PostgresConnection) throws(DatabaseError) {
        if !revised.isEmpty {
            let records = revised.map {
                "{\"device_id\":\(JSONText.quoted($0.device)),\"incarnation\":\(JSONText.quoted($0.incarnation)),"
                    + "\"id\":\"\($0.id)\",\"revision\":\($0.revision)}"
            }
            try database.execute(
                """
                INSERT INTO revisions (device_id, incarnation, id, revision, stored_at)
                SELECT r.device_id, r.incarnation, r.id, r.revision, clock_timestamp()
                FROM jsonb_to_recordset($1::jsonb) AS r(device_id text, incarnation text, id text, revision bigint)
                ON CONFLICT (device_id, incarnation, id) DO UPDATE
                    SET revision = greatest(revisions.revision, EXCLUDED.revision), stored_at = EXCLUDED.stored_at
                """, ["[" + records.joined(separator: ",") + "]"])
        }
    }

    /// One member's round after a batch (see the contract).
    static func round(member: String, devices: [String], database: PostgresConnection) throws(DatabaseError)
        -> ShareView
    {
        // Sorted, so that members locking the same leases at once lock them in one order.
        let owned = try database.execute(
            """
            INSERT INTO ack_owners (device_id, member, until)
            SELECT d.device_id, $1, clock_timestamp() + make_interval(secs => $3) FROM devices d
            WHERE d.device_id IN (SELECT jsonb_array_elements_text($2::jsonb)) OR d.last_seen > clock_timestamp() - interval '60 seconds'
            ORDER BY d.device_id
            ON CONFLICT (device_id) DO UPDATE SET member = EXCLUDED.member, until = EXCLUDED.until
            WHERE ack_owners.member = EXCLUDED.member OR ack_owners.until < clock_timestamp()
            RETURNING device_id
            """, [member, jsonArray(devices), String(lease)]
        ).compactMap { $0.first ?? nil }
        var view = ShareView(owned: Set(owned))
        guard !owned.isEmpty else { return view }
        let ownedArray = jsonArray(owned.sorted())
        for kind in DeviceRow.Kind.allCases {
            for stream in try RowStore.streams(of: kind, devices: ownedArray, database) {
                view.streams[StoreLedger.StreamKey(device: stream.owner, kind: kind)] = (stream.through, stream.above)
            }
        }
        for row in try database.execute(
            """
            SELECT device_id, incarnation, id, revision FROM revisions
            WHERE device_id IN (SELECT jsonb_array_elements_text($1::jsonb)) AND stored_at > clock_timestamp() - make_interval(secs => $2)
            """, [ownedArray, String(revisedWindow)])
        {
            guard let device = row[0], let id = row[2], let revision = row[3].flatMap({ Int64($0) }) else { continue }
            view.revised[StreamOwner.name(device: device, incarnation: row[1] ?? ""), default: [:]][id] = revision
        }
        return view
    }

    /// `texts` as a JSON array, a parameter no text can break out of.
    static func jsonArray(_ texts: [String]) -> String {
        "[" + texts.map(JSONText.quoted).joined(separator: ",") + "]"
    }

    /// `member` stops: its leases end a second from now (its last acknowledgements may
    /// still be on their way to the broker), so that another member takes its devices over
    /// then rather than after ``lease`` seconds.
    static func leave(member: String, _ database: PostgresConnection) throws(DatabaseError) {
        try database.execute(
            """
            UPDATE ack_owners SET until = least(until, clock_timestamp() + make_interval(secs => $2))
            WHERE member = $1
            """, [member, String(margin.components.seconds)])
    }

    /// Forgets revised rows older than a day: the window read back is a minute.
    static func prune(_ database: PostgresConnection) throws(DatabaseError) {
        try database.execute("DELETE FROM revisions WHERE stored_at < now() - interval '1 day'")
    }
}
