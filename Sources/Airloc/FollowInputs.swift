import Foundation
import Platform
import Readings
import Sensors
import Web

/// What a follow loop (the logger, `now --watch`) waits on: the followed location's
/// events, the sensors' readings, and a wake-up at the loop's next deadline.
public enum FollowInput: Sendable {
    case event(FollowEvent)
    /// The deadline the loop asked for (``FollowInputs/wake(at:)``) has come.
    case tick
    /// A reading of the particulate sensor ended (it runs beside the loop: a warm-up must
    /// not hold up the track).
    case measured(Result<SensorSample, SensorFailure>)
    /// A reading of the `[sensor.NAME]` sensor NAME ended.
    case climate(String, Result<ClimateSample, SensorFailure>)
}

/// A followed location's events, the readings handed in, and one alarm: the inputs of a
/// loop that sleeps between them instead of waking on a tick.
///
/// Contract:
/// - Every event of `events` comes through in order; ``post(_:)`` adds an input (a
///   reading's end) from any task.
/// - ``wake(at:)`` sets the one alarm: a `.tick` arrives when `time` reaches the date
///   (at once when it has), and none before; setting another date replaces it, nil
///   clears it. A `.tick` that arrives has used the alarm up (``fired()``); the loop sets
///   the next. With no alarm the loop sleeps until the next input, however long.
/// - Cancelling the consuming task, or the stop request of `until`, ends the stream and
///   its helpers; what is already queued is still handed on, nothing after it.
public final class FollowInputs: Sendable {
    /// The inputs, in order.
    public let stream: AsyncStream<FollowInput>
    private let continuation: AsyncStream<FollowInput>.Continuation
    private let time: any TimeSource
    private let alarm = Lock<(date: Date?, timer: Task<Void, Never>?)>((nil, nil))

    /// The inputs of `following`, with alarms on `time`, ended by `stop`'s request too.
    public init(_ following: LocationSession.Following, time: any TimeSource, until stop: ServiceContext? = nil) {
        let (stream, continuation) = AsyncStream<FollowInput>.makeStream()
        (self.stream, self.continuation, self.time) = (stream, continuation, time)
        // The events straight into the stream (no task between): after they end, the
        // deadlines still come (a fixed place reports once).
        let stopFollowing = following.start { event in
            if let event { continuation.yield(.event(event)) }
        }
        continuation.onTermination = { [weak self] _ in
            stopFollowing()
            self?.wake(at: nil)
        }
        stop?.whenStopping { continuation.finish() }
    }

    deinit { alarm.withLock { $0.timer?.cancel() } }

    /// Adds `input` (a reading that ended).
    public func post(_ input: FollowInput) { continuation.yield(input) }

    /// Sets the alarm to `date` (nil: none).
    public func wake(at date: Date?) {
        let (continuation, time) = (self.continuation, self.time)
        alarm.withLock { alarm in
            if alarm.date == date && (date == nil || alarm.timer != nil) { return }
            alarm.timer?.cancel()
            alarm.date = date
            alarm.timer = date.map { date in
                let delay = date.timeIntervalSince(time.date)
                return Task {
                    if delay > 0 {
                        do { try await time.sleep(for: .milliseconds(Int64((delay * 1000).rounded(.up)))) } catch {
                            return
                        }
                    }
                    continuation.yield(.tick)
                }
            }
        }
    }

    /// The alarm went off (its `.tick` was taken): the next ``wake(at:)`` sets a new one,
    /// even for the same date.
    public func fired() {
        alarm.withLock { alarm in
            alarm.date = nil
            alarm.timer = nil
        }
    }
}
