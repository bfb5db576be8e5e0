import Foundation
import Platform
import Readings

/// One reading of a CO₂ or climate sensor, however it is reached: on a serial port
/// (``ClimateCycle``) or through the kernel's driver (``KernelReading``).
///
/// Contract: ``read()`` ends within the warm-up and sample window plus the timeout, with a
/// ``ClimateSample`` or a ``SensorFailure``; a cancelled task ends it within a second.
public enum ClimateReading: Sendable, Equatable {
    case serial(ClimateCycle.Plan)
    case kernel(KernelReading)

    /// Which sensor.
    public var model: ClimateModel {
        switch self {
        case .serial(let plan): return plan.model
        case .kernel(let reading): return reading.model
        }
    }

    /// Where it is read: the serial device, the sysfs directory, or `iio:auto`.
    public var source: String {
        switch self {
        case .serial(let plan): return plan.device
        case .kernel(let reading): return reading.path ?? "\(reading.bus.rawValue):auto"
        }
    }

    /// Which key says where it is (`device`, `iio`, `hwmon`) and what it says.
    public var place: (key: String, value: String) {
        switch self {
        case .serial(let plan): return ("device", plan.device)
        case .kernel(let kernel): return (kernel.bus.rawValue, source)
        }
    }

    /// The same reading of a sensor already warm: no warm-up, and nothing sent that is said
    /// once at power-on (the MH-Z19's ABC setting). Its datasheet's 3 minutes of preheating
    /// are once per power-on, not before every reading; a sensor that never sleeps is read
    /// for its sample window alone, and not polled between readings.
    public var warm: ClimateReading {
        switch self {
        case .serial(var plan):
            plan.warmUp = .zero
            plan.abc = nil
            return .serial(plan)
        case .kernel(var reading):
            reading.warmUp = .zero
            return .kernel(reading)
        }
    }

    /// Why the configured device cannot be this model (``KernelReading/contradiction()``).
    public var contradiction: String? {
        if case .kernel(let reading) = self { return reading.contradiction() }
        return nil
    }

    /// One reading (see the contract).
    public func read() async -> Result<ClimateSample, SensorFailure> {
        switch self {
        case .serial(let plan):
            return await BlockingWork.run("airloc-co2") { stop in
                SerialSensor.drive(ClimateCycle(plan), cancelled: stop)
            }
        case .kernel(let reading):
            return await reading.read()
        }
    }
}

/// A reading through the kernel's driver: the device's values read once a second over the
/// sample window and averaged.
///
/// Contract: a read the driver could not make (EIO, EAGAIN: a DHT11 missing an edge) is
/// tried again at the next second of the window and is never a value; a window with no
/// good read fails, as does a device that is not there (with `auto`, none whose driver is
/// the model: the overlay that binds one is named) or cannot be read. `sleep` is the
/// clock (tests pass one that does not wait).
public struct KernelReading: Sendable, Equatable {
    /// Which sensor (its driver's name).
    public var model: ClimateModel
    /// Its subsystem.
    public var bus: KernelClimateSensor.Bus
    /// Its sysfs directory; nil: the first whose driver is `model`.
    public var path: String?
    /// How long to wait before sampling.
    public var warmUp: Duration
    /// How long to sample (one read a second, at least one).
    public var sample: Duration
    /// Where sysfs is (`/sys`; a test's directory laid out the same).
    public var root: URL

    /// A reading.
    public init(
        model: ClimateModel, bus: KernelClimateSensor.Bus, path: String?, warmUp: Duration = .zero,
        sample: Duration = .seconds(10), root: URL = URL(fileURLWithPath: "/sys")
    ) {
        (self.model, self.bus, self.path, self.warmUp, self.sample, self.root) = (
            model, bus, path, warmUp, sample, root
        )
    }

