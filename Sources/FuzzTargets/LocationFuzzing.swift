import Geo
import Location

/// gpsd's JSON as the location code reads it: libgps' `gps_unpack` (what a read does with
/// each line) and airloc's own reading of POLL, then the fix made of a report
/// (``GPSDReading``). NMEA itself never reaches airloc: gpsd parses it (and fuzzes that
/// layer itself).
///
/// What must hold: every line returns (libgps 3.22 looped for ever on some; fuzzing found
/// two kinds, kept in the corpus), and a fix is a place on Earth with honest figures.
enum LocationFuzzing {
    static let targets = [
        FuzzTarget("gpsd-json", "gpsd JSON lines through libgps and GPSDMessage, to a Fix") { bytes in
            for line in FuzzInput.parts(bytes) {
                for fix in GPSDReading.fixes(in: FuzzInput.text(line)) { check(fix) }
            }
        }
    ]

    static func check(_ fix: Fix) {
        let coordinate = fix.coordinate
        precondition(abs(coordinate.latitude) <= 90 && abs(coordinate.longitude) <= 180, "a fix off the Earth")
        precondition(FuzzInput.finite(fix.horizontalAccuracy) && (fix.horizontalAccuracy ?? 0) >= 0, "accuracy")
        precondition(FuzzInput.finite(fix.altitudeMSL) && FuzzInput.finite(fix.speed), "altitude or speed")
    }
}
