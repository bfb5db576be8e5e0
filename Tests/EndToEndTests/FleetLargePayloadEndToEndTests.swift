import Foundation
import TestSupport
import Testing

/// A payload over 64 KiB on a device's own topics (anyone may retain one on an open
/// broker: a 64 MiB one took a logger from 26 MB to 223 MB, again at every reconnection)
/// is refused before it is copied or decoded, and said once; the device goes on reading
/// its collector's messages.
@Suite(.enabled(if: ExternalTool.available("gpsfake", "python3", "mosquitto_pub", "mosquitto_sub")))
struct FleetLargePayloadEndToEndTests {
    typealias Stored = CollectorEndToEndTests
    typealias Input = CollectorInputEndToEndTests

    @Test func aPayloadOver64KiBIsRefusedAndTheNextMessageIsRead() async throws {
        let broker = try await MosquittoBroker.start()
        let world = try await AirlocWorld(config: Stored.config(broker))
        defer { world.stop() }
        let logger = try ChildProcess(AirlocBinary.path, ["log", "run"], environment: world.environment)
        defer { logger.stop() }
        // Published (a replay makes sent rows unsent again: rows not sent yet would not
        // count, and the line this test waits for would not come).
        try await FleetEndToEndTests.waitForStatus(world, "rows published, none stored", logger: logger) {
            ($0["track_rows"] as? Int ?? 0) >= 3 && ($0["unsent"] as? Int) == 0
        }
        let prefix = "airloc/\(try Stored.deviceID(world))"
        let incarnation = try await Self.incarnation(broker, prefix)
        func replay(from: Int) -> String {
            #"{"schema":"airloc.replay/1","kind":"track","from":\#(from),"incarnation":"\#(incarnation)"}"#
        }
        // 32 MiB: libmosquitto reads it whole and copies it once (it has no limit of its own
        // for a client: only the broker's max_packet_size keeps it away); airloc copied it
        // again into a string before judging it, and peaked at three times it.
        let before = try FleetMapEndToEndTests.memory(logger.pid, "VmHWM")
        let large = 32 << 20
        try await Input.publish(broker, "\(prefix)/replay", String(repeating: " ", count: large))
        try await Input.publish(broker, "\(prefix)/replay", replay(from: 2))
        do {
            try await Poll.until("the small request followed") {
                logger.errors.contains("asked for track rows from 2") || !logger.isRunning
            }
        } catch {
            throw FixtureError("\(error)\n--- logger\n\(logger.errors)\n--- broker\n\(broker.log.suffix(2000))")
        }
        #expect(logger.errors.contains("ignored a payload of \(large) bytes (at most 65536)"), "\(logger.errors)")
        let grown = try FleetMapEndToEndTests.memory(logger.pid, "VmHWM") - before
        #expect(grown < large * 5 / 2 / 1024, "the logger's peak grew by \(grown) kB for a \(large / 1024) kB payload")
        logger.signal(SIGTERM)
        #expect(try await logger.wait().status == 0)
        try await broker.stop()
    }

    /// The device's logbook incarnation, as its retained hello says it.
    static func incarnation(_ broker: MosquittoBroker, _ prefix: String) async throws -> String {
        let sub = try #require(ExternalTool.path(of: "mosquitto_sub"))
        let hello = try await ChildProcess.run(
            sub, ["-h", "127.0.0.1", "-p", "\(broker.port)", "-t", "\(prefix)/hello", "-C", "1", "-W", "60"],
            environment: ProcessInfo.processInfo.environment)
        let object = try JSONSerialization.jsonObject(with: Data(hello.stdout.utf8)) as? [String: Any]
        return try #require(object?["incarnation"] as? String, "\(hello)")
    }
}
