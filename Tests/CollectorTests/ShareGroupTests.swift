import FleetWire
import Foundation
import Geo
import TestSupport
import Testing

@testable import Collector
@testable import FleetStore

/// Two members of a `[collect] share` group in a real PostgreSQL: one lease per device,
/// taken over only once it ran out; the owner's view holds every member's rows and revisions.
@Suite(.enabled(if: ExternalTool.available("psql")))
struct ShareGroupTests {
    static let now = Date()

    static func track(_ id: Int, device: String = "pi", revision: Int = 0) throws -> DeviceRow {
        var row = try DeviceRow(
            device: device,
            payload:
                #"{"schema":"airloc.log/1","id":"t\#(id)","kind":"track","revision":\#(revision),"time":"\#(UTCTime.iso8601(now))","latitude":52.5,"longitude":13.4,"time_source":"gps","mode":"3d","provider":"gpsd","segment":1}"#,
            now: now)
        row.mayBeStored = true
        return row
    }

    /// `rows` stored by one member, with their devices heard from now.
    static func store(_ rows: [DeviceRow], _ database: PostgresConnection) throws {
        var devices: [String: RowStore.DeviceUpdate] = [:]
        var throughs: [StoreLedger.StreamKey: Int64] = [:]
        for row in rows {
            devices[row.device] = RowStore.DeviceUpdate(prefix: "airloc/\(row.device)", seen: now)
            throughs[StoreLedger.StreamKey(device: row.owner, kind: row.kind)] = 0
        }
        #expect(try RowStore(database: database).write(rows: rows, devices: devices, throughs: throughs).isEmpty)
    }

    @Test func oneMemberSaysEachDeviceAndTheDatabaseIsItsMemory() async throws {
        let server = try await PostgresServer.start()
        defer { Task { try? await server.stop() } }
        let database = try PostgresConnection(conninfo: server.conninfo, password: nil)
        defer { database.close() }
        try CollectorSchema.prepare(database)
        let track = StoreLedger.StreamKey(device: "pi", kind: .track)

        // Member a stores t1 and t3, member b t2: whoever rounds first owns pi.
        try Self.store([try Self.track(1), try Self.track(3)], database)
        var a = try ShareGroup.round(member: "a", devices: ["pi"], database: database)
        try Self.store([try Self.track(2)], database)
        var b = try ShareGroup.round(member: "b", devices: ["pi"], database: database)
        #expect(a.owned == ["pi"] && b.owned.isEmpty, "one owner")
        #expect(b.streams.isEmpty, "a member that owns nothing reads nothing")
        a = try ShareGroup.round(member: "a", devices: [], database: database)
        #expect(a.owned == ["pi"], "renewed: pi was heard from in the last minute")
        #expect(a.streams[track]?.above == [1, 2, 3], "every member's rows: \(a.streams)")

        // b stores a revision of t2: a lists it, though a did not store it.
        let revised = try Self.track(2, revision: 1)
        try Self.store([revised], database)
        try ShareGroup.record([revised], database)
        b = try ShareGroup.round(member: "b", devices: ["pi"], database: database)
        #expect(b.owned.isEmpty)
        a = try ShareGroup.round(member: "a", devices: [], database: database)
        #expect(a.revised == ["pi": ["t2": 1]])

        // a's lease runs out (a died): b takes pi over, and a no longer owns it.
        try database.execute("UPDATE ack_owners SET until = clock_timestamp() - interval '1 second'")
        b = try ShareGroup.round(member: "b", devices: [], database: database)
        a = try ShareGroup.round(member: "a", devices: ["pi"], database: database)
        #expect(b.owned == ["pi"] && a.owned.isEmpty)
        #expect(b.streams[track]?.above == [1, 2, 3] && b.revised == ["pi": ["t2": 1]])

        // A device not heard from for a minute is nobody's until its rows come again.
        try database.execute("UPDATE devices SET last_seen = now() - interval '2 minutes'")
        try database.execute("UPDATE ack_owners SET until = clock_timestamp() - interval '1 second'")
        #expect(try ShareGroup.round(member: "a", devices: [], database: database).owned.isEmpty)
        #expect(try ShareGroup.round(member: "a", devices: ["pi"], database: database).owned == ["pi"])
        // A member that stops gives its leases up: they end a second later (not five), when
        // another takes them over.
        try ShareGroup.leave(member: "a", database)
        #expect(try ShareGroup.round(member: "b", devices: ["pi"], database: database).owned.isEmpty)
        let left = try database.execute(
            "SELECT member, until <= clock_timestamp() + interval '1 second' FROM ack_owners WHERE device_id = 'pi'")
        #expect(left == [["a", "t"]], "\(left)")
    }
}
