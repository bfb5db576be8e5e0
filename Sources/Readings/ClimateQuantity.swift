/// One thing a CO₂ or climate sensor measures, with the names each outlet gives it: the
/// row's field, Home Assistant's device class and unit, the Prometheus metric.
///
/// Contract: the units are the ones ``ClimateValues`` holds (ppm, °C, %, hPa) and the ones
/// each outlet is told; nothing converts on the way out but where an outlet's own rule
/// asks for it (sensor.community's pressure in Pa, in its own format).
public enum ClimateQuantity: String, Sendable, CaseIterable {
    case co2 = "co2_ppm"
    case temperature = "temperature_c"
    case humidity = "relative_humidity"
    case pressure = "pressure_hpa"

    /// The value of this quantity in `values`.
    public func value(in values: ClimateValues) -> Double? {
        switch self {
        case .co2: return values.co2PPM
        case .temperature: return values.temperatureC
        case .humidity: return values.relativeHumidity
        case .pressure: return values.pressureHPa
        }
    }

    /// What any sensor of it can say: CO₂ 0–100,000 ppm, −100–200 °C, −10–120 % (a humidity
    /// sensor's calibration may overshoot 0 and 100 a little), 100–2,000 hPa. Beyond that a
    /// number is no air (a damaged frame whose checksum held, a kernel value scaled past
    /// sense) and is not kept: fuzzing found an SCD30 float of 1e30 ppm that the display
    /// could not turn into a whole number.
    public var possible: ClosedRange<Double> {
        switch self {
        case .co2: return 0...100_000
        case .temperature: return -100...200
        case .humidity: return -10...120
        case .pressure: return 100...2_000
        }
    }

    /// The decimals a reading of it is kept, exported and served with (docs/sensors.md):
    /// CO₂ in whole ppm, °C to 0.01, % to 0.1, hPa to 0.01. Finer digits are the sensor's
    /// noise and the float's, not the air.
    public var decimals: Int {
        switch self {
        case .co2: return 0
        case .temperature, .pressure: return 2
        case .humidity: return 1
        }
    }

    /// `value` at ``decimals``.
    public func rounded(_ value: Double) -> Double {
        let scale = [1.0, 10, 100][decimals]
        return (value * scale).rounded() / scale
    }

    /// Its name for people ("CO₂").
    public var displayName: String {
        switch self {
        case .co2: return "CO₂"
        case .temperature: return "Temperature"
        case .humidity: return "Humidity"
        case .pressure: return "Pressure"
        }
    }

    /// Its unit as Home Assistant and people read it.
    public var unit: String {
        switch self {
        case .co2: return "ppm"
        case .temperature: return "°C"
        case .humidity: return "%"
        case .pressure: return "hPa"
        }
    }

    /// Home Assistant's sensor device class.
    public var deviceClass: String {
        switch self {
        case .co2: return "carbon_dioxide"
        case .temperature: return "temperature"
        case .humidity: return "humidity"
        case .pressure: return "atmospheric_pressure"
        }
    }

    /// The Prometheus metric (base units where Prometheus has one: °C, hPa as named).
    public var metric: String {
        switch self {
        case .co2: return "airloc_co2_ppm"
        case .temperature: return "airloc_temperature_celsius"
        case .humidity: return "airloc_relative_humidity_percent"
        case .pressure: return "airloc_pressure_hectopascals"
        }
    }

    /// The value as a short text with its unit ("612 ppm", "21.4 °C", "45 %", "1013.2 hPa").
    public func text(_ value: Double) -> String {
        switch self {
        case .co2: return "\(Int(value.rounded())) ppm"
        case .humidity: return "\(Int(value.rounded())) %"
        case .temperature, .pressure:
            let tenths = (value * 10).rounded() / 10
            return "\(tenths == tenths.rounded() ? String(Int(tenths)) : String(tenths)) \(unit)"
        }
    }
}

extension ClimateModel {
    /// What the model measures (docs/sensors.md): a value it does not is never shown.
    public var quantities: [ClimateQuantity] {
        switch self {
        case .mhZ19, .senseairS8: return [.co2]
        case .scd30, .scd4x: return [.co2, .temperature, .humidity]
        case .bme280, .bme680: return [.temperature, .humidity, .pressure]
        case .bmp280: return [.temperature, .pressure]
        case .dht11, .sht3x, .sht4x, .htu21: return [.temperature, .humidity]
        }
    }
}
