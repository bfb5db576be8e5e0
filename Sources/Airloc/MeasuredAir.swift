import AirQuality
import Foundation
import Readings
import Sensors

/// What the particulate sensor says beside the model's value: a reading (made now, or the
/// logger's latest when the logger holds the sensor), or why there is none.
///
/// Contract: a report without a sensor configured has none of this (nil); a sensor that
/// fails makes ``failed(_:)``, never a failed report. `nowcastUSAQI` is the EPA NowCast
/// of the logbook's measured hours, where at least 2 of the last 3 hours hold readings.
public enum MeasuredAir: Sendable {
    case reading(MeasuredReading)
    case failed(SensorFailure)
}

/// A reading for a report.
public struct MeasuredReading: Sendable {
    /// The reading.
    public var sample: SensorSample
    /// Seconds since the reading ended (0 for one made for this report).
    public var ageSeconds: Double
    /// True when it is the logger's latest row (the logger holds the sensor).
    public var fromLogbook: Bool
    /// The NowCast of the logbook's measured hours.
    public var nowcastUSAQI: Int?
    /// The logger that holds the sensor, when the reading is its latest for that reason.
    public var heldBy: Int32?
    /// How old it may be and still stand for now (``SensorSettings/freshness``; nil: made
    /// for this report).
    public var window: Double?

    /// Whether it still stands for now: a reading past its window (a sensor unplugged, a
    /// logger stopped) leads nothing, and its values are left out where "now" is served.
    public var isFresh: Bool { window.map { ageSeconds < $0 } ?? true }

    /// A reading, `ageSeconds` old.
    public init(
        sample: SensorSample, ageSeconds: Double = 0, fromLogbook: Bool = false, nowcastUSAQI: Int? = nil,
        heldBy: Int32? = nil, window: Double? = nil
    ) {
        (self.sample, self.ageSeconds, self.fromLogbook, self.nowcastUSAQI) =
            (sample, ageSeconds, fromLogbook, nowcastUSAQI)
        (self.heldBy, self.window) = (heldBy, window)
    }
}

/// `measured` in `airloc.report/1`: the `airloc.sense/1` fields without `schema` (null
/// after a failure), how old the reading is, where it came from, the NowCast, and `error`
/// (null unless the sensor failed).
public struct MeasuredJSON: Encodable {
    /// The reading's values, as `airloc.sense/1` writes them (null after a failure).
    public var particulate = ParticulateJSON()
    /// What may make it mislead.
    public var flags: [String]?
    /// How old it is, seconds.
    public var ageS: Double?
    /// "sensor" (read for this report) or "logbook" (the logger's latest).
    public var source: String?
    /// The NowCast AQI of the measured hours.
    public var nowcastUsAqi: Int?
    /// The AQI the card shows for the measured air: the NowCast, else `us_aqi`.
    public var headlineUsAqi: Int?
    /// "nowcast" or "instantaneous estimate".
    public var headlineBasis: String?
    /// The EPA category's key of `headline_us_aqi`.
    public var category: String?
    /// The category's name.
    public var categoryName: String?
    /// The category's colour (#RRGGBB).
    public var color: String?
    /// What the category means.
    public var description: String?
    /// What to do about it.
    public var advice: String?
    /// The European index of the measured PM, as Open-Meteo computes the model's.
    public var europeanAqi: Int?
    /// True when the card leads with the measured air (a fresh reading with an index)
    /// rather than the model's.
    public var leads: Bool
    /// Why there is no reading.
    public var error: JSONError?
    /// CO₂, ppm: the first `[sensor.NAME]` sensor's that measures it.
    public var co2Ppm: Double?
    /// The band of `co2_ppm` (`good`, `moderate`, `poor`).
    public var co2Band: String?
    /// Air pressure, hPa: the first `[sensor.NAME]` sensor's that measures it.
    public var pressureHpa: Double?
    /// Every `[sensor.NAME]` sensor's reading, as `sense --json` lists them.
    public var sensors: [SenseJSON.Sensor] = []

    /// The object of `measured` of `report`: nil without any sensor configured.
    public static func of(_ report: AirReport) -> MeasuredJSON? {
        guard report.measured != nil || !report.climateSensors.isEmpty else { return nil }
        var json = report.measured.map(MeasuredJSON.init) ?? MeasuredJSON()
        json.climate(report.climateSensors)
        return json
    }

    private init() { leads = false }

    /// With the `[sensor.NAME]` sensors' values: the first CO₂ and pressure at the top, the
    /// temperature and humidity there too when the particulate sensor has none.
    mutating func climate(_ sensors: [MeasuredClimate]) {
        if let co2 = MeasuredClimate.first(.co2, in: sensors)?.value {
            co2Ppm = co2
            co2Band = CO2Band(ppm: co2).rawValue
        }
        pressureHpa = MeasuredClimate.first(.pressure, in: sensors)?.value
        particulate.temperatureC = particulate.temperatureC ?? MeasuredClimate.first(.temperature, in: sensors)?.value
        particulate.relativeHumidity =
            particulate.relativeHumidity ?? MeasuredClimate.first(.humidity, in: sensors)?.value
        self.sensors = sensors.map { sensor in
            var entry = SenseJSON.Sensor(
                name: sensor.name, model: sensor.model.rawValue, key: sensor.place.key, value: sensor.place.value)
            switch sensor.outcome {
            case .success(let sample):
                entry.set(sample)
                entry.ageS = sensor.fromLogbook ? (sensor.ageSeconds * 10).rounded() / 10 : nil
            case .failure(let failure): entry.error = failure.description
            }
            return entry
        }
    }

    /// The object of `measured`.
    public init(_ measured: MeasuredAir) {
        leads = false
        switch measured {
        case .failed(let failure):
            error = JSONError(code: 69, message: failure.description)
        case .reading(let reading):
            particulate = ParticulateJSON(reading.sample)
            flags = reading.sample.flags.map(\.rawValue)
            ageS = (reading.ageSeconds * 10).rounded() / 10
            source = reading.fromLogbook ? "logbook" : "sensor"
            nowcastUsAqi = reading.nowcastUSAQI
            if let headline = AirHeadline.measured(reading) {
                let category = headline.category
                (headlineUsAqi, headlineBasis) = (headline.usAQI, headline.basis)
                (self.category, categoryName, color) = (category.rawValue, category.name, category.color)
                (description, advice) = (category.description, category.advice)
                leads = true
                europeanAqi = headline.europeanAQI
            }
        }
    }
}
