import Foundation
import Platform
import Readings
import Sensors
import Settings

extension HealthCheck {
    /// The `[sensor.NAME]` sensors: each section makes sense, its device is there and it
    /// answers (one quick reading, no warm-up); and the kernel's climate devices this
    /// machine has bound, each with its driver, so a sensor wired but not configured is
    /// named, and a configured one that is missing comes with the overlay that binds it.
    /// Nothing when no section is configured and no such device is bound. `root` is where
    /// sysfs is (`/sys`; a test's directory laid out the same).
    public static func climateSensors(_ settings: Settings, root: URL = URL(fileURLWithPath: "/sys")) async
        -> [HealthCheck]
    {
        var checks: [HealthCheck] = []
        let bound = boundClimateDevices(root: root)
        for section in settings.climateSensors {
            let name = "sensor \(section.name)"
            switch section.reading {
            case .failure(let error):
                checks.append(
                    HealthCheck(
                        name: name, status: .fail, detail: error.description, advice: "fix [sensor.\(section.name)]"))
            case .success(let reading):
                checks.append(await quickLook(name: name, reading, root: root))
            }
        }
        let configured = Set(settings.climateSensors.compactMap(\.model?.rawValue))
        if !bound.isEmpty || settings.climateSensors.contains(where: { $0.iio != nil || $0.hwmon != nil }) {
            let list = bound.map { "\($0.driver) (\($0.path))" }
            let unused = bound.filter { !configured.contains($0.driver) }
            checks.append(
                HealthCheck(
                    name: "kernel sensors",
                    status: unused.isEmpty ? .ok : .warn,
                    detail: list.isEmpty
                        ? "no climate or CO₂ device is bound to an IIO or hwmon driver"
                        : "bound: " + list.joined(separator: ", "),
                    advice: unused.first.map { device in
                        "\(device.driver) is wired but not read: add [sensor.\(device.driver)] model = \(device.driver), "
                            + "\(device.bus.rawValue) = auto"
                    }))
        }
        return checks
    }

    /// Tries of a serial sensor whose answer was damaged or cut short, before it fails.
    static let tries = 3

    /// One reading without warm-up, one second of samples: does it answer, and what. A
    /// sensor the logger holds is not touched (as the particulate sensor's check); a serial
    /// one whose answer was damaged or cut short is asked again, ``tries`` times in all.
    private static func quickLook(name: String, _ reading: ClimateReading, root: URL) async -> HealthCheck {
        var quick = reading
        switch reading {
        case .serial(var plan):
            guard FileManager.default.fileExists(atPath: plan.device) else {
                return HealthCheck(
                    name: name, status: .fail, detail: "\(plan.device) does not exist (\(plan.model.displayName))",
                    advice: "plug the sensor in, or set device in its section")
            }
            if let pid = DeviceLock.holder(of: plan.device) {
                return HealthCheck(
                    name: name, status: .ok,
                    detail: "\(plan.model.displayName) on \(plan.device) is held by the logger (airloc, PID \(pid)); "
                        + "not touched (its readings: `airloc log status`, `airloc sense`)")
            }
            (plan.warmUp, plan.sample) = (.zero, .seconds(1))
            quick = .serial(plan)
        case .kernel(var kernel):
            (kernel.warmUp, kernel.sample, kernel.root) = (.zero, .seconds(1), root)
            quick = .kernel(kernel)
        }
        var result = await quick.read()
        for _ in 1..<tries {
            guard case .serial = quick, case .failure(let failure) = result, failure.isDamagedAnswer else { break }
            result = await quick.read()
        }
        switch result {
        case .success(let sample):
            let values = [
                sample.mean.co2PPM.map { "CO₂ \(Int($0.rounded())) ppm" },
                sample.mean.temperatureC.map { String(format: "%.1f °C", $0) },
                sample.mean.relativeHumidity.map { "\(Int($0.rounded())) %" },
                sample.mean.pressureHPa.map { String(format: "%.1f hPa", $0) },
            ].compactMap { $0 }
            return HealthCheck(
                name: name, status: sample.faults.isEmpty ? .ok : .warn,
                detail: "\(sample.model.displayName) on \(sample.source) answers: \(values.joined(separator: ", "))"
                    + (reading.model == .mhZ19 ? " (not preheated)" : ""),
                advice: sample.faults.isEmpty ? nil : "the sensor reports: \(sample.faults.joined(separator: ", "))")
        case .failure(let failure):
            var advice = "check the wiring and the supply of [sensor.\(name.dropFirst("sensor ".count))]"
            if case .kernel = reading { advice = KernelReading.overlay(reading.model) }
            if case .device(_, _, .permission) = failure { advice = "this user may not read it: run as root or airloc" }
            return HealthCheck(name: name, status: .fail, detail: failure.description, advice: advice)
        }
    }

    /// The IIO and hwmon devices whose driver is one airloc reads.
    static func boundClimateDevices(root: URL) -> [(driver: String, bus: KernelClimateSensor.Bus, path: String)] {
        var found: [(String, KernelClimateSensor.Bus, String)] = []
        for bus in [KernelClimateSensor.Bus.iio, .hwmon] {
            let list = root.appendingPathComponent(bus == .iio ? "bus/iio/devices" : "class/hwmon")
            for entry in ((try? FileManager.default.contentsOfDirectory(atPath: list.path)) ?? []).sorted() {
                let directory = list.appendingPathComponent(entry)
                guard let driver = try? KernelClimateSensor(directory: directory, bus: bus).driver(),
                    let model = ClimateModel(rawValue: driver), model.kernelBus == bus
                else { continue }
                found.append((driver, bus, directory.path))
            }
        }
        return found
    }
}
