import Foundation
import TestSupport
import Testing

/// `airloc now` as a user runs it: the built binary, a real gpsd (gpsfake) and the
/// local HTTP double in place of Open-Meteo.
@Suite(.enabled(if: ExternalTool.available("gpsfake", "python3")))
struct NowEndToEndTests {
    @Test func jsonReportFromARealGPSFix() async throws {
        let world = try await AirlocWorld()
        defer { world.stop() }
        let result = try await AirlocBinary.run(["now", "--json"], environment: world.environment)
        #expect(result.status == 0, "\(result)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(json["schema"] as? String == "airloc.report/1")
        let location = try #require(json["location"] as? [String: Any])
        #expect(abs((location["latitude"] as? Double ?? 0) - 52.52) < 1e-6)
        #expect(abs((location["longitude"] as? Double ?? 0) - 13.405) < 1e-6)
        #expect(location["source"] as? String == "gps")
        let place = try #require(json["place"] as? [String: Any])
        #expect(place["display_name"] as? String == "Berlin, Berlin, Germany")
        let air = try #require(json["air_quality"] as? [String: Any])
        #expect(air["us_aqi"] as? Int == 41)
        #expect(air["category"] as? String == "good")
        #expect(air["color"] as? String == "#00E400")
        #expect((json["errors"] as? [Any])?.isEmpty == true)
        // Privacy: what left the device is rounded to 0.01°, and the JSON says so.
        let sent = try #require(json["sent_coordinate"] as? [String: Any])
        #expect(sent["latitude"] as? Double == 52.52 && sent["longitude"] as? Double == 13.41)
        let query = try #require(try world.double.requests().first?.query)
        #expect(query.hasPrefix("latitude=52.52&longitude=13.41&"))
    }

    @Test func textReportHasTheYourLocationCard() async throws {
        let world = try await AirlocWorld()
        defer { world.stop() }
        let result = try await AirlocBinary.run(["now"], environment: world.environment)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("Your Location · Berlin, Berlin, Germany"))
        #expect(result.stdout.contains("52.5200° N, 13.4050° E · GPS 3D fix ±17 m"))
        #expect(result.stdout.contains("Air quality  41  Good"))
        #expect(result.stdout.contains("PM2.5 8.8 µg/m³"))
        #expect(!result.stdout.contains("\u{1B}["), "no colour when stdout is not a terminal")
    }

    @Test(arguments: [
        (#"{"path": "/v1/air-quality", "status": 429, "reason": "minutely"}"#, Int32(75), "Minutely API request limit"),
        (#"{"path": "/v1/air-quality", "status": 500}"#, Int32(75), "HTTP 500"),
        (#"{"path": "/v1/air-quality", "mode": "garbage"}"#, Int32(69), "cannot read"),
        (
            #"{"path": "/v1/air-quality", "status": 400, "reason": "No data is available for this location"}"#,
            Int32(69),
            "No data is available for this location"
        ),
    ])
    func airServiceFailuresKeepTheLocationPart(fault: String, exitCode: Int32, message: String) async throws {
        let world = try await AirlocWorld(faults: [fault])
        defer { world.stop() }
        let result = try await AirlocBinary.run(["now"], environment: world.environment)
        #expect(result.status == exitCode, "\(result)")
        #expect(result.stdout.contains("Your Location · Berlin, Berlin, Germany"))
        #expect(result.stdout.contains("unavailable"))
        #expect(result.stderr.contains("Open-Meteo air quality"))
        #expect(result.stderr.contains(message))
    }

    @Test func noFixWithinTheTimeoutSaysSo() async throws {
        let world = try await AirlocWorld(track: "nofix")
        defer { world.stop() }
        let result = try await AirlocBinary.run(["now", "--timeout", "10"], environment: world.environment)
        #expect(result.status == 75, "\(result)")
        #expect(result.stderr.contains("no GPS fix within 10 s (receiver reports no fix)"))
        #expect(try world.double.requests().isEmpty)
    }

    @Test func notAuthorizedWithoutATerminalRefusesWithoutSensingOrHanging() async throws {
        let world = try await AirlocWorld(authorized: false)
        defer { world.stop() }
        let result = try await AirlocBinary.run(["now"], environment: world.environment, timeout: 120)
        // A hang would miss run's deadline and throw.
        #expect(result.status == 77, "\(result)")
        #expect(result.stderr.contains("airloc auth grant"))
        #expect(try world.double.requests().isEmpty)
    }
}

/// Failures that need no gpsd or double.
@Suite struct NowWithoutServicesTests {
    func run(_ arguments: [String], extra: [String: String] = [:], configText: String? = nil) async throws
        -> ChildProcess.Result
    {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        if let configText {
            try FileManager.default.createDirectory(
                at: home.url.appendingPathComponent("config/airloc"), withIntermediateDirectories: true)
            try configText.write(
                to: home.url.appendingPathComponent("config/airloc/airloc.conf"), atomically: true, encoding: .utf8)
        }
        return try await AirlocBinary.run(
            arguments, environment: AirlocBinary.environment(home: home.url, extra: extra))
    }

    @Test func gpsdNotRunningIsUnavailableWithAHint() async throws {
        let port = try GPSFake.freePort()
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let environment = AirlocBinary.environment(home: home.url, extra: ["AIRLOC_GPSD": "127.0.0.1:\(port)"])
        _ = try await AirlocBinary.run(["auth", "grant", "--always"], environment: environment)
        let result = try await AirlocBinary.run(["now"], environment: environment, timeout: 120)
        #expect(result.status == 69, "\(result)")
        #expect(result.stderr.contains("cannot reach gpsd at 127.0.0.1:\(port)"))
        #expect(result.stderr.contains("is gpsd running?"))
    }

    @Test(arguments: [["--lat", "91", "--lon", "0"], ["--lat", "abc", "--lon", "0"], ["--lat", "10"]])
    func badCoordinatesAreUsageErrors(arguments: [String]) async throws {
        let result = try await run(["now"] + arguments)
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.hasPrefix("Error: "))
        #expect(result.stderr.contains("See 'airloc now --help'."))
        #expect(result.stdout.isEmpty)
    }

    @Test func brokenConfigLineIsAConfigErrorWithFileAndLine() async throws {
        let result = try await run(["now", "--lat", "1", "--lon", "1"], configText: "[gpsd]\nport = many\n")
        #expect(result.status == 78, "\(result)")
        #expect(result.stderr.contains("airloc.conf:2: invalid value 'many' for port"))
    }

    @Test func manualCoordinatesNeedNoAuthorizationAndServiceDownIsTempFail() async throws {
        let result = try await run(["now", "--lat", "48.137", "--lon", "11.575"])
        #expect(result.status == 75, "\(result)")
        #expect(result.stdout.contains("Chosen location · Munich, Bayern, Germany"))
        #expect(result.stderr.contains("cannot reach Open-Meteo air quality"))
    }

    @Test func helpAndVersionGoToStdout() async throws {
        let help = try await run(["now", "--help"])
        #expect(help.status == 0 && help.stdout.contains("Usage: airloc now"))
        let version = try await run(["--version"])
        #expect(version.status == 0 && version.stdout.hasPrefix("airloc "))
        let typo = try await run(["nwo"])
        #expect(typo.status == 64 && typo.stderr.contains("did you mean 'now'?"))
    }

    @Test func missingPlaceDataIsAClearError() async throws {
        let result = try await run(["reverse", "52.5", "13.4"], extra: ["AIRLOC_DATA": "/nonexistent/gazetteer.bin"])
        #expect(result.status == 72, "\(result)")
        #expect(result.stderr.contains("no place data"))
    }
}
