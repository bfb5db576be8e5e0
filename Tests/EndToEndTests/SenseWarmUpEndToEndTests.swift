import Foundation
import TestSupport
import Testing

/// `sense` on a terminal says how long the warm-up has left, in place, and clears the line
/// when the reading is done; into a pipe it says nothing of it.
@Suite(.enabled(if: ExternalTool.available("python3", "script")))
struct SenseWarmUpEndToEndTests {
    @Test func aTerminalSeesTheWarmUpLeftAndAPipeDoesNot() async throws {
        let co2 = try await SensorDouble.start("mh-z19", co2: 640)
        defer { co2.stop() }
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let file = home.file("airloc.conf")
        try "[sensor.co2]\nmodel = mh-z19\ndevice = \(co2.device)\nwarm-up-seconds = 3\nsample-seconds = 1\n".write(
            to: file, atomically: true, encoding: .utf8)
        let environment = AirlocBinary.environment(home: home.url, extra: ["AIRLOC_CONFIG": file.path])
        let piped = try await AirlocBinary.run(["sense"], environment: environment)
        #expect(piped.status == 0 && piped.stdout.contains("640 ppm"), "\(piped)")
        #expect(!piped.stderr.contains("warming up"), "nothing of it into a pipe: \(piped.stderr)")
        // script(1) runs it on a pseudo-terminal: stdout and stderr both on it.
        let script = try #require(ExternalTool.path(of: "script"))
        let terminal = try await ChildProcess.run(
            script, ["-qec", "'\(AirlocBinary.path)' sense", "/dev/null"], environment: environment)
        #expect(terminal.status == 0, "\(terminal)")
        #expect(terminal.stdout.contains("MH-Z19 warming up: 0:03 left"), "\(terminal.stdout)")
        #expect(terminal.stdout.contains("\u{1B}[K"), "the line is rewritten in place and cleared")
        #expect(terminal.stdout.contains("CO₂") && terminal.stdout.contains("640"), "the reading follows")
    }
}
