import Readings

/// One reading of a CO₂ sensor on a serial port (MH-Z19, SenseAir S8, SCD30): the driver's
/// state machine, beside ``SensorCycle`` for the particulate sensors.
///
/// Contract (times are the caller's clock, so tests need no waiting):
/// - ``start(at:)`` sends what the model needs first (the MH-Z19's ABC setting when one is
///   configured, the SCD30's "start continuous measurement") and the first request. The
///   sensor must answer with a valid frame within `timeout`, or the reading fails then.
/// - It asks once a second, one request at a time: the MH-Z19 "read", the S8 "read IR4"
///   (its status, IR1, first and every fifth time), the SCD30 "data ready?" and, when it
///   is, "read measurement".
/// - A refused frame (a bad checksum, noise, a frame cut short) is never a value; the
///   request it answered is asked again at once, once per second at most.
/// - Readings in the warm-up are dropped; those of the sample window are averaged. A
///   silence of `timeout` later on, or the device going away, fails the reading.
/// - None of these sensors sleeps: nothing is sent at the end or on a cancel.
public struct ClimateCycle: SerialCycle {
    /// One reading's plan, from `[sensor.NAME]`.
    public struct Plan: Sendable, Equatable {
        /// Which sensor (a UART model).
        public var model: ClimateModel
        /// Its serial device.
        public var device: String
        /// How long to let it settle before sampling.
        public var warmUp: Duration
        /// How long to sample.
        public var sample: Duration
        /// How long without an answer before it is given up.
        public var timeout: Duration
        /// The MH-Z19's automatic baseline calibration, when set (nil: left as it is).
        public var abc: Bool?

        /// A plan.
        public init(
            model: ClimateModel, device: String, warmUp: Duration = .zero, sample: Duration = .seconds(10),
            timeout: Duration = .seconds(10), abc: Bool? = nil
        ) {
            (self.model, self.device, self.warmUp, self.sample, self.timeout, self.abc) =
                (model, device, warmUp, sample, timeout, abc)
        }
    }

    /// What was asked last, so the answer is read as what it answers.
    private enum Request: Sendable, Equatable {
        case mhz19Read, s8CO2, s8Status, scd30Start, scd30Ready, scd30Measurement

        var frame: [UInt8] {
            switch self {
            case .mhz19Read: return MHZ19Protocol.read
            case .s8CO2: return SenseAirS8Protocol.readCO2
            case .s8Status: return SenseAirS8Protocol.readStatus
            case .scd30Start: return SCD30Protocol.startContinuous()
            case .scd30Ready: return SCD30Protocol.dataReady
            case .scd30Measurement: return SCD30Protocol.readMeasurement
            }
        }
    }

    /// The plan.
    public let plan: Plan
    private var phases: ReadingPhases<ClimateValues>
    private var asked: Request?
    private var polls = 0
    private var askedAgain = false
    private var nextPoll: ContinuousClock.Instant?
    private var faults: [String] = []

    /// A cycle that has not started.
    public init(_ plan: Plan) {
        self.plan = plan
        phases = ReadingPhases(device: plan.device, warmUp: plan.warmUp, sample: plan.sample, timeout: plan.timeout)
    }

    /// The serial device.
    public var device: String { plan.device }
    /// Its speed.
    public var baud: Int { plan.model.baud }
    /// A decoder for its frames.
    public func decoder() -> any FrameDecoder {
        switch plan.model {
        case .mhZ19: return MHZ19Protocol.Decoder()
        case .senseairS8: return SenseAirS8Protocol.decoder()
        default: return SCD30Protocol.decoder()
        }
    }

    /// Starts: the model's first commands and the first request.
    public mutating func start(at now: ContinuousClock.Instant) -> CycleAction<ClimateSample> {
        guard phases.start(at: now) else { return CycleAction() }
        var first: [[UInt8]] = []
        if plan.model == .mhZ19, let abc = plan.abc { first.append(MHZ19Protocol.abc(abc)) }
        let request: Request = plan.model == .scd30 ? .scd30Start : nextRequest()
        return CycleAction(send: first + [ask(request, at: now)], next: nextPoll)
    }

    /// A frame arrived.
    public mutating func received(_ frame: SensorFrame, at now: ContinuousClock.Instant) -> CycleAction<ClimateSample> {
        guard phases.isUnderWay else { return CycleAction() }
        guard case .reply = frame, let request = asked else {
            phases.refusedFrame()
            // A corrupt answer: ask the same again (once before the next poll).
            guard let again = asked, !askedAgain else { return CycleAction(next: nextPoll) }
            askedAgain = true
            return CycleAction(send: [again.frame], next: nextPoll)
        }
        phases.answered(at: now)
        asked = nil
        switch request {
        case .mhz19Read:
            if let values = MHZ19Protocol.values(of: frame) { phases.record(values, at: now) }
        case .s8CO2:
            if let values = SenseAirS8Protocol.values(of: frame) { phases.record(values, at: now) }
        case .s8Status:
            if case .reply(_, let data) = frame, data.count == 2 {
                for fault in SenseAirS8Protocol.faults(status: ModbusRTU.registers(data)[0])
                where !faults.contains(fault) {
                    faults.append(fault)
                }
            }
        case .scd30Start:
            // The echo of the write: measuring. Whether data is ready is asked at the poll.
            break
        case .scd30Ready:
            if SCD30Protocol.isReady(frame) {
                return CycleAction(send: [ask(.scd30Measurement, at: now)], next: nextPoll)
            }
        case .scd30Measurement:
            if let values = SCD30Protocol.values(of: frame) { phases.record(values, at: now) }
        }
        return CycleAction(next: nextPoll)
    }

    /// Time passed without a frame.
    public mutating func tick(at now: ContinuousClock.Instant) -> CycleAction<ClimateSample> {
        switch phases.tick(at: now) {
        case .idle: return CycleAction()
        case .poll: return poll(at: now)
        case .failed(let failure): return fail(failure)
        case .done(let readings, let seconds):
            let sample = ClimateSample(
                model: plan.model, source: plan.device, readings: readings, windowSeconds: seconds, faults: faults)
            return CycleAction(outcome: .success(sample))
        }
    }

    /// The reading was cancelled: nothing to put to sleep.
    public mutating func cancelled() -> CycleAction<ClimateSample> {
        phases.finish()
        return CycleAction(outcome: .failure(.device(plan.device, reason: "the reading was cancelled", kind: .other)))
    }

    /// The device went away or could not be read or written.
    public mutating func deviceFailed(_ failure: SensorFailure) -> CycleAction<ClimateSample> { fail(failure) }

    /// The next request of the model's round.
    private mutating func nextRequest() -> Request {
        polls += 1
        switch plan.model {
        case .mhZ19: return .mhz19Read
        // The status first, so a fault is known whatever the window's length; then every fifth.
        case .senseairS8: return polls % 5 == 1 ? .s8Status : .s8CO2
        default: return .scd30Ready
        }
    }

    private mutating func ask(_ request: Request, at now: ContinuousClock.Instant) -> [UInt8] {
        asked = request
        askedAgain = false
        nextPoll = now + .seconds(1)
        return request.frame
    }

    private mutating func poll(at now: ContinuousClock.Instant) -> CycleAction<ClimateSample> {
        CycleAction(send: [ask(nextRequest(), at: now)], next: nextPoll)
    }

    private mutating func fail(_ failure: SensorFailure) -> CycleAction<ClimateSample> {
        phases.finish()
        return CycleAction(outcome: .failure(failure))
    }
}
