/// The fields of every logbook row, declared once: the device writes its exports and its
/// published lines from them, the collector makes its tables and checks each row it
/// receives against them (docs/logbook.md lists them for people).
///
/// Contract: a field's name is the `airloc.log/1` key; its type is the JSON value's
/// (`number`, `integer` or `text`, null allowed for every field but the keys); `column`
/// fields get a typed column of their own in the collector's table (every field is in its
/// `payload` too); `position` fields say where the device was and are withheld where the
/// position may not leave the device. A field is added at the end of its kind, never
/// renamed or retyped within `airloc.log/1`.
public enum RowSchema {
    /// The schema every row line names.
    public static let name = "airloc.log/1"

    /// The fields every row starts with: the row's key and time.
    public static let keys: Set<String> = ["id", "kind", "time"]

    /// The fields of `kind`'s rows, in the export's order.
    public static func fields(_ kind: RowKind) -> [RowField] {
        switch kind {
        case .track: return TrackField.allCases.map(RowField.init)
        case .air: return AirField.allCases.map(RowField.init)
        case .sensor: return SensorField.allCases.map(RowField.init)
        }
    }
}

/// A JSON value's type in a row.
public enum FieldType: Sendable, Equatable {
    case number, integer, text
    /// A list of words: a JSON array of strings on the wire and in NDJSON (as `sense --json`
    /// has it), space-separated text in a CSV cell or a PostgreSQL column. A collector also
    /// takes the space-separated string older devices send.
    case words
}

/// One field of a row, as every side sees it (``RowSchema`` has the contract).
public struct RowField: Sendable, Equatable {
    /// The field's `airloc.log/1` key.
    public var name: String
    /// The JSON type of its value.
    public var type: FieldType
    /// True when the collector keeps it in a column of its own.
    public var column: Bool
    /// True when it says where the device was.
    public var position: Bool

    init<Field: RowFieldSet>(_ field: Field) {
        name = field.rawValue
        type = field.type
        column = field.column
        position = field.position
    }
}

/// The fields of one kind, as an enum: the compiler then sees that every field has a
/// value wherever a row is written (an exhaustive switch), and the name is said once.
public protocol RowFieldSet: CaseIterable, Sendable where RawValue == String, Self: RawRepresentable {
    var type: FieldType { get }
    var column: Bool { get }
    var position: Bool { get }
}

extension RowFieldSet {
    /// Every field but the keys has a column of its own, unless its kind says otherwise.
    public var column: Bool { !RowSchema.keys.contains(rawValue) }
}

/// A position: where the device was, when, by which provider.
public enum TrackField: String, RowFieldSet {
    case id, kind, time, latitude, longitude
    case timeSource = "time_source"
    case altitude = "altitude_m"
    case speed = "speed_ms"
    case course = "course_deg"
    case accuracy = "accuracy_m"
    case mode, satellites, provider, segment

    /// The JSON type of the field's value.
    public var type: FieldType {
        switch self {
        case .latitude, .longitude, .altitude, .speed, .course, .accuracy: return .number
        case .satellites, .segment: return .integer
        case .id, .kind, .time, .timeSource, .mode, .provider: return .text
        }
    }

    /// A track row is a position through and through: `position = none` withholds it whole.
    public var position: Bool { true }
}

/// The model's air for an hour where the device was (or a pending hour).
public enum AirField: String, RowFieldSet {
    case id, kind, time, latitude, longitude
    case loggedAt = "logged_at"
    case sentLatitude = "sent_latitude"
    case sentLongitude = "sent_longitude"
    case place
    case usAQI = "us_aqi"
    case category
    case dominantPollutant = "dominant_pollutant"
    case pm2_5, pm10
    case nitrogenDioxide = "nitrogen_dioxide"
    case sulphurDioxide = "sulphur_dioxide"
    case ozone
    case carbonMonoxide = "carbon_monoxide"
    case europeanAQI = "european_aqi"
    case pollen, source, reason, segment

    /// The pollutants' fields, in the export's order (their names are Open-Meteo's).
    public static let pollutants: [AirField] = [
        .pm2_5, .pm10, .nitrogenDioxide, .sulphurDioxide, .ozone, .carbonMonoxide,
    ]

    /// The JSON type of the field's value.
    public var type: FieldType {
        switch self {
        case .latitude, .longitude, .sentLatitude, .sentLongitude, .pm2_5, .pm10, .nitrogenDioxide,
            .sulphurDioxide, .ozone, .carbonMonoxide:
            return .number
        case .usAQI, .europeanAQI, .segment: return .integer
        case .id, .kind, .time, .loggedAt, .place, .category, .dominantPollutant, .pollen, .source, .reason:
            return .text
        }
    }

    /// The sent point, pollen and the reason stay in the payload only.
    public var column: Bool {
        switch self {
        case .id, .kind, .time, .sentLatitude, .sentLongitude, .pollen, .reason: return false
        default: return true
        }
    }

    /// The point sent to Open-Meteo is coarse, but a position; so is the place's name.
    public var position: Bool {
        [.latitude, .longitude, .sentLatitude, .sentLongitude, .place].contains(self)
    }
}

/// A reading of a sensor, where it was made: the particulate one of `[sensor]` (its PM
/// values) or a CO₂ or climate one of `[sensor.NAME]` (PM null, its own values), told
/// apart by `name`.
public enum SensorField: String, RowFieldSet {
    case id, kind, time, latitude, longitude
    case timeSource = "time_source"
    case model, serial
    case pm1_0, pm2_5, pm4_0, pm10
    case pm2_5CF1 = "pm2_5_cf1"
    case temperature = "temperature_c"
    case humidity = "relative_humidity"
    case samples
    case window = "window_s"
    case usAQI = "us_aqi"
    case correctedPM2_5 = "corrected_pm2_5"
    case flags, segment
    /// `sensor` for `[sensor]`, NAME for `[sensor.NAME]` (rows logged before it: null).
    case name
    case co2 = "co2_ppm"
    case pressure = "pressure_hpa"

    /// The JSON type of the field's value.
    public var type: FieldType {
        switch self {
        case .latitude, .longitude, .pm1_0, .pm2_5, .pm4_0, .pm10, .pm2_5CF1, .temperature, .humidity, .window,
            .correctedPM2_5, .co2, .pressure:
            return .number
        case .samples, .usAQI, .segment: return .integer
        case .id, .kind, .time, .timeSource, .model, .serial, .name: return .text
        case .flags: return .words
        }
    }

    /// The CF=1 value and the window stay in the payload only.
    public var column: Bool {
        switch self {
        case .id, .kind, .time, .pm2_5CF1, .window: return false
        default: return true
        }
    }

    /// The reading's place.
    public var position: Bool { self == .latitude || self == .longitude }
}
