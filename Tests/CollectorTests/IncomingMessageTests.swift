import FleetWire
import Foundation
import MQTT
import Platform
import Settings
import Testing

@testable import Collector

/// Each message judged alone, before anything of it is kept: what once halted the whole
/// fleet (a NUL in a retained status, a hello's software, a device id of 3,000 characters)
/// is refused with a reason of its own, and the text a refusal quotes is one line.
@Suite struct IncomingMessageTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)
    static let row = #"{"schema":"airloc.log/1","id":"t1","kind":"track","time":"2026-11-18T10:00:00Z"}"#

    static func judge(
        _ topic: String, _ payload: String, settings: CollectSettings = CollectSettings(),
        registered: Set<String> = []
    ) -> IncomingMessage {
        IncomingMessage.judge(topic: topic, payload: payload, settings: settings, registered: registered, now: now)
    }

    /// The label a refusal is counted under, and its reason; nil when accepted or ignored.
    static func refusal(_ message: IncomingMessage) -> (label: String, reason: String, device: String?)? {
        if case .refused(let device, let reason, let label) = message { return (label.rawValue, reason, device) }
        return nil
    }

    @Test func aDeviceNameIsLettersDigitsDashAndUnderscoreUpTo64() {
        for good in ["pi-4", "Büro_2", "a", String(repeating: "x", count: 64), "测试"] {
            #expect(DeviceIdentity.isValidName(good), "\(good)")
        }
        for bad in [
            "", String(repeating: "x", count: 65), "evil\u{202E}gpj", "a b", "a\u{0}b", "a\nb", "a.b", "a/b", "a+b",
            "\u{200F}x",
        ] {
            #expect(!DeviceIdentity.isValidName(bad), "\(bad.debugDescription)")
        }
    }

    @Test func whatOnceHaltedTheFleetIsRefusedWithAReasonOfItsOwn() throws {
        #expect(Self.refusal(Self.judge("airloc/pi-4/status", "\u{0}"))?.label == "bad_status")
        #expect(Self.refusal(Self.judge("airloc/pi-4/status", "online\nnow"))?.label == "bad_status")
        #expect(
            Self.refusal(Self.judge("airloc/pi-4/status", String(repeating: "o", count: 41)))?.label == "bad_status")
        let hello = #"{"schema":"airloc.hello/1","device":"pi-5","software":"x\u0000y","first":{}}"#
        #expect(Self.refusal(Self.judge("airloc/pi-5/hello", hello))?.label == "bad_hello")
        // A hello that does not decode is a bad one, not another device's (it was counted
        // as foreign_hello); one that names another device is foreign.
        #expect(Self.refusal(Self.judge("airloc/pi-5/hello", "{not json"))?.label == "bad_hello")
        let other = #"{"schema":"airloc.hello/1","device":"pi-6","software":"x","first":{}}"#
        #expect(Self.refusal(Self.judge("airloc/pi-5/hello", other))?.label == "foreign_hello")
        // Claims no logbook can make are refused and counted, not obeyed: ids past 2^40, a
        // first row to come past the newest held, rows acknowledged that were never held.
        for absurd in [
            #""first":{"track":999999999999999}"#, #""first":{"track":9},"last":{"track":7}"#,
            #""first":{"track":3},"acked":{"track":8},"last":{"track":7}"#,
        ] {
            let claim = #"{"schema":"airloc.hello/1","device":"pi-5","software":"x",\#(absurd)}"#
            #expect(Self.refusal(Self.judge("airloc/pi-5/hello", claim))?.label == "bad_hello", "\(absurd)")
        }
        let real =
            #"{"schema":"airloc.hello/1","device":"pi-5","software":"x","first":{"track":8},"acked":{"track":7},"last":{"track":7}}"#
        #expect(Self.refusal(Self.judge("airloc/pi-5/hello", real)) == nil, "all stored: first is the newest + 1")
        let long = try #require(Self.refusal(Self.judge("airloc/\(String(repeating: "d", count: 3000))/status", "on")))
        #expect(long.label == "bad_device" && long.device == nil)
        #expect(long.reason.count < 200, "the reason quotes the id cut short: \(long.reason)")
        #expect(Self.refusal(Self.judge("airloc/evil\u{202E}gpj/status", "online"))?.label == "bad_device")
        let nul = Self.row.replacingOccurrences(of: #""kind""#, with: #""place":"a\u0000b","kind""#)
        #expect(Self.refusal(Self.judge("airloc/pi/history", nul))?.label == "nul_character")
        let huge = Self.row.replacingOccurrences(of: #""kind""#, with: #""latitude":1e300,"kind""#)
        #expect(Self.refusal(Self.judge("airloc/pi/history", huge))?.label == "bad_value")
    }

    @Test func goodMessagesAreTakenAndOthersTopicsIgnored() {
        guard case .row(let sender, let row) = Self.judge("airloc/pi-4/history", Self.row) else {
            Issue.record("a row refused")
            return
        }
        #expect(sender.device == "pi-4" && sender.prefix == "airloc/pi-4" && row.id == "t1")
        guard case .status(_, let status) = Self.judge("airloc/pi-4/status", "online"), status == "online" else {
            Issue.record("a status refused")
            return
        }
        guard case .status(_, nil) = Self.judge("airloc/pi-4/status", "") else {
            Issue.record("an empty status (a retained one cleared) is no status")
            return
        }
        guard case .ignored = Self.judge("elsewhere/pi-4/history", Self.row) else {
            Issue.record("another prefix's topic is not the collector's")
            return
        }
    }

    /// A refusal's reason is one line whatever the payload held: a schema with a newline
    /// and a forged line after it is quoted with the newline escaped.
    @Test func aRefusalCannotForgeALogLine() throws {
        let forged = #"{"schema":"x'\nairloc: collect: connected to PostgreSQL","id":"t1","kind":"track"}"#
        let refused = try #require(Self.refusal(Self.judge("airloc/pi-8/history", forged)))
        #expect(refused.label == "unknown_schema")
        #expect(!refused.reason.contains("\n"), "\(refused.reason)")
        #expect(refused.reason.contains(#"'x'\nairloc: collect"#), "\(refused.reason)")
    }

    /// `[collect] devices = known`: only registered devices are taken.
    @Test func aClosedFleetTakesOnlyRegisteredDevices() {
        var settings = CollectSettings()
        settings.devices = .known
        #expect(
            Self.refusal(Self.judge("airloc/stranger/history", Self.row, settings: settings))?.label
                == "unknown_device")
        guard case .row = Self.judge("airloc/pi-4/history", Self.row, settings: settings, registered: ["pi-4"]) else {
            Issue.record("a registered device refused")
            return
        }
    }

    /// What the connection did not hand over is refused by its own labels.
    @Test func aPayloadTooLargeOrNotUTF8IsRefusedByItsLabel() {
        let settings = CollectSettings()
        let large = IncomingMessage.unreadable(
            topic: "airloc/pi-7/history", problem: .tooLarge(bytes: 5_000_000, limit: 65_536), settings: settings)
        #expect(Self.refusal(large)?.label == "too_large" && Self.refusal(large)?.device == "pi-7")
        let bytes = IncomingMessage.unreadable(topic: "airloc/pi-6/history", problem: .notUTF8, settings: settings)
        #expect(Self.refusal(bytes)?.label == "not_utf8")
    }

    /// A 16-digit integer is no 15-digit one.
    @Test func integersHaveAtMost15Digits() {
        let fifteen = Self.row.replacingOccurrences(of: #""kind""#, with: #""satellites":999999999999999,"kind""#)
        let sixteen = Self.row.replacingOccurrences(of: #""kind""#, with: #""satellites":1000000000000000,"kind""#)
        guard case .row = Self.judge("airloc/pi/history", fifteen) else {
            Issue.record("15 digits refused")
            return
        }
        #expect(Self.refusal(Self.judge("airloc/pi/history", sixteen))?.label == "bad_value")
    }
}

/// When refusals are said: never more than a handful of lines a minute, whoever sends.
@Suite struct RefusalNotesTests {
    @Test func twoThousandSendersInAMinuteAreTenLinesAndOneSummary() {
        var notes = RefusalNotes()
        let start = ContinuousClock.now
        var said = 0
        for index in 0..<2000 {
            if notes.shouldSay(sender: "junk-\(index)", at: start + .milliseconds(index)) { said += 1 }
        }
        #expect(said == RefusalNotes.perMinute)
        let early = notes.summary(at: start + .seconds(30))
        #expect(early == nil, "the minute is not over")
        let summary = notes.summary(at: start + .seconds(61))
        #expect(summary?.contains("refused 1990 more messages from 1990 senders") == true, "\(summary ?? "none")")
        let again = notes.summary(at: start + .seconds(62))
        #expect(again == nil, "said once")
        let next = notes.shouldSay(sender: "junk-5000", at: start + .seconds(62))
        #expect(next, "a new minute speaks again")
    }

    @Test func oneDeviceIsSaidOnceAMinute() {
        var notes = RefusalNotes()
        let start = ContinuousClock.now
        let first = notes.shouldSay(sender: "pi-4", at: start)
        let second = notes.shouldSay(sender: "pi-4", at: start + .seconds(59))
        #expect(first && !second)
        let summary = notes.summary(at: start + .seconds(60))
        #expect(summary?.contains("1 more message from 1 sender") == true, "\(summary ?? "none")")
        let later = notes.shouldSay(sender: "pi-4", at: start + .seconds(61))
        #expect(later)
    }
}
