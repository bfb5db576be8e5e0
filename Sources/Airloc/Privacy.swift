import Geo
import Location

/// How precisely a position may be used and what may leave the device — one place for
/// the rules, so the reduced-accuracy grid and the outbound rounding cannot drift apart.
///
/// Contract:
/// - Reduced accuracy snaps a sensed fix to a fixed 0.05° grid (≈ 5 km): stable, so
///   repeated fixes cannot be averaged back to the true point; coordinates the user gave
///   (manual) are theirs and stay as given.
/// - What is sent to a service is rounded to the configured outbound precision, and
///   never finer than the grid when only reduced accuracy was allowed.
public enum Privacy {
    /// The reduced-accuracy grid, in degrees.
    public static let reducedGrid = 0.05
    /// The accuracy radius a reduced fix claims at least, in metres.
    public static let reducedRadius = 5000.0

    /// The coordinate to send for `coordinate` under `accuracy`.
    public static func outbound(
        _ coordinate: Coordinate, precision: Double, accuracy: AccuracyAuthorization
    ) -> Coordinate {
        coordinate.rounded(toDegrees: accuracy == .reduced ? max(precision, reducedGrid) : precision)
    }
}

extension Fix {
    /// The fix as `accuracy` allows: reduced blurs sensed fixes; coordinates the user
    /// gave (manual) are theirs and stay as given.
    public func limited(to accuracy: AccuracyAuthorization) -> Fix {
        accuracy == .reduced && source != .manual ? reduced() : self
    }

    /// The fix as a reduced-accuracy authorization allows: on the ``Privacy/reducedGrid``,
    /// with an accuracy radius of at least ``Privacy/reducedRadius``, and without the
    /// altitude, speed and course that would tell more than the city.
    public func reduced() -> Fix {
        var copy = self
        copy.coordinate = coordinate.rounded(toDegrees: Privacy.reducedGrid)
        copy.horizontalAccuracy = max(horizontalAccuracy ?? 0, Privacy.reducedRadius)
        copy.accuracySource = "reduced to city level"
        copy.altitudeHAE = nil
        copy.altitudeMSL = nil
        copy.speed = nil
        copy.track = nil
        return copy
    }
}
