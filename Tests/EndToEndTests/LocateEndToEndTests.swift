import Foundation
import TestSupport
import Testing

/// `airloc locate` and `airloc doctor` as scripts run them: the built binary, a real gpsd
/// (gpsfake) and the HTTP double standing in for the IP and air-quality services.
@Suite(.enabled(if: ExternalTool.available("gpsfake", "python3")))
struct LocateEndToEndTests {
    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func locateJSONHasTheFixItsSourceAndThePlace() async throws {
        let world = try await AirlocWorld()
        defer { world.stop() }
        let result = try await world.run(["locate", "--json"])
        #expect(result.status == 0, "\(result)")
        let document = try json(result.stdout)
        #expect(document["schema"] as? String == "airloc.locate/1")
        let location = try #require(document["location"] as? [String: Any])
        #expect(abs((location["latitude"] as? Double ?? 0) - 52.52) < 1e-6)
        #expect(location["source"] as? String == "gps" && location["mode"] as? String == "3d")
        #expect(location["accuracy_m"] as? Double == 17.1 && location["accuracy_source"] as? String == "eph")
        #expect((document["place"] as? [String: Any])?["name"] as? String == "Berlin")
        let providers = try #require(document["providers"] as? [[String: Any]])
        #expect(providers.map { $0["outcome"] as? String } == ["answered", "not_tried"])
    }

    @Test func aReceiverWithoutAFixFallsBackToTheManualLocationAndSaysWhy() async throws {
        let tn200 = PackagePaths.corpus?.appendingPathComponent("nmea/tn200.log")
        let world = try await AirlocWorld(
            log: tn200, track: "nofix", config: "[location]\nplace = Paris, FR\n[gpsd]\ntimeout = 2\n")
        defer { world.stop() }
        let result = try await world.run(["locate", "--json"])
        #expect(result.status == 0, "\(result)")
        let document = try json(result.stdout)
        let location = try #require(document["location"] as? [String: Any])
        #expect(location["source"] as? String == "manual")
        #expect(abs((location["latitude"] as? Double ?? 0) - 48.85341) < 1e-4)
        let providers = try #require(document["providers"] as? [[String: Any]])
        #expect(providers.first?["outcome"] as? String == "failed")
        #expect((providers.first?["reason"] as? String)?.contains("no GPS fix within 2 s") == true)
        #expect(result.stderr.contains("gpsd gave no location"))
    }

    @Test func ipIsUsedOnlyWhenListedAndAuthorized() async throws {
        let world = try await AirlocWorld(config: "[location]\nproviders = ip\n", authorized: false)
        defer { world.stop() }
        // Not authorized, no terminal: refused, nothing sent to the IP service.
        let refused = try await world.run(["locate"])
        #expect(refused.status == 77, "\(refused)")
        #expect(refused.stderr.contains("airloc auth grant"))
        #expect(try world.double.requests().isEmpty)
        // Granted only for use at a terminal: this run has none, so it is still refused,
        // with the grant it needs named.
        _ = try await world.run(["auth", "grant"])
        let unattended = try await world.run(["locate", "--json"])
        #expect(unattended.status == 77, "\(unattended)")
        #expect(unattended.stderr.contains("airloc auth grant --always"))
        #expect(try world.double.requests().isEmpty)
        let doctor = try await world.run(["doctor", "--json"])
        let checks = try #require(try json(doctor.stdout)["checks"] as? [[String: Any]])
        let unattendedCheck = try #require(checks.first { $0["name"] as? String == "unattended use" })
        #expect(unattendedCheck["status"] as? String == "warn")
        _ = try await world.run(["auth", "grant", "--always"])
        let asked = try world.double.requests().count
        let result = try await world.run(["locate", "--json"])
        #expect(result.status == 0, "\(result)")
        let location = try #require(try json(result.stdout)["location"] as? [String: Any])
        #expect(location["source"] as? String == "ip")
        #expect(location["accuracy_m"] as? Double == 25_000)
        #expect(try world.double.requests().dropFirst(asked).map(\.path) == ["/"])
    }

    @Test func watchStreamsOneJSONObjectPerLine() async throws {
        let world = try await AirlocWorld()
        defer { world.stop() }
        let result = try await world.run(["locate", "--watch", "--count", "3"], timeout: 120)
        #expect(result.status == 0, "\(result)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        let events = try lines.map { try json($0) }
        #expect(events.first?["event"] as? String == "connected")
        let fixes = events.filter { $0["event"] as? String == "fix" }
        #expect(fixes.count == 3)
        #expect(events.allSatisfy { $0["schema"] as? String == "airloc.watch/1" })
        let location = try #require(fixes.first?["location"] as? [String: Any])
        #expect(abs((location["longitude"] as? Double ?? 0) - 13.405) < 1e-6)
    }

    @Test func reducedAccuracySnapsEveryFixToTheCityGrid() async throws {
        let world = try await AirlocWorld(authorized: false)
        defer { world.stop() }
        _ = try await world.run(["auth", "grant", "--always", "--reduced"])
        let result = try await world.run(["locate", "--json"])
        let location = try #require(try json(result.stdout)["location"] as? [String: Any])
        #expect(location["latitude"] as? Double == 52.5 && location["longitude"] as? Double == 13.4)
        #expect((location["accuracy_m"] as? Double ?? 0) >= 5000)
        #expect(location["altitude_msl_m"] is NSNull)
    }

    @Test func doctorListsTheReceiverAndFailsOnlyOnWhatIsNeeded() async throws {
        let world = try await AirlocWorld()
        defer { world.stop() }
        let result = try await world.run(["doctor", "--json"])
        #expect(result.status == 0, "\(result)")
        let document = try json(result.stdout)
        #expect(document["ok"] as? Bool == true)
        let checks = try #require(document["checks"] as? [[String: Any]])
        let gpsd = try #require(checks.first { $0["name"] as? String == "gpsd" })
        #expect(gpsd["status"] as? String == "ok")
        #expect((gpsd["detail"] as? String)?.contains("/dev/pts/") == true)
        // The air-quality check asks for 0,0: nothing about this device leaves it.
        #expect(try world.double.requests().first?.query.hasPrefix("latitude=0&longitude=0&") == true)
        // gpsd gone: the check fails with what to do.
        world.gpsd.stop()
        let broken = try await world.run(["doctor"])
        #expect(broken.status == 69, "\(broken)")
        #expect(broken.stdout.contains("FAIL  gpsd: cannot reach gpsd"))
        #expect(broken.stdout.contains("systemctl enable --now gpsd.socket"))
    }

    @Test func doctorReportsABrokenConfigurationInsteadOfStopping() async throws {
        let world = try await AirlocWorld(config: "[gpsd]\nprot = 2947\n", authorized: false)
        defer { world.stop() }
        let result = try await world.run(["doctor"])
        #expect(result.status == 78, "\(result)")
        #expect(result.stdout.contains("FAIL  configuration:"))
        #expect(result.stdout.contains("did you mean 'port'?"))
        // The rest would check the defaults, not what was written: not run, and not counted.
        #expect(result.stdout.contains("other checks: not run: they need the configuration to load"), "\(result)")
        #expect(!result.stdout.contains("gpsd:") && result.stdout.contains("1 problem to fix"), "\(result)")
    }
}
