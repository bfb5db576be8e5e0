import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `airloc sense` with several sensors at once, through the built binary: a particulate
/// double, the three CO₂ doubles (MH-Z19, SenseAir S8, SCD30, one of them spoiling every
/// other reply) on pseudo-terminals, and a BME280 and a DHT11 whose driver fails now and
/// then, in directories laid out as sysfs lays them out. Each sensor's values are in
/// `sensors`; one unplugged fails alone; `--sensor NAME` reads one.
@Suite(.enabled(if: ExternalTool.available("python3", "gpsfake")))
struct SenseClimateEndToEndTests {
    /// An IIO device directory under `home` with `files`.
    static func iio(_ home: TemporaryDirectory, _ name: String, _ files: [String: String]) throws -> String {
        let directory = home.file("sys/bus/iio/devices/\(name)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (file, text) in files {
            try text.write(to: directory.appendingPathComponent(file), atomically: true, encoding: .utf8)
        }
        return directory.path
    }

    static func run(_ config: String, in home: TemporaryDirectory, _ arguments: [String]) async throws
        -> ChildProcess.Result
    {
        let file = home.file("airloc.conf")
        try config.write(to: file, atomically: true, encoding: .utf8)
        return try await AirlocBinary.run(
            arguments, environment: AirlocBinary.environment(home: home.url, extra: ["AIRLOC_CONFIG": file.path]))
    }

    static func sensors(_ result: ChildProcess.Result) -> [String: [String: Any]] {
        let list = SenseEndToEndTests.document(result.stdout)["sensors"] as? [[String: Any]] ?? []
        return Dictionary(list.map { ($0["name"] as? String ?? "", $0) }, uniquingKeysWith: { first, _ in first })
    }

    @Test func everySensorIsReadAtOnceAndEachValueIsItsOwn() async throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let pm = try await SensorDouble.start("sds011", pm25: 12.3, pm10: 20.1)
        let mhz19 = try await SensorDouble.start("mh-z19", fault: "corrupt-odd", co2: 923)
        let s8 = try await SensorDouble.start("senseair-s8", co2: 612, status: 0x20)
        let scd30 = try await SensorDouble.start("scd30", humidity: 41, co2: 1_234)
        let bme280 = try Self.iio(
            home, "iio:device0",
            [
                "name": "bme280\n", "in_temp_input": "21375\n", "in_humidityrelative_input": "45123\n",
                "in_pressure_input": "101.325\n",
            ])
        let dht11 = try Self.iio(home, "iio:device1", ["name": "dht11\n", "in_humidityrelative_input": "40000\n"])
        // Its temperature fails with EIO at every read (/proc/self/mem at 0): humidity only.
        symlink("/proc/self/mem", dht11 + "/in_temp_input")
        let config = """
            [sensor]
            model = sds011
            device = \(pm.device)
            warm-up-seconds = 1
            sample-seconds = 3
            [sensor.co2]
            model = mh-z19
            device = \(mhz19.device)
            warm-up-seconds = 1
            sample-seconds = 4
            abc = off
            [sensor.office]
            model = senseair-s8
            device = \(s8.device)
            sample-seconds = 6
            [sensor.desk]
            model = scd30
            device = \(scd30.device)
            sample-seconds = 3
            [sensor.room]
            model = bme280
            iio = \(bme280)
            sample-seconds = 2
            [sensor.garden]
            model = dht11
            iio = \(dht11)
            sample-seconds = 2
            """
        let result = try await Self.run(config, in: home, ["sense", "--json"])
        // The DHT11's driver never reads: that sensor fails (74), the document has the rest.
        #expect(result.status == 74 && result.stderr.contains("garden:"), "\(result)")
        let document = SenseEndToEndTests.document(result.stdout)
        #expect(document["schema"] as? String == "airloc.sense/1" && document["pm2_5"] as? Double == 12.3)
        let sensors = Self.sensors(result)
        #expect(Array(sensors.keys).sorted() == ["co2", "desk", "garden", "office", "room", "sensor"], "\(sensors)")
        #expect(sensors["sensor"]?["pm2_5"] as? Double == 12.3 && sensors["sensor"]?["co2_ppm"] is NSNull)
        // Every other MH-Z19 reply had a bad checksum: none of them is a value.
        #expect(sensors["co2"]?["co2_ppm"] as? Double == 923, "\(sensors["co2"] ?? [:])\n\(mhz19.log)")
        #expect(mhz19.log.contains("CMD abc off"))
        #expect(sensors["office"]?["co2_ppm"] as? Double == 612)
        #expect(sensors["office"]?["flags"] as? [String] == ["out of range"], "the S8's status: \(sensors)")
        let desk = sensors["desk"] ?? [:]
        #expect(desk["co2_ppm"] as? Double == 1_234 && desk["temperature_c"] as? Double == 21.5, "\(desk)")
        #expect(desk["relative_humidity"] as? Double == 41 && desk["device"] as? String == scd30.device)
        let room = sensors["room"] ?? [:]
        #expect(room["temperature_c"] as? Double == 21.38 && room["iio"] as? String == bme280, "\(room)")
        #expect(room["pressure_hpa"] as? Double == 1013.25 && room["co2_ppm"] is NSNull, "\(room)")
        let garden = sensors["garden"] ?? [:]
        #expect(garden["relative_humidity"] as? Double == nil, "a channel failing with EIO is no value: \(garden)")
        #expect((garden["error"] as? String ?? "").contains("at every try"), "\(garden)")

