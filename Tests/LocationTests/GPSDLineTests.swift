import Foundation
import Testing

@testable import Location

/// The lines airloc hands to libgps: gpsd's own, and never one libgps 3.22 loops on for
/// ever (an object followed by anything but white space; fuzzing found it).
@Suite struct GPSDLineTests {
    @Test func gpsdsOwnLinesAreUnpacked() {
        for line in [
            #"{"class":"TPV","device":"/dev/ttyACM0","mode":3,"lat":52.52,"lon":13.405,"eph":4.2}"#,
            #"{"class":"SKY","satellites":[{"PRN":4,"used":true}],"note":"a } in a string \" and {"}"#,
            "  {\"class\":\"VERSION\"} \r",
        ] {
            #expect(GPSDLine.isOneObject(Array(line.utf8)), "\(line)")
        }
        if case .position(let report) = GPSDConnection.decode(
            line: #"{"class":"TPV","mode":3,"lat":52.52,"lon":13.405}"#)
        {
            #expect(report.fix?.coordinate.latitude == 52.52)
        } else {
            Issue.record("a TPV line is a position")
        }
    }

    @Test func aLineLibgpsWouldLoopOnIsSkipped() {
        for line in [
            #"{"class":"TPV","mode":1}x{"class":"TPV","mode":1}"#, #"{"class":"TPV"}\#u{2}{"class":"TPV"}"#,
            #"[{"class":"TPV"}]"#, #"{"class":"TPV""#, "{\"class\":\"TPV\"}\0", "x", "",
        ] {
            #expect(!GPSDLine.isOneObject(Array(line.utf8)), "\(line)")
        }
        // The line the fuzzer kept: decoded at once (it used to never return).
        guard case .other = GPSDConnection.decode(line: #"{"class":"TPV","mode":1}x{"class":"TPV","mode":1}"#) else {
            Issue.record("the looping line is skipped")
            return
        }
    }
}

extension GPSDLineTests {
    /// The second line the fuzzer kept: one object to a lenient eye, a loop to libgps.
    @Test func onlyValidJSONReachesLibgps() {
        let line: [UInt8] =
            Array(#"{"class":"TPV","#.utf8) + [0x1D] + Array(#"mode":1}"#.utf8) + [0x02]
            + Array(#"{"class":"TPV","mode"#.utf8) + [0xA8] + Array(#":1}"#.utf8)
        #expect(!GPSDLine.isOneObject(line))
        #expect(!GPSDLine.isOneObject(Array(#"{"class":"TPV","note":"tab\#tin a string"}"#.utf8)))
    }
}
