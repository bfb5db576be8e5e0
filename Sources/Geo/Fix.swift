import Foundation

/// Where a position came from. The raw values are part of the JSON schema.
public enum FixSource: String, Sendable, Codable, Hashable {
    /// A GNSS receiver read through gpsd.
    case gps
    /// A third-party IP-geolocation service (city level at best).
    case ip
    /// Coordinates or a place the user configured; not sensed.
    case manual
}

/// The GNSS fix dimension as gpsd reports it.
public enum FixMode: Int, Sendable, Codable, Hashable, CustomStringConvertible {
    case notSeen = 0
    case noFix = 1
    case twoD = 2
    case threeD = 3

    /// "GPS", "IP", "manual": the word the card and `locate` show.
    public var description: String {
        switch self {
        case .notSeen: return "no data yet"
        case .noFix: return "no fix"
        case .twoD: return "2D fix"
        case .threeD: return "3D fix"
        }
    }
}

/// One position report.
///
/// Contract: `coordinate` is always valid; every other measurement is optional because
/// receivers and services leave most of them out. `horizontalAccuracy` is a radius in
/// metres and says what it was derived from (`accuracySource`), so a city-level IP guess
/// is never presented as a precise point.
public struct Fix: Sendable, Hashable, Codable {
    /// Where the device is.
    public var coordinate: Coordinate
    /// Height above the WGS 84 ellipsoid, metres.
    public var altitudeHAE: Double?
    /// Height above mean sea level, metres.
    public var altitudeMSL: Double?
    /// Estimated horizontal error radius, metres.
    public var horizontalAccuracy: Double?
    /// What the accuracy figure is ("eph", "epx/epy", "city level", "configured").
    public var accuracySource: String?
    /// Ground speed, metres per second.
    public var speed: Double?
    /// Course over ground, degrees from true north.
    public var track: Double?
    /// When the position was measured, by the source's clock (receiver time for GPS;
    /// nil when the source did not say, e.g. a GGA-only report).
    public var time: Date?
    /// When this device received the fix, by the local clock: the basis of ``age(at:)``,
    /// because a receiver's clock can be wrong (week rollover, replayed logs).
    public var receivedAt: Date?
    /// What gave the position (GPS, an IP service, the user).
    public var source: FixSource
    /// The receiver's fix mode (2D or 3D); nil when the source has none.
    public var mode: FixMode?
    /// Satellites used in the solution, when the receiver says.
    public var satellitesUsed: Int?

    /// A fix with whatever its source measured; every unknown measurement is nil.
    public init(
        coordinate: Coordinate, source: FixSource, time: Date? = nil,
        horizontalAccuracy: Double? = nil, accuracySource: String? = nil,
        altitudeHAE: Double? = nil, altitudeMSL: Double? = nil,
        speed: Double? = nil, track: Double? = nil,
        mode: FixMode? = nil, satellitesUsed: Int? = nil, receivedAt: Date? = nil
    ) {
        self.receivedAt = receivedAt
        self.coordinate = coordinate
        self.source = source
        self.time = time
        self.horizontalAccuracy = horizontalAccuracy
        self.accuracySource = accuracySource
        self.altitudeHAE = altitudeHAE
        self.altitudeMSL = altitudeMSL
        self.speed = speed
        self.track = track
        self.mode = mode
        self.satellitesUsed = satellitesUsed
    }

    /// Seconds since the fix was received (or, failing that, measured); nil when neither
    /// is known.
    public func age(at now: Date) -> TimeInterval? {
        guard let reference = receivedAt ?? time else { return nil }
        return max(0, now.timeIntervalSince(reference))
    }
}

/// An age for people: "42 s", "12 min", "2.5 h" (fix ages, cached answers).
public func formatAge(_ seconds: Double) -> String {
    switch seconds {
    case ..<90: return "\(Int(seconds.rounded())) s"
    case ..<5400: return "\(Int((seconds / 60).rounded())) min"
    default: return String(format: "%.1f h", seconds / 3600)
    }
}

/// A whole number with thousands grouped for people: "3,645,000" (populations, distances).
public func formatGrouped(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var out = value < 0 ? "-" : ""
    for (offset, character) in digits.enumerated() {
        if offset > 0 && (digits.count - offset) % 3 == 0 { out.append(",") }
        out.append(character)
    }
    return out
}

extension Fix {
    /// Why the receiver's time of this fix cannot be right, when it cannot (else nil): it is
    /// before `notBefore` (no true time is earlier: the software's release), or more than
    /// `maximumLead` seconds ahead of a `system` clock that is itself not before
    /// `notBefore` (such a clock was set; a Pi without a real-time clock that boots at
    /// 2000-01-01 is not). A receiver that mishandles the GPS week-number rollover reports
    /// such a date, the same every fix. The logger keeps its clock then; `now`, `locate`
    /// and `doctor` say so beside the fix.
    public func timeDoubt(system: Date, notBefore: Date, maximumLead: TimeInterval = 366 * 86_400) -> String? {
        guard source == .gps, let gps = time else { return nil }
        // Made only for a doubt: the logger asks this of every fix, and a formatter costs.
        func said() -> String { ISO8601DateFormatter().string(from: gps) }
        let rollover = "a receiver that mishandles the GPS week-number rollover is the likely cause"
        if gps < notBefore {
            return "the receiver says it is \(said()), earlier than this airloc's release "
                + "(\(ISO8601DateFormatter().string(from: notBefore).prefix(10))): its time is not believed (\(rollover))"
        }
        if system >= notBefore && gps.timeIntervalSince(system) > maximumLead {
            let years = gps.timeIntervalSince(system) / (365.25 * 86_400)
            return "the receiver says it is \(said()), " + String(format: "%.1f", years)
                + " years ahead of this device's clock: its time is not believed (\(rollover))"
        }
        return nil
    }
}
