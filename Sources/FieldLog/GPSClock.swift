import Foundation
import Geo
import Web

/// Whether this device's clock can be believed, judged against GPS time: the rule a
/// logger follows so that no row is stamped with a clock GPS contradicts.
///
/// Contract (gpsd's advice on TPV time): GPS time is trusted after three consecutive 3D
/// fixes that carry a time. Then, while the system clock and GPS time differ by more than
/// `tolerance` seconds, GPS wins: ``offset`` is added to the system clock for every row.
/// The first trusted fix that finds the clock wrong returns `.corrected`, the moment the
/// caller re-stamps what it logged before in this boot. A 2D fix, or one without time,
/// starts the count again.
///
/// A receiver's time is not believed, however often it says it (a receiver whose firmware
/// mishandles the GPS week-number rollover reports a date years off, the same every fix):
/// - when it is before `notBefore` (this airloc's release date: no true time is earlier);
/// - when it is more than `maximumLead` ahead of a system clock that is itself not before
///   `notBefore` (such a clock was set by someone or something; a Pi without a real-time
///   clock that boots at 2000-01-01 is before it, and GPS then corrects it as before).
/// The first disbelieved fix returns `.disbelieved`, once; rows keep the system clock.
public struct GPSClock: Sendable {
    /// What a fix says about the clock.
    public enum Verdict: Sendable, Equatable {
        /// Not yet trusted, or nothing changed.
        case unchanged
        /// GPS time is trusted now and the clock was off by `offset` seconds (GPS − system).
        case corrected(offset: TimeInterval)
        /// The receiver's time cannot be right, for the reason given (said once).
        case disbelieved(String)
    }

    /// Seconds the clocks may disagree.
    public let tolerance: TimeInterval
    /// No true time is earlier (this airloc's release).
    public let notBefore: Date
    /// How far a receiver may be ahead of a set clock, seconds.
    public let maximumLead: TimeInterval
    private var saidDisbelief = false
    private var consecutive = 0
    private var seen = 0
    /// True once GPS time is trusted.
    public private(set) var trusted = false
    /// What to add to the system clock (0 when it agrees with GPS or is not yet judged).
    public private(set) var offset: TimeInterval = 0

    /// A clock not judged yet.
    public init(
        tolerance: TimeInterval = 2, notBefore: Date = AirlocVersion.date, maximumLead: TimeInterval = 366 * 86_400
    ) {
        self.tolerance = tolerance
        self.notBefore = notBefore
        self.maximumLead = maximumLead
    }

    /// A fix with the receiver's time, received when the system clock said `system`.
    public mutating func observe(_ fix: Fix, system: Date) -> Verdict {
        if fix.source == .gps { seen += 1 }
        guard fix.source == .gps, fix.mode == .threeD, let gps = fix.time else {
            if fix.source == .gps { consecutive = 0 }
            return .unchanged
        }
        if let doubt = fix.timeDoubt(system: system, notBefore: notBefore, maximumLead: maximumLead).map({
            $0 + "; rows keep this device's clock"
        }) {
            consecutive = 0
            guard !saidDisbelief else { return .unchanged }
            saidDisbelief = true
            return .disbelieved(doubt)
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

    /// True when rows may be stamped for good (an air reading's hour) and their times are
    /// final (uploads may send them): GPS time is trusted, or the receiver's time was
    /// disbelieved (rows keep the clock), or ten GPS fixes came without three good ones in
    /// a row (a receiver that never reaches 3D must not stop the air from being logged),
    /// or nothing is from GPS.
    public var isJudged: Bool { trusted || saidDisbelief || seen >= 10 || seen == 0 }

    /// The time to stamp a row received at `system`, and where it came from.
    public func stamp(_ system: Date) -> (time: Date, source: String) {
        offset == 0 ? (system, "system") : (system.addingTimeInterval(offset), "gps")
    }
}
