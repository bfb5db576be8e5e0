import Foundation
import Platform
import Sensors
import Web

/// A followed location's events, with a tick between them: what a loop that also acts on
/// time (a due air fetch, a fix age on a screen) waits on — the logger and `now --watch`.
///
/// Contract: every event of `events` comes through in order; a `.tick` arrives every
/// `interval` of `time` for as long as the stream is consumed, also after `events` ended
/// (a fixed place reports once); cancelling the consuming task, or the stop request of
/// `until`, ends the stream and its helpers.
public enum FollowInput: Sendable {
    case event(FollowEvent)
    case tick
    /// A reading of the particulate sensor ended (it runs beside the loop: a warm-up must
    /// not hold up the track).
    case measured(Result<SensorSample, SensorFailure>)
    /// A reading of the `[sensor.NAME]` sensor NAME ended.
    case climate(String, Result<ClimateSample, SensorFailure>)
}

extension LocationSession.Following {
    /// The events with a tick between them (see the contract).
    public func withTicks(
        every interval: Duration = .seconds(1), time: any TimeSource, also extra: AsyncStream<FollowInput>? = nil,
        until stop: ServiceContext? = nil
    ) -> AsyncStream<FollowInput> {
        let events = self.events
        let (inputs, continuation) = AsyncStream<FollowInput>.makeStream()
        let forward = Task {
            for await event in events { continuation.yield(.event(event)) }
        }
        let other = Task {
            guard let extra else { return }
            for await input in extra { continuation.yield(input) }
        }
        let ticker = Task {
            while !Task.isCancelled {
                try? await time.sleep(for: interval)
                continuation.yield(.tick)
            }
        }
        continuation.onTermination = { _ in
            forward.cancel()
            other.cancel()
            ticker.cancel()
        }
        // What is already queued is still handed on; nothing after it.
        stop?.whenStopping { continuation.finish() }
        return inputs
    }
}