        // One sensor, by name; the particulate one is `sensor`.
        let one = try await Self.run(config, in: home, ["sense", "--sensor", "desk", "--json"])
        #expect(one.status == 0 && Array(Self.sensors(one).keys) == ["desk"], "\(one)")
        let text = try await Self.run(config, in: home, ["sense", "--sensor", "room"])
        #expect(text.stdout.contains("21.4 °C · 45 % humidity · 1013.2 hPa"), "\(text)")
        let unknown = try await Self.run(config, in: home, ["sense", "--sensor", "attic"])
        #expect(unknown.status == 78 && unknown.stderr.contains("configured: sensor, co2, office, desk, room, garden"))
    }

    @Test func anUnpluggedSensorFailsAloneAndABadSectionIsNamed() async throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let s8 = try await SensorDouble.start("senseair-s8", co2: 700)
        let config = """
            [sensor.office]
            model = senseair-s8
            device = \(s8.device)
            sample-seconds = 2
            [sensor.kitchen]
            model = mh-z19
            device = \(home.file("ttyUSB9").path)
            """
        let result = try await Self.run(config, in: home, ["sense", "--json"])
        #expect(result.status == 74, "a device that is not there: \(result)")
        let sensors = Self.sensors(result)
        #expect(sensors["office"]?["co2_ppm"] as? Double == 700, "the other sensor is still read: \(sensors)")
        #expect(sensors["kitchen"]?["co2_ppm"] is NSNull && sensors["kitchen"]?["error"] is String, "\(sensors)")
        #expect(result.stderr.contains("kitchen:"), "\(result.stderr)")
        #expect(SenseEndToEndTests.document(result.stdout)["pm2_5"] is NSNull, "no [sensor]: no particulate values")
        // doctor takes a quick look at each: the S8 answers, the MH-Z19's port is not there.
        let file = home.file("airloc.conf")
        let checks = try await ServeEndToEndTests.doctorChecks(
            AirlocBinary.environment(home: home.url, extra: ["AIRLOC_CONFIG": file.path]))
        #expect(checks["sensor office"]?["status"] as? String == "ok", "\(checks)")
        let office = checks["sensor office"]?["detail"] as? String ?? ""
        #expect(office.contains("CO₂ 700 ppm"), "\(checks)")
        #expect(checks["sensor kitchen"]?["status"] as? String == "fail", "\(checks)")

        // An MH-Z19 on a line noisy for a while (its answers damaged for longer than one
        // quick look's timeout) is asked again, and passes.
        let kitchen = try await SensorDouble.start("mh-z19", fault: "corrupt-first=12", co2: 640)
        defer { kitchen.stop() }
        try (config.replacingOccurrences(of: home.file("ttyUSB9").path, with: kitchen.device)).write(
            to: file, atomically: true, encoding: .utf8)
        let again = try await ServeEndToEndTests.doctorChecks(
            AirlocBinary.environment(home: home.url, extra: ["AIRLOC_CONFIG": file.path]))
        #expect(again["sensor kitchen"]?["status"] as? String == "ok", "asked again after damaged answers: \(again)")
        let detail = again["sensor kitchen"]?["detail"] as? String ?? ""
        #expect(detail.contains("CO₂ 640 ppm"), "\(again)")
        #expect(kitchen.log.components(separatedBy: "CMD read").count - 1 > 12, "\(kitchen.log)")
        // A working MH-Z19 passes every time: three looks in a row, three passes.
        for look in 1...3 {
            let checks = try await ServeEndToEndTests.doctorChecks(
                AirlocBinary.environment(home: home.url, extra: ["AIRLOC_CONFIG": file.path]))
            #expect(checks["sensor kitchen"]?["status"] as? String == "ok", "look \(look): \(checks)")
        }

        // An explicit IIO device whose driver is another sensor than the section's model.
        let room = try NowClimateEndToEndTests.bme280(home)
        for (bad, said) in [
            (
                "[sensor.x]\nmodel = scd4x\niio = \(room)\n",
                "[sensor.x]: \(room) is a bme280 (its name file), not the scd4x"
            ),
            ("[sensor.x]\nmodel = bme280\ndevice = /dev/ttyUSB0\n", "is read through the kernel: set iio"),
            ("[sensor.x]\nmodel = mh-z19\n", "needs one of device for model = mh-z19"),
            ("[sensor.x]\nmodel = co2meter\n", "invalid value 'co2meter' for model in [sensor.x]"),
            ("[sensor.sensor]\nmodel = mh-z19\n", "not 'sensor'"),
            ("[sensor.x]\nmodle = mh-z19\n", "did you mean 'model'?"),
        ] {
            let refused = try await Self.run(bad, in: home, ["sense"])
            #expect(refused.status == 78 && refused.stderr.contains(said), "\(bad): \(refused)")
        }
    }
}
