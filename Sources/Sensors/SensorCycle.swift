import Readings

/// One reading of a sensor, from waking it to putting it back to sleep: the driver's state
/// machine (the family's commands are ``SensorCommands``).
///
/// Contract (times are the caller's clock, so tests need no waiting):
/// - ``start(at:)`` wakes the sensor. It must answer (any valid frame) within `timeout`,
///   or the cycle fails then: a sensor that is missing, silent or not a sensor is never
///   waited out through the warm-up.
/// - It is polled once a second. Readings during the warm-up are dropped; those of the
///   sample window that follows are averaged.
/// - A silence of `timeout` later on, or the device going away, fails the cycle.
/// - At the end of the window the sensor is put to sleep (unless `sleepAfter` is off) and
///   the mean is reported. A refused frame is never a value.
public struct SensorCycle: SerialCycle {
    /// One reading's plan, from `[sensor]`.
    public struct Plan: Sendable {
        /// Which sensor.
        public var model: SensorModel
        /// Its serial device.
        public var device: String
        /// How long to let the fan run before sampling.
        public var warmUp: Duration
        /// How long to sample.
        public var sample: Duration
        /// How long without an answer before it is given up.
        public var timeout: Duration
        /// Put it to sleep after the reading.
        public var sleepAfter: Bool
        /// The correction applied to PM2.5.
        public var correction: SensorSample.Correction
        /// Above this humidity (%) a reading is flagged.
        public var humidityLimit: Double

        /// A plan.
        public init(
            model: SensorModel, device: String, warmUp: Duration = .seconds(30), sample: Duration = .seconds(10),
            timeout: Duration = .seconds(10), sleepAfter: Bool = true, correction: SensorSample.Correction = .none,
            humidityLimit: Double = 70
        ) {
            (self.model, self.device, self.warmUp, self.sample) = (model, device, warmUp, sample)
            (self.timeout, self.sleepAfter, self.correction, self.humidityLimit) =
                (timeout, sleepAfter, correction, humidityLimit)
        }
    }

    /// What the caller does next (``CycleAction``).
    public typealias Action = CycleAction<SensorSample>

    /// The plan.
    public let plan: Plan
    private let commands: SensorCommands
    private var phases: ReadingPhases<ParticulateValues>
    private var nextPoll: ContinuousClock.Instant?
    private var serial: String?

    /// A cycle that has not started.
    public init(_ plan: Plan) {
        self.plan = plan
        commands = SensorCommands(plan.model)
        phases = ReadingPhases(device: plan.device, warmUp: plan.warmUp, sample: plan.sample, timeout: plan.timeout)
    }

    /// The serial device.
    public var device: String { plan.device }
    /// Its speed.
    public var baud: Int { plan.model.baud }
    /// A decoder for its frames.
    public func decoder() -> any FrameDecoder { SensorDecoder(plan.model) }

    /// Starts: wake the sensor.
    public mutating func start(at now: ContinuousClock.Instant) -> Action {
        guard phases.start(at: now) else { return Action() }
        nextPoll = now + .seconds(1)
        return Action(send: commands.wake + (commands.identify.map { [$0] } ?? []) + [commands.poll], next: nextPoll)
    }

    /// A frame arrived.
    public mutating func received(_ frame: SensorFrame, at now: ContinuousClock.Instant) -> Action {
        switch frame {
        case .refused:
            phases.refusedFrame()
            return Action(next: nextPoll)
        case .reply(let command, let data):
            phases.answered(at: now)
            if command == 0xD0, data.first == 0 { serial = Self.text(data.dropFirst()) }
            return Action(next: nextPoll)
        case .values(let values, let id):
            phases.answered(at: now)
            phases.record(values, at: now)
            if let id { serial = id }
            return Action(next: nextPoll)
        }
    }

