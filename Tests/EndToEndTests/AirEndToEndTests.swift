import Foundation
import TestSupport
import Testing

/// `airloc air` for a chosen place, against the HTTP double in place of Open-Meteo.
@Suite(.enabled(if: ExternalTool.available("python3")), .serialized)
struct AirEndToEndTests {
    static func run(_ arguments: [String], double: HTTPDouble) async throws -> ChildProcess.Result {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        return try await AirlocBinary.run(
            arguments,
            environment: AirlocBinary.environment(home: home.url, servicesAt: double))
    }

    @Test func byNameByPostalCodeAndByCoordinates() async throws {
        let double = try await HTTPDouble.start()
        defer { double.stop() }
        let paris = try await Self.run(["air", "Paris", "--json"], double: double)
        #expect(paris.status == 0, "\(paris)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(paris.stdout.utf8)) as? [String: Any])
        #expect((json["place"] as? [String: Any])?["display_name"] as? String == "Paris, Île-de-France, France")
        #expect((json["location"] as? [String: Any])?["source"] as? String == "manual")
        let postal = try await Self.run(["air", "--postal", "US 90210"], double: double)
        #expect(postal.status == 0 && postal.stdout.hasPrefix("Chosen location · Beverly Hills"), "\(postal)")
        let point = try await Self.run(
            ["air", "--lat", "52.52", "--lon", "13.405", "--format", "line"], double: double)
        #expect(point.stdout == "Berlin 41 Good · PM2.5 8.8 · +1.8°C\n", "\(point)")
        // Only the rounded point of the chosen place was sent: nothing about this device.
        let queries = try double.requests().filter { $0.path == "/v1/air-quality" }.map(\.query)
        #expect(queries.count == 3)
        #expect(queries.first?.hasPrefix("latitude=48.85&longitude=2.35&") == true, "\(queries)")
        let archive = try double.requests().filter { $0.path == "/v1/archive" }.map(\.query)
        #expect(archive.count == 3 && archive.allSatisfy { $0.hasPrefix("latitude=") }, "one per report: \(archive)")
        #expect(archive.first { $0.contains("latitude=48.85&longitude=2.35&") } != nil, "\(archive)")
    }

    @Test func pollenInTheReportTheLineAndTheJSON() async throws {
        // Outside the season (the double answers null for every species): not available.
        let plain = try await HTTPDouble.start()
        defer { plain.stop() }
        let text = try await Self.run(["air", "Berlin"], double: plain)
        #expect(text.stdout.contains("Pollen       not available here"), "\(text)")
        let json = try #require(
            try JSONSerialization.jsonObject(
                with: Data(try await Self.run(["air", "Berlin", "--json"], double: plain).stdout.utf8))
                as? [String: Any])
        #expect((json["pollen"] as? [String: Any])?["available"] as? Bool == false)
        // In season: the seed's example line.
        let body =
            #"{"latitude":52.55,"longitude":13.4,"timezone":"Europe/Berlin","current":{"time":"2024-04-21T16:00","interval":3600,"us_aqi":41,"pm2_5":8.8,"us_aqi_pm2_5":41,"birch_pollen":120.0,"grass_pollen":5.0}}"#
        let spring = try await HTTPDouble.start(faults: [
            #"{"path": "/v1/air-quality", "status": 200, "body": \#(String(reflecting: body))}"#
        ])
        defer { spring.stop() }
        let line = try await Self.run(["air", "Berlin", "--format", "line", "--no-climate"], double: spring)
        #expect(line.stdout == "Berlin 41 Good · PM2.5 8.8 · Birch high\n", "\(line)")
        let card = try await Self.run(["air", "Berlin"], double: spring)
        #expect(card.stdout.contains("Pollen       Tree high (Birch 120) · Grass low"), "\(card)")
    }

    @Test func unclearOrUnknownPlacesAreClearErrors() async throws {
        let double = try await HTTPDouble.start()
        defer { double.stop() }
        let none = try await Self.run(["air"], double: double)
        #expect(none.status == 64 && none.stderr.contains("airloc now"))
        let both = try await Self.run(["air", "Paris", "--lat", "1", "--lon", "2"], double: double)
        #expect(both.status == 64)
        let unknown = try await Self.run(["air", "Qxqxqxqxzz"], double: double)
        #expect(unknown.status == 65 && unknown.stderr.contains("no place named"), "\(unknown)")
        let badPostal = try await Self.run(["air", "--postal", "US ../x"], double: double)
        #expect(badPostal.status == 65, "\(badPostal)")
        let badFormat = try await Self.run(["air", "Paris", "--format", "xml"], double: double)
        #expect(badFormat.status == 64)
        #expect(try double.requests().isEmpty, "no request for a request that was not clear")
    }

    @Test func aFailedServiceGivesAShortLineAndItsExitStatus() async throws {
        let double = try await HTTPDouble.start(faults: [#"{"path": "/v1/air-quality", "status": 503}"#])
        defer { double.stop() }
        let result = try await Self.run(["air", "Berlin", "--format", "line"], double: double)
        #expect(result.status == 75)
        #expect(result.stdout == "Berlin air quality unavailable (try later)\n", "\(result)")
    }
}
