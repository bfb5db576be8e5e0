import Airloc
import FleetWire
import Foundation
import Geo
import Logbook
import MQTT
import Platform
import Settings
import Synchronization
import TestSupport
import Testing

@testable import Fleet

/// The publisher's loop in-process: the logger's logbook, a broker of the test's own, a
/// clock that moves only when the test says. It publishes when a row is written, not on
/// a timer; it drains at the stop; it gives up on a silent broker after its patience.
@Suite struct FleetPublisherTimingTests {
    struct Rig {
        let directory: TemporaryDirectory
        let writer: Logbook
        let broker = InProcessBroker()
        let time = ManualTime(sleepers: .waitForAdvance)
        let context: ServiceContext
        let run: Task<ServiceFailure?, Never>
        /// What the publisher said (its notices' messages).
        let said = Said()

        final class Said: Sendable {
            let lines = Mutex<[String]>([])
        }

        init(collector: Bool = false) throws {
            directory = try TemporaryDirectory()
            let writer = try Logbook(url: directory.file("logbook.sqlite"), outbox: true, collector: collector)
            self.writer = writer
            var settings = Settings(directories: XDGDirectories(environment: ["HOME": directory.url.path]))
            settings.mqtt.broker.url = "mqtt://broker.test"
            settings.mqtt.discovery = false
            settings.mqtt.position = .exact
            let outbox = try Logbook(url: writer.url, outbox: true, collector: collector)
            var publisher = FleetPublisher(
                logbook: outbox, client: broker, settings: settings, deviceID: "pi", changes: writer.changes)
            if collector {
                publisher.collector = CollectorLink(
                    logbook: outbox, prefix: publisher.prefix, deviceID: "pi", ackTimeout: .seconds(120))
            }
            let said = self.said
            let context = ServiceContext(name: .publisher, time: time) { notice in
                said.lines.withLock { $0.append(notice.message) }
            }
            self.context = context
            let running = publisher
            run = running.start(context)
        }

        /// A track point written by "the logger".
        func write(_ seconds: Double) throws {
            let segment = try writer.startSegment(
                at: Date(timeIntervalSince1970: 1_795_000_000), bootID: nil, reason: "start")
            try writer.append(
                TrackPoint(
                    time: Date(timeIntervalSince1970: 1_795_000_000 + seconds),
                    fix: Fix(coordinate: Coordinate(uncheckedLatitude: 52.52, longitude: 13.405), source: .gps),
                    provider: "gpsd", segment: segment))
        }

        /// The ids published on the history topic, in order (repeats included).
        var history: [String] {
            broker.published.filter { $0.topic == "airloc/pi/history" }.compactMap { message in
                (try? JSONSerialization.jsonObject(with: Data(message.payload.utf8)) as? [String: Any])?["id"]
                    as? String
            }
        }

        /// The collector's acknowledgement of track rows through `through`, of this
        /// logbook's incarnation unless another is named.
        func ack(_ through: Int, of incarnation: String? = nil) -> String {
            #"{"schema":"airloc.ack/1","time":"2026-12-01T10:00:00Z","through":{"track":\#(through)},"revised":{},"incarnation":"\#(incarnation ?? writer.incarnation)"}"#
        }

        /// Connected, t1-t4 written and published.
        func publishedFour() async throws {
            broker.autoAcknowledge = true
            try await connected()
            for second in 0..<4 { try write(Double(second)) }
            try await Poll.until("t1-t4 published") { Set(history) == ["t1", "t2", "t3", "t4"] }
        }

        func connected() async throws {
            broker.connect()
            try await Poll.until("greeted") { broker.published.contains { $0.topic == "airloc/pi/status" } }
        }
    }

    @Test func aRowIsPublishedWhenItIsWrittenAndNothingWaitsOnTheClock() async throws {
        let rig = try Rig()
        defer { rig.directory.remove() }
        try await rig.connected()
        try rig.write(0)
        try await Poll.until("t1 published") { rig.history == ["t1"] }
        #expect(rig.time.sleepers == 0, "no timer of its own: it waits for the next row or event")
        rig.broker.acknowledgeAll()
        try await Poll.until("t1 marked sent") { (try? rig.writer.unsentCount()) == 0 }
        try rig.write(5)
        try await Poll.until("t2 published") { rig.history == ["t1", "t2"] }
        rig.context.requestStop()
        rig.broker.acknowledgeAll()
        #expect(await rig.run.value == nil)
    }

