import MQTT
import Platform

/// The collector's connection to the broker, as a machine of its own: connecting,
/// connected, or paused (left on purpose while rows cannot be stored), and what is said of
/// it.
///
/// Contract:
/// - Trouble is said once when it begins and once when it ends (as the logger says it),
///   and the connection's lines are six a minute at most (``LinePace``), naming those
///   left out.
/// - While paused, the connection's going away is this collector's own doing: nothing is
///   said of it and it stays paused until ``resume()``.
struct BrokerConnection: Sendable {
    private enum State: Sendable {
        case connecting
        case connected(generation: Int)
        /// Left while the database is down: once `bufferLimit` rows wait (a share group's
        /// member at once).
        case paused
    }

    private var state = State.connecting
    /// The trouble said last (nil: none, or it was said to have ended).
    private var problem: String?
    private var lines = LinePace(limit: 6)

    /// Messages can be published now.
    var isConnected: Bool {
        if case .connected = state { return true }
        return false
    }

    /// Left while rows cannot be stored.
    var isPaused: Bool {
        if case .paused = state { return true }
        return false
    }

    /// The broker accepted connection `generation`, subscribed to `topics` (named in the
    /// line): the lines to say.
    mutating func connected(generation: Int, subscribed topics: String, at now: ContinuousClock.Instant)
        -> [ServiceNotice]
    {
        state = .connected(generation: generation)
        var said = line(.info("subscribed to \(topics)", from: .collector), at: now)
        if problem != nil {
            problem = nil
            said += line(.info("the broker answers again", from: .collector), at: now)
        }
        return said
    }

    /// The connection went away; false: it was left on purpose (paused), nothing follows.
    mutating func dropped() -> Bool {
        guard !isPaused else { return false }
        state = .connecting
        return true
    }

    /// The connection went away for `message`: the lines to say (none when it was said).
    mutating func trouble(_ message: String, at now: ContinuousClock.Instant) -> [ServiceNotice] {
        guard message != problem else { return [] }
        problem = message
        return line(.warning("\(message); retrying", from: .collector), at: now)
    }

    /// The collector leaves the broker while rows cannot be stored.
    mutating func pause() { state = .paused }

    /// The collector comes back to the broker.
    mutating func resume() { state = .connecting }

    /// `notice`, when the pace lets it be said at `now` (naming the lines left out).
    private mutating func line(_ notice: ServiceNotice, at now: ContinuousClock.Instant) -> [ServiceNotice] {
        let pace = lines.admit(at: now)
        guard pace.say else { return [] }
        var notice = notice
        notice.message = LinePace.line(notice.message, leftOut: pace.leftOut)
        return [notice]
    }
}
