import Readings
import Sensors

extension ConfigurationKey {
    /// `[sensor]`, the particulate sensor on the serial port (docs/sensors.md).
    static let sensorKeys: [ConfigurationKey] = [
        choice("sensor", "model", SensorModel.self, extra: ["none"]) { $0.sensor.model = $1 },
        text("sensor", "device", "a device path (/dev/...)") {
            $0.hasPrefix("/")
        } set: {
            $0.sensor.device = $1
        },
        number("sensor", "warm-up-seconds", "seconds", 0...600) { $0.sensor.warmUpSeconds = $1 },
        number("sensor", "sample-seconds", "seconds", 1...600) { $0.sensor.sampleSeconds = $1 },
        number("sensor", "interval", "seconds", 10...86400) { $0.sensor.interval = $1 },
        ConfigurationKey("sensor", "sleep-between", "yes or no") { settings, value in
            guard let flag = ["yes": true, "no": false][value] else { return false }
            settings.sensor.sleepBetween = flag
            return true
        },
        number("sensor", "timeout", "seconds", 1...120) { $0.sensor.timeout = $1 },
        choice("sensor", "correction", SensorSample.Correction.self) { settings, correction in
            if let correction { settings.sensor.correction = correction }
        },
        number("sensor", "humidity-limit", "%", 1...100) { $0.sensor.humidityLimit = $1 },
        text("sensor", "humidity-from", "the NAME of a [sensor.NAME] that measures humidity") {
            !$0.isEmpty && $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
        } set: {
            $0.sensor.humidityFrom = $1
        },
    ]
}
