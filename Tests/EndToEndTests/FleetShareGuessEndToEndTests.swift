import Foundation
import TestSupport
import Testing

/// On a fleet page with a password, `?share=junk` skipped the password: it said the
/// database's state and ran unthrottled look-ups (~1,300 a second). A share token is a
/// credential there: a wrong one counts as a wrong password, so the eleventh guess in a
/// minute is refused (429), and the right password from that address too until the minute
/// is over, as after ten wrong passwords.
@Suite(.enabled(if: ExternalTool.available("mosquitto_pub", "psql", "curl")))
struct FleetShareGuessEndToEndTests {
    typealias Collecting = CollectorInputEndToEndTests

    @Test func guessingShareTokensIsAsSlowAsGuessingThePassword() async throws {
        let bench = try await Collecting.Bench.start()
        try await Collecting.publish(bench.broker, "airloc/pi-share/history", Collecting.track(1))
        try await Poll.until("the row stored") {
            try await bench.database.query("SELECT count(*) FROM track WHERE device_id = 'pi-share'") == "1\n"
        }
        let secret = bench.collector.state.file("password")
        try "correct horse\n".write(to: secret, atomically: true, encoding: .utf8)
        chmod(secret.path, 0o600)
        let (server, port) = try await bench.fleetPage("password-file = \(secret.path)\n")
        defer { server.stop() }
        try await Poll.until("the page ready") {
            try await FleetPageEndToEndTests.get(port, "/api/last", password: "correct horse").status == 200
        }

        var statuses: [Int] = []
        for guess in 1...11 {
            statuses.append(try await FleetPageEndToEndTests.get(port, "/api/map?share=guess-\(guess)").status)
        }
        #expect(statuses.prefix(10).allSatisfy { $0 == 404 } && statuses.last == 429, "\(statuses)")
        #expect(
            try await FleetPageEndToEndTests.get(port, "/api/last", password: "correct horse").status == 429,
            "the address that guessed waits out the minute")
        #expect(try await server.terminate().status == 0)
        try await bench.stop()
    }
}