    /// Why an explicit device cannot be this model: its driver's `name` says it is another
    /// ("/sys/…/iio:device0 is an scd30 (its name), not the bme280 model = says"); nil when
    /// it agrees, for `auto`, and when the device cannot be read now (a reading says that).
    public func contradiction() -> String? {
        guard let path,
            let driver = try? KernelClimateSensor(directory: URL(fileURLWithPath: path), bus: bus).driver(),
            driver != model.rawValue
        else { return nil }
        return "\(path) is a \(driver) (its name file), not the \(model.rawValue) that model = says"
    }

    /// The device, found now (`auto` looks again at every reading: it may have been bound since).
    public func sensor() -> Result<KernelClimateSensor, SensorFailure> {
        if let path { return .success(KernelClimateSensor(directory: URL(fileURLWithPath: path), bus: bus)) }
        guard let found = KernelClimateSensor.find(driver: model.rawValue, bus: bus, root: root) else {
            return .failure(
                .device(
                    "\(bus.rawValue):auto",
                    reason: "no \(bus == .iio ? "IIO" : "hwmon") device of the \(model.rawValue) driver in "
                        + "\(root.path)/\(bus == .iio ? "bus/iio/devices" : "class/hwmon") (\(Self.overlay(model)))",
                    kind: .missing))
        }
        return .success(found)
    }

    /// How a Raspberry Pi binds the driver of `model` (docs/sensors.md).
    public static func overlay(_ model: ClimateModel) -> String {
        switch model {
        case .bme280, .bmp280: return "on a Pi: dtoverlay=i2c-sensor,bme280 in config.txt"
        case .bme680: return "on a Pi: dtoverlay=i2c-sensor,bme680"
        case .sht3x: return "on a Pi: dtoverlay=i2c-sensor,sht3x"
        case .sht4x: return "on a Pi: dtoverlay=i2c-sensor,sht4x"
        case .htu21: return "on a Pi: dtoverlay=i2c-sensor,htu21"
        case .dht11: return "on a Pi: dtoverlay=dht11,gpiopin=4"
        case .scd30, .scd4x:
            return "echo \(model.rawValue) 0x\(model == .scd30 ? "61" : "62") > /sys/bus/i2c/devices/i2c-1/new_device"
        case .mhZ19, .senseairS8: return "a serial sensor: set device"
        }
    }

    /// One reading (see the contract).
    public func read(sleep: @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }) async
        -> Result<ClimateSample, SensorFailure>
    {
        do { try await sleep(warmUp) } catch { return .failure(Self.cancelled(path ?? bus.rawValue)) }
        let reads = max(1, Int(sample.components.seconds))
        var readings: [ClimateValues] = []
        var lastBusy: String?
        var source = path ?? "\(bus.rawValue):auto"
        for index in 0..<reads {
            if index > 0 {
                do { try await sleep(.seconds(1)) } catch { return .failure(Self.cancelled(source)) }
            }
            let sensor: KernelClimateSensor
            switch self.sensor() {
            case .success(let found): sensor = found
            case .failure(let failure): return .failure(failure)
            }
            source = sensor.directory.path
            do throws(KernelSensorError) {
                readings.append(try sensor.read())
            } catch {
                guard error.isRetryable else { return .failure(Self.failure(error, at: source)) }
                lastBusy = error.description
            }
        }
        guard !readings.isEmpty else {
            return .failure(
                .device(
                    source,
                    reason: (lastBusy ?? source) + ", at every try of the sample window; it is read again next time",
                    kind: .other))
        }
        return .success(
            ClimateSample(model: model, source: source, readings: readings, windowSeconds: Double(reads - 1)))
    }

    static func failure(_ error: KernelSensorError, at source: String) -> SensorFailure {
        switch error {
        case .gone: return .device(source, reason: error.description, kind: .gone)
        case .unreadable(_, let reason) where reason.contains("ermission"):
            return .device(source, reason: error.description, kind: .permission)
        default: return .device(source, reason: error.description, kind: .other)
        }
    }

    static func cancelled(_ source: String) -> SensorFailure {
        .device(source, reason: "the reading was cancelled", kind: .other)
    }
}
