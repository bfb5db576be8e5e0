import FleetWire
import Foundation
import Settings
import Testing

@testable import Collector

/// What the collector accepts as a device's row, and what it refuses whole.
@Suite struct DeviceRowTests {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)
    static let track =
        #"{"schema":"airloc.log/1","id":"t42","kind":"track","time":"2026-11-18T10:00:05.250Z","latitude":52.52,"longitude":13.405,"time_source":"gps","altitude_m":35,"speed_ms":0,"course_deg":null,"accuracy_m":1,"mode":"3d","satellites":9,"provider":"gpsd","segment":1}"#

    @Test func aRowOfTheExportIsAcceptedWithItsColumns() throws {
        let row = try DeviceRow(device: "pi-7", payload: Self.track, now: Self.now)
        #expect(row.id == "t42" && row.kind == .track && row.number == 42 && row.revision == 0)
        #expect(row.columns["satellites"] == .integer(9))
        #expect(row.columns["speed_ms"] == .number(0), "0 is a number, not false")
        #expect(row.columns["course_deg"] == .null)
        #expect(row.columns["mode"] == .text("3d"))
        #expect(row.time == Date(timeIntervalSince1970: 1_794_996_005.25), "to the millisecond")
    }

    /// A sensor row's flags are a list now; older devices sent a space-separated string.
    /// Both land as the same column; a list of anything but words is refused.
    @Test func flagsAreTakenAsAListOrAsTheOlderString() throws {
        func sensor(_ flags: String) -> String {
            #"{"schema":"airloc.log/1","id":"s3","kind":"sensor","time":"2026-11-18T10:00:05Z","latitude":52.52,"longitude":13.4,"model":"sds011","pm2_5":11.5,"pm10":20,"samples":10,"flags":"#
                + flags + #","segment":1}"#
        }
        let list = try DeviceRow(device: "pi-7", payload: sensor(#"["humidity","warm-up-cut-short"]"#), now: Self.now)
        #expect(list.columns["flags"] == .text("humidity warm-up-cut-short"))
        let older = try DeviceRow(device: "pi-7", payload: sensor(#""humidity warm-up-cut-short""#), now: Self.now)
        #expect(older.columns["flags"] == list.columns["flags"])
        #expect(Self.refusal(sensor(#"["humidity",7]"#)) == .badValue("flags"))
    }

    static func refusal(_ payload: String, device: String = "pi-7") -> DeviceRow.Refusal? {
        do {
            _ = try DeviceRow(device: device, payload: payload, now: now)
            return nil
        } catch { return error }
    }

    @Test func badRowsAreRefusedWhole() {
        let base = Self.track
        #expect(Self.refusal("not json") == .notJSON)
        #expect(Self.refusal("[1,2]") == .notJSON)
        #expect(
            Self.refusal(base.replacingOccurrences(of: "airloc.log/1", with: "airloc.log/9"))
                == .unknownSchema("airloc.log/9"))
        #expect(Self.refusal(base.replacingOccurrences(of: "\"t42\"", with: "\"x42\"")) == .badID("x42"))
        #expect(Self.refusal(base.replacingOccurrences(of: "\"t42\"", with: "\"t-1\"")) == .badID("t-1"))
        #expect(
            Self.refusal(base.replacingOccurrences(of: "\"t42\"", with: "\"a42\"")) == .badID("a42"),
            "kind and letter disagree")
        #expect(Self.refusal(base.replacingOccurrences(of: "2026-11-18", with: "yesterday")) != nil)
        #expect(
            Self.refusal(base.replacingOccurrences(of: "2026-11-18", with: "2031-01-01")) == nil,
            "a clock years ahead: stored all the same (the default partition), never asked for forever")
        #expect(
            Self.refusal(base.replacingOccurrences(of: "\"satellites\":9", with: "\"satellites\":\"nine\""))
                == .badValue("satellites"))
        #expect(
            Self.refusal(base.replacingOccurrences(of: "\"satellites\":9", with: "\"satellites\":true"))
                == .badValue("satellites"))
        #expect(Self.refusal(base.replacingOccurrences(of: "52.52", with: "152.52")) == .badValue("latitude"))
        #expect(
            Self.refusal("{\"pad\":\"" + String(repeating: "x", count: 70_000) + "\"}")
                == .tooLarge(70_010, limit: 65_536))
    }

    @Test func aDeviceCannotWriteAnotherDevicesRows() {
        let claimed = "{\"device\":\"victim\"," + Self.track.dropFirst()
        #expect(Self.refusal(claimed, device: "mallory") == .otherDevice("victim"))
        #expect(Self.refusal(claimed, device: "victim") == nil)
    }

    @Test func theDeviceIsTheTopicLevelThePlusStandsFor() {
        var settings = CollectSettings()
        #expect(settings.device(inTopic: "airloc/pi-7/history")! == ("pi-7", "history"))
        #expect(
            settings.device(inTopic: "airloc/pi-7/state") == nil
                || settings.device(inTopic: "airloc/pi-7/state")!.rest == "state")
        #expect(settings.device(inTopic: "other/pi-7/history") == nil)
        #expect(settings.device(inTopic: "airloc/pi-7/x/history") == nil)
        settings.topicPrefix = "fleet/+/air"
        #expect(settings.device(inTopic: "fleet/van-3/air/history")! == ("van-3", "history"))
    }

    @Test func theNewestRevisionOfAKeyIsTheOneWritten() throws {
        let one = try DeviceRow(
            device: "pi",
            payload: Self.track.replacingOccurrences(of: "\"segment\":1", with: "\"segment\":1,\"revision\":1"),
            now: Self.now)
        let zero = try DeviceRow(device: "pi", payload: Self.track, now: Self.now)
        #expect(RowStore.newest([one, zero]).map(\.revision) == [1], "an older replay after a newer row")
        #expect(RowStore.newest([zero, one]).map(\.revision) == [1])
    }
}