    @Test func aReconnectPublishesAgainWhatWasNotAcknowledged() async throws {
        let rig = try Rig()
        defer { rig.directory.remove() }
        try await rig.connected()
        try rig.write(0)
        try rig.write(5)
        try await Poll.until("both published") { rig.history == ["t1", "t2"] }
        rig.broker.drop()
        rig.broker.connect()
        try await Poll.until("both again") { rig.history == ["t1", "t2", "t1", "t2"] }
        rig.broker.acknowledgeAll()
        try await Poll.until("both sent") { (try? rig.writer.unsentCount()) == 0 }
        rig.context.requestStop()
        #expect(await rig.run.value == nil)
    }

    @Test func theStopWaitsForWhatIsInFlight() async throws {
        let rig = try Rig()
        defer { rig.directory.remove() }
        try await rig.connected()
        for second in [0.0, 5, 10] { try rig.write(second) }
        try await Poll.until("three published") { rig.history.count == 3 }
        rig.context.requestStop()
        // The stop handled: its patience timer runs, and the publisher waits for the broker.
        await rig.time.waitForSleepers(1)
        rig.broker.acknowledgeAll()
        #expect(await rig.run.value == nil)
        #expect(try rig.writer.unsentCount() == 0, "drained before it ended")
    }

    @Test func aSilentBrokerIsGivenUpAfterFiveSecondsAndTheRowsWait() async throws {
        let rig = try Rig()
        defer { rig.directory.remove() }
        try await rig.connected()
        try rig.write(0)
        try await Poll.until("t1 published") { rig.history == ["t1"] }
        rig.context.requestStop()
        await rig.time.waitForSleepers(1)
        #expect(rig.time.nextWake == .seconds(5))
        rig.time.advance(by: .seconds(5))
        #expect(await rig.run.value == nil)
        #expect(try rig.writer.unsentCount() == 1, "the row waits in the logbook for the next run")
    }

    @Test func refusedCredentialsEndItAsAConfigurationMatter() async throws {
        let rig = try Rig()
        defer { rig.directory.remove() }
        rig.broker.fail(.refused(reason: "not authorised", credentials: true))
        let failure = await rig.run.value
        #expect(failure?.kind == .configuration && failure?.message.contains("not authorised") == true)
    }

    /// mosquitto acknowledges a publish its ACL drops: the probe the publisher sends on its
    /// own subtree at the first connection must come back. One that did not, 10 s later, is
    /// said once, with the next event (no timer of its own); one that came back is not.
    @Test func aProbeTheBrokerDropsIsSaidOnceAndOneThatComesBackIsNot() async throws {
        for echoed in [false, true] {
            let rig = try Rig()
            defer { rig.directory.remove() }
            rig.broker.autoAcknowledge = true
            try await rig.connected()
            let probe = try #require(rig.broker.published.first { $0.topic == "airloc/pi/probe" })
            #expect(!probe.retain)
            if echoed { rig.broker.deliver(probe.topic, probe.payload) }
            try rig.write(0)
            try await Poll.until("t1 published") { rig.history == ["t1"] }
            rig.time.advance(by: .seconds(10))
            try rig.write(5)
            try await Poll.until("t2 published") { rig.history == ["t1", "t2"] }
            try rig.write(10)
            try await Poll.until("t3 published") { rig.history == ["t1", "t2", "t3"] }
            let warnings = rig.said.lines.withLock { $0 }.filter { $0.contains("dropped a probe") }
            #expect(warnings.count == (echoed ? 0 : 1), "echoed \(echoed): \(warnings)")
            rig.context.requestStop()
            #expect(await rig.run.value == nil)
        }
    }

    @Test func aCollectorsSilencePublishesAgainAfterTheAckTimeout() async throws {
        let rig = try Rig(collector: true)
        defer { rig.directory.remove() }
        try await rig.connected()
        try rig.write(0)
        try await Poll.until("t1 published") { rig.history == ["t1"] }
        rig.broker.acknowledgeAll()
        try await Poll.until("t1 sent") { (try? rig.writer.unsentCount()) == 0 }
        // The broker has it; the collector never said it stored it: after 20 s the hello
        // again (it names t1, held: a collector that never saw t1 learns of it), and after
        // 120 s t1 goes again.
        let hellos: @Sendable () -> [CollectorMessages.Hello] = {
            rig.broker.published.filter { $0.topic.hasSuffix("/hello") }.compactMap {
                CollectorMessages.Hello(json: $0.payload)
            }
        }
        #expect(hellos().count == 1)
        await rig.time.waitForSleepers(1)
        #expect(rig.time.nextWake == .seconds(20))
        rig.time.advance(by: .seconds(20))
        try await Poll.until("the hello again") { hellos().count == 2 }
        #expect(hellos().last?.last[.track] == 1, "\(hellos())")
        #expect(rig.history == ["t1"], "the hello, not the row")
        await rig.time.waitForSleepers(1)
        #expect(rig.time.nextWake == .seconds(100))
        rig.time.advance(by: .seconds(100))
        try await Poll.until("t1 again") { rig.history == ["t1", "t1"] }
        rig.context.requestStop()
        rig.broker.acknowledgeAll()
        // The collector never answers: the stop waits its 3 s for it, then ends; t1 waits
        // in the logbook, unstored, for the next run.
        try await Poll.until("the broker's acks taken, the collector's 3 s running") {
            (try? rig.writer.unsentCount()) == 0 && rig.time.nextWake == .seconds(3)
        }
        rig.time.advance(by: .seconds(3))
        #expect(await rig.run.value == nil)
        #expect(try rig.writer.unstoredCount() == 1)
    }

