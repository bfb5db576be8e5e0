/// The typed columns of each row table in the collector's database: declared once, so
/// the schema, the check of a published row and the insert cannot disagree.
///
/// Contract: every table has `device_id`, `id`, `n`, `revision`, `time`, `stored_at`
/// and `payload` (the published line, jsonb) besides these; a column's name is the export's
/// field name, so a row's columns read as its NDJSON line does.
public struct Column: Sendable, Equatable {
    public enum ValueType: Sendable, Equatable {
        case number, integer, text

        var sql: String {
            switch self {
            case .number: return "double precision"
            case .integer: return "bigint"
            case .text: return "text"
            }
        }
    }

    public var name: String
    public var type: ValueType

    init(_ name: String, _ type: ValueType) {
        self.name = name
        self.type = type
    }

    /// The columns every kind has beyond the key and time: where it was.
    static let place: [Column] = [.init("latitude", .number), .init("longitude", .number)]

    public static func of(_ kind: DeviceRow.Kind) -> [Column] {
        switch kind {
        case .track:
            return place + [
                .init("time_source", .text), .init("altitude_m", .number), .init("speed_ms", .number),
                .init("course_deg", .number), .init("accuracy_m", .number), .init("mode", .text),
                .init("satellites", .integer), .init("provider", .text), .init("segment", .integer),
            ]
        case .air:
            return place + [
                .init("logged_at", .text), .init("place", .text), .init("us_aqi", .integer), .init("category", .text),
                .init("dominant_pollutant", .text), .init("pm2_5", .number), .init("pm10", .number),
                .init("nitrogen_dioxide", .number), .init("sulphur_dioxide", .number), .init("ozone", .number),
                .init("carbon_monoxide", .number), .init("european_aqi", .integer), .init("source", .text),
                .init("segment", .integer),
            ]
        case .sensor:
            return place + [
                .init("time_source", .text), .init("model", .text), .init("serial", .text), .init("pm1_0", .number),
                .init("pm2_5", .number), .init("pm4_0", .number), .init("pm10", .number),
                .init("temperature_c", .number), .init("relative_humidity", .number), .init("samples", .integer),
                .init("us_aqi", .integer), .init("corrected_pm2_5", .number), .init("flags", .text),
                .init("segment", .integer),
            ]
        }
    }
}
