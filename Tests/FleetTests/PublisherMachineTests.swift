import Foundation
import Geo
import Logbook
import MQTT
import Platform
import TestSupport
import Testing

@testable import Fleet

/// The publisher's decisions, in-process on a manual clock: what goes out when, what an
/// acknowledgement settles, what is said once, and when the stop's drain ends.
@Suite struct PublisherMachineTests {
    static let hour = OutboundPrivacyTests.hour
    static let prefix = "airloc/dev1"

    static func machine(limit: Int = 3, collector: Bool = false) -> PublisherMachine {
        PublisherMachine(
            prefix: prefix, inFlightLimit: limit, discoveryStatusTopic: "homeassistant/status",
            live: LiveTopics(prefix: prefix, position: .exact, grid: 0.01, intervals: (60, [:])),
            patience: (.seconds(5), collector ? .seconds(3) : nil, .seconds(10)))
    }

    static func carried(_ key: String, _ revision: Int64 = 1) -> PublisherMachine.Carried {
        PublisherMachine.Carried(key: key, revision: revision)
    }

    @Test func nothingGoesOutBeforeTheConnectionAndAFullWindowAfterIt() {
        var machine = Self.machine()
        #expect(machine.rowsChanged().isEmpty, "not connected: the rows wait in the logbook")
        let actions = machine.connected(probePayload: "p1", at: .now)
        #expect(
            actions == [
                .greet(retained: [], probe: "p1"),
                .say(.info("connected to the broker; publishing to \(Self.prefix)", from: .mqtt)),
                .fill(room: 3, excluding: [:]),
            ])
        _ = machine.published(Self.carried("track:1"), as: 1, row: OutboundPrivacyTests.point, now: Self.hour)
        #expect(machine.rowsChanged() == [.fill(room: 2, excluding: ["track:1": 1])])
        _ = machine.published(Self.carried("track:2"), as: 2, row: OutboundPrivacyTests.point, now: Self.hour)
        _ = machine.published(Self.carried("track:3"), as: 3, row: OutboundPrivacyTests.point, now: Self.hour)
        #expect(machine.rowsChanged().isEmpty, "three in flight: the window is full")
    }

    @Test func anAcknowledgementMarksSentOnlyTheRevisionItCarried() {
        var machine = Self.machine()
        _ = machine.connected(probePayload: "p1", at: .now)
        _ = machine.published(Self.carried("air:7", 1), as: 10, row: OutboundPrivacyTests.reading, now: Self.hour)
        // The row changed (back-filled) and went out again before the broker acknowledged.
        _ = machine.published(Self.carried("air:7", 2), as: 11, row: OutboundPrivacyTests.reading, now: Self.hour)
        #expect(
            machine.acknowledged(10) == [.fill(room: 2, excluding: ["air:7": 2])], "the old revision settles nothing")
        #expect(machine.acknowledged(11) == [.markSent(Self.carried("air:7", 2)), .fill(room: 3, excluding: [:])])
        #expect(machine.acknowledged == 1, "one row acknowledged: the old revision counted nothing")
    }

    @Test func aNewConnectionPublishesAgainWhatWasInFlightAndProbesOnce() {
        var machine = Self.machine()
        _ = machine.connected(probePayload: "p1", at: .now)
        machine.probeSent("p1", at: ManualTime().now)
        _ = machine.published(Self.carried("track:1"), as: 1, row: OutboundPrivacyTests.point, now: Self.hour)
        #expect(machine.disconnected(.lost(place: "b:1883"), at: .now).count == 1)
        #expect(machine.rowsChanged().isEmpty)
        let again = machine.connected(probePayload: "p2", at: .now)
        guard case .greet(let retained, let probe) = again.first else {
            Issue.record("no greeting: \(again)")
            return
        }
        #expect(probe == nil, "one probe a run")
        #expect(retained.map(\.topic) == ["\(Self.prefix)/position"], "the position shown is published again")
        #expect(again.last == .fill(room: 3, excluding: [:]), "what was in flight goes out again")
    }

    /// A broker that drops the device at every connection (another client taking its id)
    /// made two lines a second; four a minute are said, and the next names the rest.
    @Test func aConnectionDroppedAgainAndAgainIsSaidFourTimesAMinute() {
        let time = ManualTime()
        var machine = Self.machine()
        func lines(_ actions: [PublisherMachine.Action]) -> [String] {
            actions.compactMap { if case .say(let notice) = $0 { notice.message } else { nil } }
        }
        var said: [String] = []
        for _ in 0..<30 {
            said += lines(machine.connected(probePayload: "p", at: time.now))
            time.advance(by: .seconds(1))
            said += lines(machine.disconnected(.lost(place: "b:1883"), at: time.now))
        }
        #expect(said.count == 4, "\(said)")
        time.advance(by: .seconds(30))
        let next = lines(machine.connected(probePayload: "p", at: time.now))
        #expect(next.count == 1 && next[0].hasSuffix("(56 such lines left out in the last minute)"), "\(next)")
    }

    @Test func aTroubleIsSaidOnceUntilItChangesOrTheConnectionIsBack() {
        var machine = Self.machine()
        let unreachable = MQTTProblem.unreachable(place: "b:1883", cause: "refused")
        #expect(machine.failed(unreachable, at: .now).count == 1)
        #expect(machine.failed(unreachable, at: .now).isEmpty, "the same trouble again: said once")
        #expect(machine.failed(.lost(place: "b:1883"), at: .now).count == 1, "another trouble is said")
        _ = machine.connected(probePayload: "p", at: .now)
        #expect(machine.disconnected(.lost(place: "b:1883"), at: .now).count == 1, "back and lost again: said again")
        #expect(machine.disconnected(nil, at: .now).isEmpty)
        let refused = machine.failed(.refused(reason: "not authorised", credentials: true), at: .now)
        guard case .fail(let failure)? = refused.first else {
            Issue.record("refused credentials must end the service: \(refused)")
            return
        }
        #expect(failure.kind == .configuration)
    }

    @Test func aProbeNotBackInItsPatienceIsSaidOnce() {
        let time = ManualTime()
        var machine = Self.machine()
        _ = machine.connected(probePayload: "p1", at: .now)
        machine.probeSent("p1", at: time.now)
        time.advance(by: .milliseconds(9_999))
        #expect(machine.looked(at: time.now).isEmpty)
        time.advance(by: .milliseconds(1))
        let said = machine.looked(at: time.now)
        #expect(said.count == 1 && "\(said)".contains("dropped a probe"))
        time.advance(by: .seconds(60))
        #expect(machine.looked(at: time.now).isEmpty, "said once")

        var echoed = Self.machine()
        _ = echoed.connected(probePayload: "p1", at: .now)
        echoed.probeSent("p1", at: time.now)
        #expect(echoed.received(topic: "\(Self.prefix)/probe", payload: "someone else's", at: time.now).isEmpty)
        _ = echoed.received(topic: "\(Self.prefix)/probe", payload: "p1", at: time.now)
        time.advance(by: .seconds(60))
        #expect(echoed.looked(at: time.now).isEmpty, "the probe came back: the broker delivers this account's rows")
    }

    /// Home Assistant back online gets the configs again, once a minute at most: 100
    /// "online" from anyone who may write the topic made every logger send them 100 times.
    @Test func homeAssistantBackOnlineGetsTheDiscoveryAgainOnceAMinute() {
        let time = ManualTime()
        var machine = Self.machine()
        #expect(machine.received(topic: "homeassistant/status", payload: "online", at: time.now) == [.publishDiscovery])
        #expect(machine.received(topic: "homeassistant/status", payload: "offline", at: time.now).isEmpty)
        let again = (0..<100).flatMap { _ in
            machine.received(topic: "homeassistant/status", payload: "online", at: time.now)
        }
        #expect(again.isEmpty, "within the minute: \(again.count)")
        time.advance(by: .seconds(60))
        #expect(machine.received(topic: "homeassistant/status", payload: "online", at: time.now) == [.publishDiscovery])
    }

    @Test func theDrainEndsWhenNothingIsLeftOrAfterPatienceWithoutProgress() {
        var machine = Self.machine(collector: true)
        _ = machine.connected(probePayload: "p", at: .now)
        _ = machine.published(Self.carried("track:1"), as: 1, row: OutboundPrivacyTests.point, now: Self.hour)
        #expect(machine.drain == .running)
        #expect(
            machine.stop() == [
                .wake(after: .seconds(5), .patienceOver(progress: 0)),
                .wake(after: .seconds(3), .collectorPatienceOver),
            ])
        #expect(machine.drain == .running, "a row in flight")
        _ = machine.acknowledged(1)
        #expect(machine.drain == .whenEmpty(awaitingCollector: true))
        machine.collectorPatienceOver()
        #expect(machine.drain == .whenEmpty(awaitingCollector: false))
        #expect(machine.patienceOver(progress: 0) == [.wake(after: .seconds(5), .patienceOver(progress: 1))])
        #expect(machine.patienceOver(progress: 1) == [.finish], "no acknowledgement for 5 s: the rest waits")
        _ = machine.disconnected(.lost(place: "b:1883"), at: .now)
        #expect(machine.drain == .over)
    }

    @Test func homeAssistantShowsTheNewestLiveReadingAndAPositionOnce() {
        var live = LiveTopics(prefix: Self.prefix, position: .coarse, grid: 0.01, intervals: (60, [:]))
        let now = Self.hour.addingTimeInterval(600)
        #expect(live.published(OutboundPrivacyTests.reading, now: now)?.topic == "\(Self.prefix)/state")
        #expect(live.published(OutboundPrivacyTests.point, now: Self.hour.addingTimeInterval(60)) != nil)
        #expect(live.published(OutboundPrivacyTests.point, now: Self.hour.addingTimeInterval(61)) == nil, "unchanged")
        #expect(
            live.published(OutboundPrivacyTests.point, now: Self.hour.addingTimeInterval(600)) == nil,
            "a point older than two minutes is history, not where the device is")
        let position = live.retained.last?.payload ?? ""
        #expect(position.contains("52.52") && !position.contains("52.523"), "coarse: on the grid")
        guard case .air(var older) = OutboundPrivacyTests.reading else { return }
        older.hour = Self.hour.addingTimeInterval(-3600)
        #expect(live.published(.air(older), now: now) == nil, "an older reading published later is not shown")
        #expect(live.published(OutboundPrivacyTests.reading, now: Self.hour.addingTimeInterval(7200)) == nil)
    }
}
