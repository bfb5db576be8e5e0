import Foundation
import Readings
import TestSupport
import Testing

@testable import Sensors

/// A kernel sensor's reading over its sample window, on a sysfs-shaped directory and a
/// clock that does not wait: a read the driver could not make is tried again at the next
/// second and never a value; a window of nothing but such reads fails; `auto` finds the
/// device by its driver, or says which overlay binds one.
@Suite struct KernelReadingTests {
    /// Counts the seconds slept instead of sleeping them.
    final class Seconds: @unchecked Sendable {
        var slept: [Duration] = []
        var onSleep: () -> Void = {}
    }

    @Test func aBusyReadIsTriedAgainAtTheNextSecondAndNeverCounted() async throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        let directory = try KernelClimateSensorTests.device(
            root, "iio:device0", ["name": "dht11", "in_humidityrelative_input": "40000"])
        let temperature = directory.appendingPathComponent("in_temp_input")
        // The first read fails with EIO (/proc/self/mem at offset 0); then the driver reads.
        try FileManager.default.createSymbolicLink(atPath: temperature.path, withDestinationPath: "/proc/self/mem")
        let clock = Seconds()
        clock.onSleep = {
            try? FileManager.default.removeItem(at: temperature)
            try? "21000\n".write(to: temperature, atomically: true, encoding: .utf8)
        }
        let reading = KernelReading(model: .dht11, bus: .iio, path: nil, sample: .seconds(3), root: root.url)
        let sample = try await reading.read { duration in
            clock.slept.append(duration)
            if duration > .zero { clock.onSleep() }
        }.get()
        #expect(sample.samples == 2, "the busy read is not a sample: \(sample)")
        #expect(sample.mean.temperatureC == 21 && sample.mean.relativeHumidity == 40)
        #expect(sample.source == directory.path)
        #expect(clock.slept == [.zero, .seconds(1), .seconds(1)], "a second between reads, no wall clock")
    }

    @Test func aWindowOfBusyReadsFailsAndSaysSo() async throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        let directory = try KernelClimateSensorTests.device(root, "iio:device0", ["name": "dht11"])
        try FileManager.default.createSymbolicLink(
            atPath: directory.appendingPathComponent("in_temp_input").path, withDestinationPath: "/proc/self/mem")
        let reading = KernelReading(model: .dht11, bus: .iio, path: directory.path, sample: .seconds(4))
        let outcome = await reading.read { _ in }
        guard case .failure(.device(let path, let reason, _)) = outcome else {
            Issue.record("a window of EIO is no reading: \(outcome)")
            return
        }
        #expect(path == directory.path && reason.contains("at every try of the sample window"), "\(reason)")
    }

    @Test func autoSaysWhichOverlayBindsAMissingDriver() async throws {
        let root = try TemporaryDirectory()
        defer { root.remove() }
        _ = try KernelClimateSensorTests.device(root, "iio:device0", ["name": "ads1015"])
        let outcome = await KernelReading(model: .bme280, bus: .iio, path: nil, root: root.url).read { _ in }
        guard case .failure(.device(let path, let reason, let kind)) = outcome else {
            Issue.record("no bme280: \(outcome)")
            return
        }
        #expect(path == "iio:auto" && kind == .missing)
        #expect(reason.contains("dtoverlay=i2c-sensor,bme280"), "\(reason)")
    }
}

/// A value no sensor can say is not a reading: an SCD30 float of 1e30 ppm (fuzzing found
/// it; the display could not make it a whole number) or a kernel raw value scaled past sense.
@Suite struct ImpossibleClimateValuesTests {
    @Test func valuesBeyondWhatAnySensorSaysAreLeftOut() {
        let values = ClimateValues(co2PPM: 1e30, temperatureC: 21.5, relativeHumidity: 300, pressureHPa: .infinity)
        #expect(values.co2PPM == nil && values.relativeHumidity == nil && values.pressureHPa == nil)
        #expect(values.temperatureC == 21.5, "what is possible stays as the sensor said it")
        #expect(ClimateValues(co2PPM: 100_001).isEmpty)
    }
}
