/// The phases every reading of a serial sensor goes through, and its two timeouts: shared by
/// ``SensorCycle`` (particulate) and ``ClimateCycle`` (CO₂), which differ only in what they
/// send and how they read an answer.
///
/// Contract (times are the caller's clock):
/// - Waking: the sensor must answer (any valid frame) within `timeout` of the start, or the
///   reading fails then: `notASensor` when only refused frames came, else `noAnswer`.
/// - Warming, then sampling: readings in the warm-up are dropped, those of the window kept.
///   A silence of `timeout` since the last reading (or the first answer) fails the reading:
///   `invalidFrames` when frames were refused since, else `silent`.
/// - A reading that comes once the warm-up is over opens the window at once (with no
///   warm-up, the first good frame counts), so a reading in hand is never dropped.
/// - At the end of the window: the readings. With none yet, a sensor that still answers,
///   if only with damaged frames, is asked on until a good frame or until `timeout` past
///   the window, then fails `invalidFrames` (damaged frames came) or `silent` (nothing did):
///   doctor's one-second look at a sensor whose line drops bytes is not "stopped sending".
/// - After a failure or the end, nothing more happens (`.idle`).
struct ReadingPhases<Reading: Sendable>: Sendable {
    private enum State: Sendable {
        case idle
        case waking(since: ContinuousClock.Instant)
        case warming(until: ContinuousClock.Instant)
        case sampling(from: ContinuousClock.Instant, until: ContinuousClock.Instant, readings: [Reading])
        case finished
    }

    /// What a tick decides.
    enum Step: Sendable {
        /// Nothing (not started, or over).
        case idle
        /// Ask the sensor again.
        case poll
        /// The reading failed.
        case failed(SensorFailure)
        /// The window is over: its readings and the seconds they span.
        case done([Reading], seconds: Double)
    }

    let device: String
    let warmUp: Duration
    let sample: Duration
    let timeout: Duration
    private var state = State.idle
    private var lastAnswer: ContinuousClock.Instant?
    /// The last reading, or the first answer before any: silence is counted from it.
    private var lastReading: ContinuousClock.Instant?
    private var refused = 0
    private var refusedSinceReading = 0

    init(device: String, warmUp: Duration, sample: Duration, timeout: Duration) {
        (self.device, self.warmUp, self.sample, self.timeout) = (device, warmUp, sample, timeout)
    }

    /// The sensor answered at least once.
    var wasAwake: Bool { lastAnswer != nil }

    /// Between the start and the end: the sensor was (or is being) woken.
    var isUnderWay: Bool {
        switch state {
        case .waking, .warming, .sampling: return true
        case .idle, .finished: return false
        }
    }

    /// Starts the reading; false when it had started already.
    mutating func start(at now: ContinuousClock.Instant) -> Bool {
        guard case .idle = state else { return false }
        state = .waking(since: now)
        return true
    }

    /// A frame that was not a valid one.
    mutating func refusedFrame() {
        refused += 1
        refusedSinceReading += 1
    }

    /// A valid frame: the sensor is awake; the warm-up runs from the start.
    mutating func answered(at now: ContinuousClock.Instant) {
        lastAnswer = now
        if case .waking(let since) = state { state = .warming(until: since + warmUp) }
    }

    /// A reading: kept when the window is open.
    mutating func record(_ reading: Reading, at now: ContinuousClock.Instant) {
        lastReading = now
        refusedSinceReading = 0
        if case .warming(let until) = state, now >= until {
            state = .sampling(from: now, until: now + sample, readings: [])
        }
        if case .sampling(let from, let until, var readings) = state {
            readings.append(reading)
            state = .sampling(from: from, until: until, readings: readings)
        }
    }

    /// The reading is over (a failure, a cancel).
    mutating func finish() { state = .finished }

    /// Time passed without a frame.
    mutating func tick(at now: ContinuousClock.Instant) -> Step {
        switch state {
        case .idle, .finished: return .idle
        case .waking(let since):
            guard lastAnswer == nil else { return advance(at: now) }
            guard now - since < timeout else {
                state = .finished
                return .failed(refused > 0 ? .notASensor(device) : .noAnswer(device))
            }
            return .poll
        case .warming, .sampling:
            if let last = lastReading ?? lastAnswer, now - last >= timeout {
                state = .finished
                return .failed(refusedSinceReading > 0 ? .invalidFrames(device) : .silent(device))
            }
            return advance(at: now)
        }
    }

    private mutating func advance(at now: ContinuousClock.Instant) -> Step {
        switch state {
        case .warming(let until) where now >= until:
            state = .sampling(from: now, until: now + sample, readings: [])
        case .sampling(let from, let until, let readings) where now >= until:
            guard !readings.isEmpty else {
                if now - until < timeout { return .poll }
                state = .finished
                return .failed(refusedSinceReading > 0 ? .invalidFrames(device) : .silent(device))
            }
            state = .finished
            return .done(readings, seconds: Double((now - from).components.seconds))
        default: break
        }
        return .poll
    }
}
