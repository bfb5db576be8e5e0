import Geo

/// Something that can tell where the device is.
///
/// Contract: ``currentFix(timeout:)`` returns a fix or throws within `timeout` (plus a
/// small scheduling margin), whatever the backend does — a provider never hangs its
/// caller. Cancelling the calling task ends the wait early with `CancellationError`.
public protocol LocationProvider: Sendable {
    /// Short name for messages and JSON ("gpsd", "ip", "manual").
    var name: String { get }
    /// Whether this provider senses the device (and so needs authorization).
    var senses: Bool { get }
    func currentFix(timeout: Duration) async throws -> Fix
}

/// Coordinates the user gave (flag, config or a chosen place). Needs no authorization.
public struct ManualProvider: LocationProvider {
    public let name = "manual"
    public let senses = false
    public var coordinate: Coordinate

    public init(coordinate: Coordinate) { self.coordinate = coordinate }

    public func currentFix(timeout: Duration) async throws -> Fix {
        Fix(coordinate: coordinate, source: .manual, accuracySource: "configured")
    }
}
