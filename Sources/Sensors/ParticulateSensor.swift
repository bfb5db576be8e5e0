import Foundation
import Platform
import Readings

/// Something that measures the air where the device is, as ``LocationProvider`` is
/// something that says where it is: one reading per call.
///
/// Contract: ``read()`` wakes the sensor, warms it up, samples, and (as configured) puts it
/// back to sleep; it ends within the warm-up and sample window plus `timeout`, with a
/// ``SensorSample`` or a ``SensorFailure``. Cancelling the task ends it within a second.
public protocol ParticulateSensor: Sendable {
    var model: SensorModel { get }
    func read() async throws(SensorFailure) -> SensorSample
}

extension ParticulateSensor {
    /// ``read()`` as a value, for a loop that hands outcomes on.
    public func reading() async -> Result<SensorSample, SensorFailure> {
        do throws(SensorFailure) { return .success(try await read()) } catch { return .failure(error) }
    }
}

/// A sensor on a serial port (a USB adapter, the Pi's UART, a pseudo-terminal in tests),
/// driven by ``SensorCycle``.
///
/// Contract: the port is opened for each reading and closed after it, so a sensor that
/// was unplugged and plugged back is found again on the next reading. A device another
/// program holds (``DeviceLock``: the logger) is never opened: the reading fails with
/// ``SensorFailure/held(_:pid:)``. The blocking reads
/// run on a thread of their own, never on Swift's cooperative threads.
public struct SerialSensor: ParticulateSensor {
    /// The reading's plan.
    public let plan: SensorCycle.Plan
    /// The device's lock, held while this value lives (the logger's).
    private let lock: DeviceLock?

    /// The sensor `plan` names; `holding` takes its device for as long as this value lives
    /// (``DeviceLock``), as the logger does, so nothing else reads it meanwhile.
    public init(plan: SensorCycle.Plan, holding: Bool = false) {
        self.plan = plan
        lock = holding ? try? DeviceLock.acquire(plan.device) : nil
    }

    /// Which sensor.
    public var model: SensorModel { plan.model }

    /// What a command says when a signal cut its reading short (the cycle put the sensor
    /// to sleep on the way out).
    public static let interruptedNotice = "airloc: interrupted; the sensor was put to sleep\n"

    /// One reading (see the contract).
    public func read() async throws(SensorFailure) -> SensorSample {
        let plan = self.plan
        // A cancellation sets the signal, which wakes the read at once: the cycle then puts
        // an answering sensor to sleep on its way out.
        return try await BlockingWork.run("airloc-sensor") { stop in Self.run(plan, cancelled: stop) }.get()
    }

    /// The cycle against the port, until it has an outcome.
    static func run(_ plan: SensorCycle.Plan, cancelled: StopSignal) -> Result<SensorSample, SensorFailure> {
        drive(SensorCycle(plan), cancelled: cancelled)
    }

    /// Any reading's cycle against its port, until it has an outcome: the port opened (unless
    /// another program holds it), the cycle's frames written, the bytes read until its next
    /// tick and decoded into frames for it.
    static func drive<Cycle: SerialCycle>(_ start: Cycle, cancelled: StopSignal) -> Result<Cycle.Sample, SensorFailure>
    {
        var cycle = start
        // This process's lock (the logger's) first moves to the node the link points at now.
        DeviceLock.follow(cycle.device)
        if let pid = DeviceLock.holder(of: cycle.device) {
            return .failure(.held(cycle.device, pid: pid))
        }
        let port: SerialPort
        do { port = try SerialPort(path: cycle.device, baud: cycle.baud) } catch {
            return .failure(SensorFailure(error))
        }
        var decoder = cycle.decoder()
        var action = cycle.start(at: .now)
        while true {
            do {
                for frame in action.send { try port.write(frame, deadline: .now + .seconds(1)) }
                if let outcome = action.outcome { return outcome }
                if cancelled.isSet {
                    action = cycle.cancelled()
                    continue
                }
                let deadline = action.next ?? .now + .seconds(1)
                let bytes = try port.read(until: deadline, stop: cancelled)
                var next = CycleAction<Cycle.Sample>(next: deadline)
                for frame in decoder.feed(bytes) {
                    next = cycle.received(frame, at: .now)
                    if next.outcome != nil { break }
                }
                action = ContinuousClock.now >= deadline ? cycle.tick(at: .now) : next
            } catch {
                action = cycle.deviceFailed(SensorFailure(error))
            }
        }
    }
}

extension SensorFailure {
    init(_ error: SerialPort.Failure) {
        let kind: DeviceProblem
        switch error {
        case .missing: kind = .missing
        case .permission: kind = .permission
        case .busy: kind = .busy
        case .gone: kind = .gone
        case .other: kind = .other
        }
        let path: String
        switch error {
        case .missing(let p), .permission(let p), .busy(let p), .gone(let p, _), .other(let p, _): path = p
        }
        self = .device(path, reason: error.description, kind: kind)
    }
}
