import Foundation
import Geo
import Platform

/// Something that can tell where the device is.
///
/// Contract: ``currentFix(timeout:)`` returns a fix or throws within `timeout` (plus a
/// small scheduling margin), whatever the backend does — a provider never hangs its
/// caller. Cancelling the calling task ends the wait early with `CancellationError`.
/// ``updates()`` streams positions until the consumer stops iterating;
/// ``pushUpdates(to:)``, where a provider has a thread of its own, hands them on from it.
public protocol LocationProvider: Sendable {
    /// Short name for messages and JSON ("gpsd", "ip", "manual").
    var name: String { get }
    /// Whether this provider senses the device (and so needs authorization).
    var senses: Bool { get }
    func currentFix(timeout: Duration) async throws -> Fix
    /// A stream of positions. The default asks ``currentFix(timeout:)`` every
    /// ``refreshInterval`` seconds (once for a source that never changes).
    func updates() -> AsyncStream<LocationUpdate>
    /// Seconds between two questions to a source that cannot push (nil: ask once).
    var refreshInterval: Double? { get }
    /// The updates handed to `deliver` on the provider's own thread as they happen (nil
    /// once they end), until the returned signal is set; nil when the provider has no
    /// thread of its own (then ``updates()``). No task is woken between the source and
    /// `deliver`, which must not block.
    func pushUpdates(to deliver: @escaping @Sendable (LocationUpdate?) -> Void) -> StopSignal?
}

extension LocationProvider {
    /// None by default: ask once.
    public var refreshInterval: Double? { nil }

    /// None by default: ``updates()``.
    public func pushUpdates(to deliver: @escaping @Sendable (LocationUpdate?) -> Void) -> StopSignal? { nil }

    /// By default, the current fix every ``refreshInterval`` (or once).
    public func updates() -> AsyncStream<LocationUpdate> {
        let provider = self
        return AsyncStream { continuation in
            let task = Task {
                repeat {
                    do {
                        continuation.yield(.fix(try await provider.currentFix(timeout: .seconds(30))))
                    } catch is CancellationError {
                        break
                    } catch {
                        let retry = provider.refreshInterval ?? 0
                        continuation.yield(.disconnected(reason: "\(error)", retryIn: retry))
                    }
                    guard let interval = provider.refreshInterval else { break }
                    try? await Task.sleep(for: .seconds(interval))
                } while !Task.isCancelled
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }
}

/// Coordinates the user gave (flag, config or a chosen place). Needs no authorization.
public struct ManualProvider: LocationProvider {
    /// The provider's name in the chain.
    public let name = "manual"
    /// It does not sense: it needs no authorization.
    public let senses = false
    /// The coordinate it gives.
    public var coordinate: Coordinate
    /// What the coordinate is ("configured", "--lat/--lon", "place Berlin").
    public var origin: String

    /// A manual location; `origin` says where it was set, for messages.
    public init(coordinate: Coordinate, origin: String = "configured") {
        self.coordinate = coordinate
        self.origin = origin
    }

    /// The coordinate, at once.
    public func currentFix(timeout: Duration) async throws -> Fix {
        Fix(coordinate: coordinate, source: .manual, accuracySource: origin, receivedAt: Date())
    }
}