    /// Rows stored above a gap count as stored at once (`log status` is about the gap
    /// alone), but they are no progress on the gap: 120 s after `through` last moved the
    /// device sends the gap again, and only it, however many rows above it were stored since.
    @Test func rowsStoredAboveAGapAreStoredAndTheGapAloneGoesAgain() async throws {
        let rig = try Rig(collector: true)
        defer { rig.directory.remove() }
        rig.broker.autoAcknowledge = true
        try await rig.connected()
        for second in 0..<5 { try rig.write(Double(second)) }
        try await Poll.until("t1-t5 published and sent") {
            rig.history.count == 5 && (try? rig.writer.unsentCount()) == 0
        }
        func ack(through: Int, stored: String) -> String {
            #"{"schema":"airloc.ack/1","time":"2026-12-01T10:00:00Z","through":{"track":\#(through)},"revised":{},"stored":{"track":\#(stored)},"incarnation":"\#(rig.writer.incarnation)"}"#
        }
        rig.broker.deliver("airloc/pi/ack", ack(through: 1, stored: "[[3,3]]"))
        try await Poll.until("t1 and t3 stored") { (try? rig.writer.unstoredCount()) == 3 }
        await rig.time.waitForSleepers(1)
        rig.time.advance(by: .seconds(60))
        // More rows stored above the gap: stored here, but the gap's wait goes on.
        rig.broker.deliver("airloc/pi/ack", ack(through: 1, stored: "[[3,5]]"))
        try await Poll.until("t4 and t5 stored") { (try? rig.writer.unstoredCount()) == 1 }
        await rig.time.waitForSleepers(1)
        rig.time.advance(by: .seconds(60))
        try await Poll.until("t2 again, 120 s after through last moved") { rig.history.count == 6 }
        #expect(rig.history.last == "t2", "\(rig.history)")
        rig.context.requestStop()
        rig.broker.deliver("airloc/pi/ack", ack(through: 5, stored: "[]"))
        #expect(await rig.run.value == nil)
        #expect(try rig.writer.unstoredCount() == 0)
    }

    /// The logger stops right after publishing: it waits for the collector's ack of what it
    /// sent, so that `log status` says every row is stored when it is.
    @Test func theStopWaitsForTheCollectorsAckOfTheLastRows() async throws {
        let rig = try Rig(collector: true)
        defer { rig.directory.remove() }
        rig.broker.autoAcknowledge = true
        try await rig.connected()
        for second in 0..<3 { try rig.write(Double(second)) }
        try await Poll.until("t1-t3 published and sent") {
            rig.history.count == 3 && (try? rig.writer.unsentCount()) == 0
        }
        rig.context.requestStop()
        await rig.time.waitForSleepers(2)
        let ack =
            #"{"schema":"airloc.ack/1","time":"2026-12-01T10:00:00Z","through":{"track":3},"revised":{},"incarnation":"\#(rig.writer.incarnation)"}"#
        rig.broker.deliver("airloc/pi/ack", ack)
        #expect(await rig.run.value == nil)
        #expect(try rig.writer.unstoredCount() == 0, "the ack that came after the stop was taken before it ended")
    }

