import AirQuality
import Foundation
import Gazetteer
import Geo
import Location

/// Everything `airloc now` found out, ready for rendering: where, what place, what air,
/// what was sent, and what went wrong along the way.
///
/// Contract: a report always has a location; `air` holds either a reading or the error
/// that prevented one, so a failed air fetch never hides the location part.
struct AirReport: Sendable {
    var fix: Fix
    /// The provider that answered ("gpsd", "manual").
    var provider: String
    /// What each provider of the chain did.
    var attempts: [LocationChain.Attempt] = []
    var place: NearestPlace?
    /// The coordinate sent to the air-quality service (rounded for privacy).
    var sentCoordinate: Coordinate
    var air: Result<AirQualityReading, AirQualityError>
    /// The air-quality service's base URL when it is not the public one (a test double,
    /// a proxy): shown so a reader knows where the numbers came from.
    var airServiceOverride: String?
    var accuracy: String
    var warnings: [String] = []
    var generatedAt: Date
}
