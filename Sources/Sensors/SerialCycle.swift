/// What the caller of a reading's state machine does next: send these frames, then wait
/// for bytes until `next` (and tick then), or stop with the outcome.
public struct CycleAction<Sample: Sendable>: Sendable {
    /// Frames to write now.
    public var send: [[UInt8]] = []
    /// When to look again (a tick), if no frame comes first.
    public var next: ContinuousClock.Instant?
    /// The reading's outcome, once it has one.
    public var outcome: Result<Sample, SensorFailure>?

    /// An action.
    public init(
        send: [[UInt8]] = [], next: ContinuousClock.Instant? = nil, outcome: Result<Sample, SensorFailure>? = nil
    ) {
        (self.send, self.next, self.outcome) = (send, next, outcome)
    }
}

/// One reading of a sensor on a serial port, as a state machine the port's loop drives
/// (``SerialSensor``): the particulate ``SensorCycle`` and the CO₂ ``ClimateCycle``.
///
/// Contract: one event per call, each returning what to do next; times are the caller's
/// clock. After an action with an outcome nothing more is sent.
public protocol SerialCycle: Sendable {
    associatedtype Sample: Sendable
    /// The serial device.
    var device: String { get }
    /// Its speed.
    var baud: Int { get }
    /// A decoder for its frames.
    func decoder() -> any FrameDecoder
    /// Starts the reading.
    mutating func start(at now: ContinuousClock.Instant) -> CycleAction<Sample>
    /// A frame arrived.
    mutating func received(_ frame: SensorFrame, at now: ContinuousClock.Instant) -> CycleAction<Sample>
    /// Time passed without a frame.
    mutating func tick(at now: ContinuousClock.Instant) -> CycleAction<Sample>
    /// The reading was cancelled.
    mutating func cancelled() -> CycleAction<Sample>
    /// The device went away or could not be read or written.
    mutating func deviceFailed(_ failure: SensorFailure) -> CycleAction<Sample>
}

/// Turns the bytes a sensor sends into frames, as they come.
public protocol FrameDecoder: Sendable {
    /// The frames `bytes` complete (refusals included).
    mutating func feed(_ bytes: [UInt8]) -> [SensorFrame]
}

// Their `feed(_: some Sequence<UInt8>)` is the requirement's witness.
extension MHZ19Protocol.Decoder: FrameDecoder {}
extension ModbusRTU.Decoder: FrameDecoder {}