    /// One acknowledgement saying the store holds nothing (forged by any account on an open
    /// broker, or an old one the broker delivers again after a reconnect) made the logger
    /// publish its whole logbook again, with a false "restored?" warning, at the forger's
    /// rate. Now it asks the collector with its hello; the collector's next ack says all is
    /// stored, and nothing goes out again. Two forged in a row send the rows once, and no
    /// more within ack-timeout.
    @Test func aForgedAcknowledgementSendsNothingAgainUnlessSaidTwiceAndThenOnce() async throws {
        let rig = try Rig(collector: true)
        defer { rig.directory.remove() }
        try await rig.publishedFour()
        let ack = { (through: Int) in rig.ack(through) }
        rig.broker.deliver("airloc/pi/ack", ack(4))
        try await Poll.until("stored") { (try? rig.writer.unstoredCount()) == 0 }
        let published = rig.history.count
        let hellos = rig.broker.published.filter { $0.topic == "airloc/pi/hello" }.count
        rig.broker.deliver("airloc/pi/ack", ack(0))
        try await Poll.until("the hello asking the collector") {
            rig.broker.published.filter { $0.topic == "airloc/pi/hello" }.count == hellos + 1
        }
        rig.broker.deliver("airloc/pi/ack", ack(4))  // the collector's answer
        try rig.write(4)
        try await Poll.until("t5 published") { rig.history.contains("t5") }
        rig.broker.deliver("airloc/pi/ack", ack(5))
        try await Poll.until("t5 stored") { (try? rig.writer.unstoredCount()) == 0 }
        #expect(rig.history.count == published + 1, "only t5: \(rig.history)")
        #expect(!rig.said.lines.withLock { $0 }.contains { $0.contains("holds fewer rows") })

        // Said twice: the rows go out once; said twice more at once, nothing more.
        rig.broker.deliver("airloc/pi/ack", ack(0))
        rig.broker.deliver("airloc/pi/ack", ack(0))
        try await Poll.until("t1-t5 again") { rig.history.count == published + 6 }
        rig.broker.deliver("airloc/pi/ack", ack(0))
        rig.broker.deliver("airloc/pi/ack", ack(0))
        rig.broker.deliver("airloc/pi/ack", ack(5))
        try await Poll.until("stored again") { (try? rig.writer.unstoredCount()) == 0 }
        #expect(rig.history.count == published + 6, "one resend within ack-timeout: \(rig.history)")
        rig.context.requestStop()
        #expect(await rig.run.value == nil)
    }

    /// The collector's database was restored from a backup: its next acknowledgement says
    /// less than the last one. The rows it forgot go out again once, the hello tells the
    /// collector what it had acknowledged, and the same replay asked twice at once is done once.
    @Test func aStoreThatForgotRowsGetsThemOnceMore() async throws {
        let rig = try Rig(collector: true)
        defer { rig.directory.remove() }
        try await rig.publishedFour()
        let incarnation = rig.writer.incarnation
        func ack(_ through: Int, of other: String? = nil) -> String { rig.ack(through, of: other) }
        // An acknowledgement of another logbook's incarnation (retained by the broker from
        // before this logbook was made again) covers nothing here.
        rig.broker.deliver("airloc/pi/ack", ack(4, of: "0123456789ab"))
        let t1 = #"{"schema":"airloc.replay/1","kind":"track","from":1,"until":1,"incarnation":"\#(incarnation)"}"#
        rig.broker.deliver("airloc/pi/replay", t1)
        try await Poll.until("t1 replayed: the other incarnation's ack stored nothing") {
            rig.history.filter { $0 == "t1" }.count == 2
        }
        rig.broker.deliver("airloc/pi/ack", ack(4))
        try await Poll.until("stored") { (try? rig.writer.unstoredCount()) == 0 }
        let published = rig.history.count
        let hellos = rig.broker.published.filter { $0.topic == "airloc/pi/hello" }.count
        rig.broker.deliver("airloc/pi/ack", ack(1))
        // The claim alone sends nothing again: the hello tells the collector what it had
        // acknowledged, and its answer says it again.
        try await Poll.until("the hello with what was acknowledged") {
            rig.broker.published.filter { $0.topic == "airloc/pi/hello" }.count == hellos + 1
        }
        let hello = rig.broker.published.last { $0.topic == "airloc/pi/hello" }
        #expect(hello?.payload.contains(#""acked":{"track":4}"#) == true, "\(String(describing: hello))")
        #expect(rig.history.count == published)
        rig.broker.deliver("airloc/pi/ack", ack(1))
        try await Poll.until("t2-t4 again") { Array(rig.history.dropFirst(published)).sorted() == ["t2", "t3", "t4"] }
        #expect(try rig.writer.unstoredCount() == 3)
        // The same gap asked for twice in a row: replayed once.
        let replay = #"{"schema":"airloc.replay/1","kind":"track","from":2,"until":3,"incarnation":"\#(incarnation)"}"#
        let before = rig.history.count
        rig.broker.deliver("airloc/pi/replay", replay)
        try await Poll.until("t2-t3 replayed") { rig.history.count == before + 2 }
        rig.broker.deliver("airloc/pi/replay", replay)
        rig.broker.deliver("airloc/pi/ack", ack(4))
        try await Poll.until("stored again") { (try? rig.writer.unstoredCount()) == 0 }
        #expect(rig.history.count == before + 2, "the second request within a minute changed nothing")
        rig.context.requestStop()
        #expect(await rig.run.value == nil)
    }
}
