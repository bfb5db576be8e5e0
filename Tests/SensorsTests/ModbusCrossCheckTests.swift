import Foundation
import TestSupport
import Testing

@testable import Sensors

/// The Modbus sensors against pymodbus (PyPI), an RTU implementation that owes nothing to
/// airloc's: the requests airloc sends are byte for byte the ones pymodbus builds, and what
/// the SenseAir S8 and SCD30 doubles answer is what pymodbus's framer decodes, CRC and all
/// (scripts/modbus-crosscheck.py). Under `CI=true` a missing pymodbus is a failure.
@Suite(.enabled(if: Pymodbus.available))
struct ModbusCrossCheckTests {
    static let pymodbus = Pymodbus.directory

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined(separator: " ") }

    @Test func airlocsFramesAndTheDoublesAnswersAreModbusAsPymodbusSpeaksIt() async throws {
        guard FileManager.default.fileExists(atPath: Self.pymodbus.appendingPathComponent(".complete").path) else {
            throw FixtureError("pymodbus is not installed in .build/pymodbus (make test installs it)")
        }
        let s8 = try await SensorDouble.start("senseair-s8", co2: 612, status: 0x20)
        let scd30 = try await SensorDouble.start("scd30", humidity: 41, co2: 1_234)
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONPATH"] = Self.pymodbus.path
        let run = try await ChildProcess.run(
            "/usr/bin/env",
            ["python3", PackagePaths.file("scripts/modbus-crosscheck.py").path, s8.device, scd30.device],
            environment: environment)
        #expect(run.status == 0, "\(run)")
        let document = (try? JSONSerialization.jsonObject(with: Data(run.stdout.utf8))) as? [String: Any] ?? [:]
        let frames = document["frames"] as? [String: String] ?? [:]
        #expect(frames["s8_co2"] == Self.hex(SenseAirS8Protocol.readCO2), "\(frames)")
        #expect(frames["s8_status"] == Self.hex(SenseAirS8Protocol.readStatus), "\(frames)")
        #expect(frames["scd30_start"] == Self.hex(SCD30Protocol.startContinuous()), "\(frames)")
        #expect(frames["scd30_ready"] == Self.hex(SCD30Protocol.dataReady), "\(frames)")
        #expect(frames["scd30_read"] == Self.hex(SCD30Protocol.readMeasurement), "\(frames)")
        let s8Seen = document["s8"] as? [String: Any] ?? [:]
        #expect(s8Seen["co2"] as? Int == 612 && s8Seen["status"] as? Int == 0x20, "\(document)")
        let scd30Seen = document["scd30"] as? [String: Any] ?? [:]
        #expect(scd30Seen["started"] as? Bool == true && scd30Seen["ready"] as? Int == 1, "\(document)")
        #expect(scd30Seen["values"] as? [Double] == [1_234, 21.5, 41], "\(document)")
        s8.stop()
        scd30.stop()
    }
}

/// Where `make test` installs pymodbus, and whether it is there (outside CI a missing one skips).
enum Pymodbus {
    static let directory = PackagePaths.file(".build/pymodbus")

    static var available: Bool {
        if ExternalTool.isCI { return true }
        let there = FileManager.default.fileExists(atPath: directory.appendingPathComponent(".complete").path)
        if !there { print("note: skipping the pymodbus cross-check (run `make test`, which installs it)") }
        return there && ExternalTool.path(of: "python3") != nil
    }
}
