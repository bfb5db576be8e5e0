import Foundation
import Platform
import Readings
import Sensors
import Settings

/// The keys of a `[sensor.NAME]` section (docs/sensors.md): any number of CO₂ and climate
/// sensors beside `[sensor]`, so not rows of ``ConfigurationKey/all``.
///
/// Contract: a section's name is letters, digits, `-` and `_` (not `sensor`, which is the
/// `[sensor]` section's own name in `sense --json`); it is made on its first key; a value of
/// the wrong form is an error naming the file, the line, the key and what it takes.
/// Whether the keys fit together (a `device` for a UART model, `iio` or `hwmon` for a
/// kernel one) is said where the sensor is read (``ClimateSensorSettings/reading``).
public struct ClimateSensorKey: Sendable {
    /// The key.
    public let name: String
    /// What its value must be.
    public let expected: String
    let apply: @Sendable (inout ClimateSensorSettings, String) -> Bool

    init(_ name: String, _ expected: String, _ apply: @escaping @Sendable (inout ClimateSensorSettings, String) -> Bool)
    {
        (self.name, self.expected, self.apply) = (name, expected, apply)
    }

    static func seconds(
        _ name: String, _ range: ClosedRange<Double>,
        _ set: @escaping @Sendable (inout ClimateSensorSettings, Double) -> Void
    ) -> ClimateSensorKey {
        ClimateSensorKey(name, "seconds, \(Int(range.lowerBound))-\(Int(range.upperBound))") { settings, value in
            guard let number = Double(value), range.contains(number) else { return false }
            set(&settings, number)
            return true
        }
    }

    static func path(_ name: String, _ set: @escaping @Sendable (inout ClimateSensorSettings, String) -> Void)
        -> ClimateSensorKey
    {
        ClimateSensorKey(name, "a sysfs directory (/sys/...) or auto") { settings, value in
            guard value == "auto" || (value.hasPrefix("/") && !value.contains("\0")) else { return false }
            set(&settings, value)
            return true
        }
    }

    /// Every key a `[sensor.NAME]` section takes.
    public static let all: [ClimateSensorKey] = [
        ClimateSensorKey("model", ClimateModel.allCases.map(\.rawValue).joined(separator: ", ")) { settings, value in
            guard let model = ClimateModel(rawValue: value) else { return false }
            settings.model = model
            return true
        },
        ClimateSensorKey("device", "a device path (/dev/...)") { settings, value in
            guard value.hasPrefix("/"), !value.contains("\0") else { return false }
            settings.device = value
            return true
        },
        path("iio") { $0.iio = $1 },
        path("hwmon") { $0.hwmon = $1 },
        seconds("warm-up-seconds", 0...600) { $0.warmUpSeconds = $1 },
        seconds("sample-seconds", 1...600) { $0.sampleSeconds = $1 },
        // A CO₂ or climate sensor wears nothing out by being read (a particulate sensor's fan
        // and laser do): as often as every 2 s, the SCD30's own measuring interval.
        seconds("interval", 2...86_400) { $0.interval = $1 },
        seconds("timeout", 1...120) { $0.timeout = $1 },
        ClimateSensorKey("abc", "on or off (MH-Z19: automatic baseline calibration)") { settings, value in
            guard let flag = ["on": true, "off": false][value] else { return false }
            settings.abc = flag
            return true
        },
    ]

    /// Applies `key = value` of section `[sensor.NAME]`; an error in the file's words.
    static func apply(section: String, key: String, value: String, at: String, to settings: inout Settings)
        throws(ConfigurationError)
    {
        let name = String(section.dropFirst("sensor.".count))
        guard !name.isEmpty, name.count <= 40, name != "sensor",
            name.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.union(.init(charactersIn: "-_")).contains($0) })
        else {
            throw ConfigurationError(
                "\(at): [\(section)]: a sensor's name is letters, digits, - and _ (and not 'sensor', the [sensor] "
                    + "section's own)")
        }
        guard let known = all.first(where: { $0.name == key }) else {
            let hint = suggestion(for: key, among: all.map(\.name)).map { " (did you mean '\($0)'?)" }
            throw ConfigurationError("\(at): unknown key '\(key)' in [\(section)]\(hint ?? "")")
        }
        var entry = settings.climateSensors.first { $0.name == name } ?? ClimateSensorSettings(name: name)
        guard known.apply(&entry, value) else {
            throw ConfigurationError(
                "\(at): invalid value '\(value)' for \(key) in [\(section)]: expected \(known.expected)")
        }
        if let index = settings.climateSensors.firstIndex(where: { $0.name == name }) {
            settings.climateSensors[index] = entry
        } else {
            settings.climateSensors.append(entry)
        }
    }
}
