import Foundation
import TestSupport
import Testing

/// `airloc now` and `airloc sense` with CO₂ and climate sensors beside the particulate one:
/// the card's CO₂ line with its band and the temperature (in the card's unit), humidity
/// and pressure; `measured` in the JSON with the new keys; and `humidity-from` lending a
/// BME280's humidity to a PMS5003's correction and humidity flag.
@Suite(.enabled(if: ExternalTool.available("python3")))
struct NowClimateEndToEndTests {
    static func home(_ double: HTTPDouble, _ config: String) throws -> (TemporaryDirectory, [String: String]) {
        let home = try TemporaryDirectory()
        let directory = home.file("config/airloc")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try config.write(to: directory.appendingPathComponent("airloc.conf"), atomically: true, encoding: .utf8)
        return (
            home,
            AirlocBinary.environment(
                home: home.url, servicesAt: double, extra: ["AIRLOC_LOG_DATABASE": home.file("logbook.sqlite").path])
        )
    }

    static func bme280(_ home: TemporaryDirectory, humidity: String = "45123") throws -> String {
        try SenseClimateEndToEndTests.iio(
            home, "iio:device0",
            [
                "name": "bme280\n", "in_temp_input": "21375\n", "in_humidityrelative_input": "\(humidity)\n",
                "in_pressure_input": "101.325\n",
            ])
    }

    @Test func theCardShowsTheCO2BandAndTheClimateValues() async throws {
        let double = try await HTTPDouble.start()
        defer { double.stop() }
        let scd30 = try await SensorDouble.start("scd30", humidity: 41, co2: 1_234)
        let (home, environment) = try Self.home(double, "")
        defer { home.remove() }
        let room = try Self.bme280(home)
        try """
        [sensor.co2]
        model = scd30
        device = \(scd30.device)
        sample-seconds = 2
        [sensor.room]
        model = bme280
        iio = \(room)
        sample-seconds = 1
        """.write(to: home.file("config/airloc/airloc.conf"), atomically: true, encoding: .utf8)
        let card = try await AirlocBinary.run(["now", "--lat", "52.52", "--lon", "13.405"], environment: environment)
        #expect(card.status == 0, "\(card)")
        #expect(
            card.stdout.contains("CO₂ 1234 ppm Moderate: air the room soon · 21.5 °C · 41 % humidity · co2: SCD30"),
            "\(card.stdout)")
        #expect(card.stdout.contains("21.4 °C · 45 % humidity · 1013.3 hPa · room: BME280"), "\(card.stdout)")
        let fahrenheit = try await AirlocBinary.run(
            ["now", "--lat", "52.52", "--lon", "13.405", "--units", "imperial"], environment: environment)
        #expect(fahrenheit.stdout.contains("70.5 °F · 45 % humidity"), "\(fahrenheit.stdout)")

        let json = try await AirlocBinary.run(
            ["now", "--lat", "52.52", "--lon", "13.405", "--json"], environment: environment)
        let measured = try #require(NowSensorEndToEndTests.measured(json.stdout), "\(json)")
        #expect(measured["co2_ppm"] as? Double == 1_234 && measured["co2_band"] as? String == "moderate", "\(measured)")
        #expect(measured["pressure_hpa"] as? Double == 1013.25, "no float noise: \(measured)")
        #expect(measured["temperature_c"] as? Double == 21.5, "the first climate sensor's: \(measured)")
        #expect(measured["pm2_5"] is NSNull && measured["model"] is NSNull, "no [sensor]: \(measured)")
        let sensors = measured["sensors"] as? [[String: Any]] ?? []
        #expect(sensors.map { $0["name"] as? String } == ["co2", "room"], "\(sensors)")
        #expect(sensors.last?["iio"] as? String == room && sensors.last?["age_s"] is NSNull)

