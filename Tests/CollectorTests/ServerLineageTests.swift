import FleetStore
import Foundation
import TestSupport
import Testing

/// A collector never writes to a former primary: which server of a connection string's
/// list it takes, by the lineage it last wrote to.
struct ServerLineageTests {
    @Test func aFormerPrimaryOrAnotherClusterIsRefusedAndAFailoverTaken() {
        let written = ServerLineage(system: "7715", timeline: 2)
        #expect(written.refusal(of: written) == nil)
        #expect(written.refusal(of: ServerLineage(system: "7715", timeline: 3)) == nil, "a later failover")
        #expect(
            written.refusal(of: ServerLineage(system: "7715", timeline: 1))
                == "is on timeline 1, behind timeline 2: a former primary; not writing to it")
        #expect(written.refusal(of: ServerLineage(system: "9999", timeline: 5))?.contains("another cluster") == true)
    }

    @Test func eachHostOfTheListIsAServerWithItsPort() throws {
        typealias Server = PostgresConnection.Server
        #expect(
            PostgresConnection.servers(in: "host=/a,/b port=5432,5433 dbname=airloc target_session_attrs=read-write")
                == [Server(host: "/a", port: "5432"), Server(host: "/b", port: "5433")])
        #expect(
            PostgresConnection.servers(in: "postgresql://db1:6000,db2:6001/airloc")
                == [Server(host: "db1", port: "6000"), Server(host: "db2", port: "6001")])
        #expect(
            PostgresConnection.servers(in: "host=a,b port=7") == [
                Server(host: "a", port: "7"), Server(host: "b", port: "7"),
            ],
            "one port serves every host")
        #expect(PostgresConnection.servers(in: "host=a port=7").isEmpty, "one server: libpq's own way")
        #expect(PostgresConnection.servers(in: "host='unterminated").isEmpty)
    }

    /// The failover as it happens: a standby promoted, and the old primary started again as
    /// it was, first in the list. libpq alone takes it (both are read-write); the collector's
    /// connection takes the new primary.
    @Test func aFormerPrimaryStartedAgainIsPassedOverForTheNewOne() async throws {
        let primary = try await PostgresServer.start()
        let standby = try await PostgresServer.standby(of: primary)
        try await primary.kill()
        try await standby.promote()
        try await primary.start()
        let both =
            "host=\(primary.directory.url.path),\(standby.directory.url.path) port=\(primary.port),\(standby.port) "
            + "dbname=postgres user=postgres target_session_attrs=read-write"
        func port(_ connection: PostgresConnection) throws -> String? {
            try connection.execute("SELECT current_setting('port')").first?.first ?? nil
        }
        let plain = try PostgresConnection(conninfo: both, password: nil)
        #expect(try port(plain) == "\(primary.port)", "libpq takes the first read-write server")
        plain.close()
        let newest = try #require(try ServerLineage.read(PostgresConnection(conninfo: standby.conninfo, password: nil)))
        #expect(newest.timeline == 2)
        let (chosen, lineage, passedOver) = try PostgresConnection.writable(
            conninfo: both, password: nil, connectTimeout: 10, after: newest)
        #expect(try port(chosen) == "\(standby.port)")
        #expect(lineage == newest)
        #expect(passedOver.count == 1 && passedOver[0].contains("behind timeline 2"), "\(passedOver)")
        chosen.close()
        #expect(throws: DatabaseError.self) {
            _ = try PostgresConnection.writable(
                conninfo: primary.conninfo, password: nil, connectTimeout: 10, after: newest)
        }
        do {
            _ = try PostgresConnection.writable(
                conninfo: primary.conninfo, password: nil, connectTimeout: 10, after: newest)
        } catch {
            #expect("\(error)".contains("is on timeline 1, behind timeline 2"))
        }
        try await primary.stop()
        try await standby.stop()
    }
}