    /// Time passed without a frame.
    public mutating func tick(at now: ContinuousClock.Instant) -> Action {
        switch phases.tick(at: now) {
        case .idle: return Action()
        case .poll: return poll(at: now)
        case .failed(let failure): return fail(failure)
        case .done(let readings, let seconds):
            let sample = SensorSample(
                model: plan.model, device: plan.device, serial: serial, readings: readings, windowSeconds: seconds,
                warmUpSeconds: Double(plan.warmUp.components.seconds), correction: plan.correction,
                humidityLimit: plan.humidityLimit)
            return Action(send: plan.sleepAfter ? commands.sleep : [], outcome: .success(sample))
        }
    }

    /// The reading was cancelled (SIGTERM to the logger, Ctrl-C to `sense`): once the wake
    /// went out the sensor is put to sleep on the way out, as after a reading, even when
    /// its first answer is still on the wire: otherwise the last command it saw is "wake".
    public mutating func cancelled() -> Action {
        let sleep = phases.isUnderWay && plan.sleepAfter ? commands.sleep : []
        phases.finish()
        return Action(
            send: sleep, outcome: .failure(.device(plan.device, reason: "the reading was cancelled", kind: .other)))
    }

    /// The device went away or could not be read or written.
    public mutating func deviceFailed(_ failure: SensorFailure) -> Action {
        fail(failure)
    }

    private mutating func poll(at now: ContinuousClock.Instant) -> Action {
        nextPoll = now + .seconds(1)
        return Action(send: [commands.poll], next: nextPoll)
    }

    private mutating func fail(_ failure: SensorFailure) -> Action {
        phases.finish()
        // A sensor that answered and then failed (silence) is asked to sleep all the same.
        let sleep = phases.wasAwake && plan.sleepAfter && failure.deviceIsThere ? commands.sleep : []
        return Action(send: sleep, outcome: .failure(failure))
    }

    static func text(_ bytes: some Collection<UInt8>) -> String {
        String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }
}

/// Why a reading was not made.
public enum SensorFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// Nothing came back within the timeout after waking it.
    case noAnswer(String)
    /// Bytes came back, but never a valid frame: another device, or the wrong baud.
    case notASensor(String)
    /// It answered, then stopped sending for the timeout.
    case silent(String)
    /// It answered, then sent only frames that failed their checksum or were cut short.
    case invalidFrames(String)
    /// The device node could not be opened or used.
    case device(String, reason: String, kind: DeviceProblem)

    /// What is wrong with the device, for advice.
    public enum DeviceProblem: Sendable, Equatable {
        case missing, permission, busy, gone, other
        /// Another program holds the device for its run (``DeviceLock``: the logger).
        case held
    }

    /// The device is the logger's (``DeviceLock``), so this reading never opened it.
    public static func held(_ path: String, pid: Int32) -> SensorFailure {
        .device(
            path,
            reason: "\(path) is held by the logger (airloc, PID \(pid)): a sensor is read by one program at a time",
            kind: .held)
    }

    /// Bytes came, but damaged or stopped short (noise on the line, a frame cut in two; a
    /// wrong baud looks the same): asking again may well work, unlike a device that is not
    /// there.
    public var isDamagedAnswer: Bool {
        switch self {
        case .silent, .invalidFrames, .notASensor: return true
        default: return false
        }
    }

    /// What went wrong with the reading.
    public var description: String {
        switch self {
        case .noAnswer(let path): return "the sensor on \(path) did not answer"
        case .notASensor(let path): return "\(path) sent bytes, but no valid sensor frame (wrong model or baud?)"
        case .silent(let path): return "the sensor on \(path) stopped sending"
        case .invalidFrames(let path):
            return "the sensor on \(path) sends no valid readings (bad checksums or frames cut short)"
        case .device(_, let reason, _): return reason
        }
    }

    /// What makes two failures one trouble for a logger to say once: a sensor pulled out
    /// fails as "went away" when a reading was under way, then as "does not exist" — one
    /// absence of `path`. Nil for any other failure (its words are its identity).
    public var absence: String? {
        if case .device(let path, _, let kind) = self, kind == .gone || kind == .missing { return "absent \(path)" }
        return nil
    }

    /// True when it is worth telling the device to sleep (it is still there).
    var deviceIsThere: Bool {
        if case .device = self { return false }
        return true
    }
}
