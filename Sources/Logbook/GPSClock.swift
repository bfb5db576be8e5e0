import Foundation
import Geo

/// Whether this device's clock can be believed, judged against GPS time: the rule a
/// logger follows so that no row is stamped with a clock GPS contradicts.
///
/// Contract (gpsd's advice on TPV time): GPS time is trusted after three consecutive 3D
/// fixes that carry a time. Then, while the system clock and GPS time differ by more than
/// `tolerance` seconds, GPS wins: ``offset`` is added to the system clock for every row.
/// The first trusted fix that finds the clock wrong returns `.corrected`, the moment the
/// caller re-stamps what it logged before in this boot. A 2D fix, or one without time,
/// starts the count again.
public struct GPSClock: Sendable {
    public enum Verdict: Sendable, Equatable {
        /// Not yet trusted, or nothing changed.
        case unchanged
        /// GPS time is trusted now and the clock was off by `offset` seconds (GPS − system).
        case corrected(offset: TimeInterval)
    }

    public let tolerance: TimeInterval
    private var consecutive = 0
    private var seen = 0
    public private(set) var trusted = false
    /// What to add to the system clock (0 when it agrees with GPS or is not yet judged).
    public private(set) var offset: TimeInterval = 0

    public init(tolerance: TimeInterval = 2) { self.tolerance = tolerance }

    /// A fix with the receiver's time, received when the system clock said `system`.
    public mutating func observe(_ fix: Fix, system: Date) -> Verdict {
        if fix.source == .gps { seen += 1 }
        guard fix.source == .gps, fix.mode == .threeD, let gps = fix.time else {
            if fix.source == .gps { consecutive = 0 }
            return .unchanged
        }
        consecutive += 1
        guard consecutive >= 3 else { return .unchanged }
        let difference = gps.timeIntervalSince(system)
        let wasOff = offset
        offset = abs(difference) > tolerance ? difference : 0
        let first = !trusted
        trusted = true
        if offset != 0 && (first || wasOff == 0) { return .corrected(offset: offset) }
        return .unchanged
    }

    /// True when rows may be stamped for good (an air reading's hour): GPS time is
    /// trusted, or ten GPS fixes came without three good ones in a row (a receiver that
    /// never reaches 3D must not stop the air from being logged), or nothing is from GPS.
    public var isJudged: Bool { trusted || seen >= 10 || seen == 0 }

    /// The time to stamp a row received at `system`, and where it came from.
    public func stamp(_ system: Date) -> (time: Date, source: String) {
        offset == 0 ? (system, "system") : (system.addingTimeInterval(offset), "gps")
    }
}
