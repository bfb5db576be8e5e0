import Foundation

/// The `[log]` rules: when the field logger records track points and fetches the air
/// (``LogTrigger`` in module Airloc applies them).
///
/// Contract: plain values with the documented defaults (docs/configuration.md); the
/// `Configuration` module checks their ranges where it reads them.
public struct LogSettings: Sendable, Equatable {
    /// Seconds between track points at most.
    public var trackInterval: TimeInterval = 5
    /// Metres moved that make a point at once.
    public var trackDistance: Double = 10
    /// A fix with a larger error radius (metres) is skipped.
    public var maxError: Double = 100
    /// Seconds without a fix that open a new segment.
    public var segmentGap: TimeInterval = 60
    /// Metres moved that make the air fetched again.
    public var airDistance: Double = 2000
    /// The first pause after a failed fetch, seconds.
    public var firstRetryPause: TimeInterval = 5
    /// The longest pause, seconds.
    public var maxRetryPause: TimeInterval = 60

    /// The defaults (docs/configuration.md).
    public init() {}
}