        // The BME280 gone: its failure is its own, and `now` still answers.
        try FileManager.default.removeItem(atPath: room)
        let without = try await AirlocBinary.run(
            ["now", "--lat", "52.52", "--lon", "13.405"], environment: environment)
        #expect(without.status == 0 && without.stdout.contains("room: BME280 unavailable"), "\(without)")
        #expect(without.stdout.contains("CO₂ 1234 ppm"), "\(without.stdout)")
    }

    /// A PMS5003 measures no humidity; `humidity-from = room` lends the BME280's: the EPA
    /// correction runs with it, and 80 % is over the humidity limit.
    @Test func humidityFromLendsTheClimateSensorsHumidity() async throws {
        let double = try await HTTPDouble.start()
        defer { double.stop() }
        let pms = try await SensorDouble.start("pms5003", pm25: 30, pm10: 40)
        let (home, environment) = try Self.home(double, "")
        defer { home.remove() }
        let room = try Self.bme280(home, humidity: "80000")
        let config = """
            [sensor]
            model = pms5003
            device = \(pms.device)
            warm-up-seconds = 1
            sample-seconds = 2
            correction = epa-pms
            humidity-from = room
            [sensor.room]
            model = bme280
            iio = \(room)
            sample-seconds = 1
            """
        try config.write(to: home.file("config/airloc/airloc.conf"), atomically: true, encoding: .utf8)
        let sensed = try await AirlocBinary.run(["sense", "--json"], environment: environment)
        #expect(sensed.status == 0, "\(sensed)")
        let document = SenseEndToEndTests.document(sensed.stdout)
        let corrected = try #require(document["corrected_pm2_5"] as? Double, "\(document)")
        let cf1 = try #require(document["pm2_5_cf1"] as? Double)
        #expect(abs(corrected - ((0.524 * cf1 - 0.0862 * 80 + 5.75) * 10).rounded() / 10) < 1e-9, "\(document)")
        #expect((document["flags"] as? [String] ?? []).contains("humidity"), "\(document)")
        #expect(document["relative_humidity"] is NSNull, "the PMS5003's own humidity stays none: \(document)")

        // Without a section of that name, or naming one that measures no humidity: 78.
        for (name, said) in [("attic", "there is no [sensor.attic]"), ("co2", "measures no humidity")] {
            let broken =
                config.replacingOccurrences(of: "humidity-from = room", with: "humidity-from = \(name)")
                + "\n[sensor.co2]\nmodel = mh-z19\ndevice = /dev/ttyAMA0\n"
            try broken.write(to: home.file("config/airloc/airloc.conf"), atomically: true, encoding: .utf8)
            let refused = try await AirlocBinary.run(["sense"], environment: environment)
            #expect(refused.status == 78 && refused.stderr.contains(said), "\(refused)")
        }
    }

    /// `now --watch` reads each `[sensor.NAME]` through the logger's loop and prints the
    /// report again with its reading.
    @Test func theWatchShowsTheClimateSensorsReadings() async throws {
        let double = try await HTTPDouble.start()
        defer { double.stop() }
        let (home, environment) = try Self.home(double, "")
        defer { home.remove() }
        let room = try Self.bme280(home)
        try "[sensor.room]\nmodel = bme280\niio = \(room)\nsample-seconds = 1\n".write(
            to: home.file("config/airloc/airloc.conf"), atomically: true, encoding: .utf8)
        let watch = try ChildProcess(
            AirlocBinary.path, ["now", "--watch", "--json", "--lat", "52.52", "--lon", "13.405"],
            environment: environment)
        try await watch.waitForOutput("a report with the BME280's reading", timeout: 120) {
            $0.contains("\"pressure_hpa\":1013")
        }
        let stopped = try await watch.terminate()
        #expect(stopped.status == 0, "\(stopped)")
        let lines = stopped.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let measured = try #require(lines.last?["measured"] as? [String: Any], "\(stopped.stdout)")
        let sensors = measured["sensors"] as? [[String: Any]] ?? []
        #expect(sensors.first?["name"] as? String == "room" && sensors.first?["temperature_c"] as? Double == 21.38)
    }
}
