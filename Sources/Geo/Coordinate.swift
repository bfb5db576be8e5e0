import Foundation

/// A point on the WGS 84 ellipsoid in decimal degrees.
///
/// Contract: a `Coordinate` built through ``init(latitude:longitude:)`` is always valid
/// (finite, latitude in -90...90, longitude in -180...180); invalid input is rejected
/// with a ``CoordinateError`` that names the valid range, never clamped silently.
public struct Coordinate: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Degrees north of the equator, -90...90 (WGS 84).
    public let latitude: Double
    /// Degrees east of Greenwich, -180...180 (WGS 84).
    public let longitude: Double

    /// Validates and stores a coordinate; throws when it cannot exist on Earth.
    public init(latitude: Double, longitude: Double) throws(CoordinateError) {
        guard latitude.isFinite, (-90.0...90.0).contains(latitude) else {
            throw .latitudeOutOfRange(latitude)
        }
        guard longitude.isFinite, (-180.0...180.0).contains(longitude) else {
            throw .longitudeOutOfRange(longitude)
        }
        self.latitude = latitude
        self.longitude = longitude
    }

    /// For values already known to be valid (decoded from our own data files).
    public init(uncheckedLatitude latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// "52.5200° N, 13.4050° E" with four decimals (~11 m), the precision a person reads.
    public var description: String {
        let ns = latitude >= 0 ? "N" : "S"
        let ew = longitude >= 0 ? "E" : "W"
        return String(format: "%.4f° %@, %.4f° %@", abs(latitude), ns, abs(longitude), ew)
    }

    /// Great-circle distance in metres (haversine on a sphere of the mean Earth radius;
    /// the 0.5 % error against the ellipsoid is far below what a place lookup needs).
    public func distance(to other: Coordinate) -> Double {
        let φ1 = latitude * .pi / 180
        let φ2 = other.latitude * .pi / 180
        let dφ = φ2 - φ1
        let dλ = (other.longitude - longitude) * .pi / 180
        let a = sin(dφ / 2) * sin(dφ / 2) + cos(φ1) * cos(φ2) * sin(dλ / 2) * sin(dλ / 2)
        return 2 * Coordinate.earthRadius * asin(min(1, a.squareRoot()))
    }

    /// Initial bearing from this point to `other`, degrees clockwise from true north (0..<360).
    public func bearing(to other: Coordinate) -> Double {
        let φ1 = latitude * .pi / 180
        let φ2 = other.latitude * .pi / 180
        let dλ = (other.longitude - longitude) * .pi / 180
        let y = sin(dλ) * cos(φ2)
        let x = cos(φ1) * sin(φ2) - sin(φ1) * cos(φ2) * cos(dλ)
        let degrees = atan2(y, x) * 180 / .pi
        return (degrees + 360).truncatingRemainder(dividingBy: 360)
    }

    /// Mean Earth radius in metres (IUGG).
    public static let earthRadius = 6_371_008.8

    /// The coordinate snapped to a grid of `step` degrees, so that what leaves the device
    /// is no more precise than the user configured. Snapping (not random blur) is stable:
    /// repeated requests from one spot reveal nothing more than one request does.
    public func rounded(toDegrees step: Double) -> Coordinate {
        guard step > 0, step.isFinite else { return self }
        func snap(_ value: Double) -> Double {
            // Round in integer grid units to avoid 52.519999999 artefacts.
            let units = (value / step).rounded()
            let decimals = max(0, Int((-log10(step)).rounded(.up)))
            let factor = pow(10.0, Double(decimals))
            return (units * step * factor).rounded() / factor
        }
        let lat = min(90, max(-90, snap(latitude)))
        var lon = snap(longitude)
        if lon > 180 { lon -= 360 }
        if lon < -180 { lon += 360 }
        return Coordinate(uncheckedLatitude: lat, longitude: lon)
    }
}

/// Why a pair of numbers is not a coordinate; the message names the valid range.
public enum CoordinateError: Error, Sendable, Equatable, CustomStringConvertible {
    case latitudeOutOfRange(Double)
    case longitudeOutOfRange(Double)

    /// "52.5200° N, 13.4050° E", as the card shows it.
    public var description: String {
        switch self {
        case .latitudeOutOfRange(let value):
            return "latitude \(value) is outside the valid range -90...90"
        case .longitudeOutOfRange(let value):
            return "longitude \(value) is outside the valid range -180...180"
        }
    }
}
