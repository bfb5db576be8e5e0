import FleetWire
import Foundation
import Geo
import Readings
import Sensors
import Testing

@testable import Logbook

/// The row schema is declared once (FleetWire's ``RowSchema``): what the device writes is
/// exactly its fields, in its order, each of its type — so the collector, which builds its
/// tables and checks rows from the same table, cannot disagree with the device.
@Suite struct RowSchemaTests {
    static let point: TrackPoint = {
        var point = TrackPoint(
            time: Date(timeIntervalSince1970: 1_795_000_000.25), timeSource: "gps",
            fix: Fix(
                coordinate: Coordinate(uncheckedLatitude: 52.523_456, longitude: 13.411_987), source: .gps,
                horizontalAccuracy: 4, altitudeMSL: 35, speed: 1.5, track: 90, mode: .threeD, satellitesUsed: 9),
            provider: "gpsd", segment: 3)
        point.id = 42
        return point
    }()

    static let record: AirRecord = {
        var values = AirValues()
        values.usAQI = 41
        values.category = "good"
        values.pollutants["pm2_5"] = 8.8
        var record = AirRecord(
            hour: Date(timeIntervalSince1970: 1_795_000_000), loggedAt: Date(timeIntervalSince1970: 1_795_000_120),
            coordinate: Coordinate(uncheckedLatitude: 52.52, longitude: 13.41),
            sentCoordinate: Coordinate(uncheckedLatitude: 52.52, longitude: 13.41), place: "Berlin, Germany",
            values: values, source: .live, segment: 3)
        record.id = 7
        return record
    }()

    static let reading = SensorRecord(
        id: 3, name: "sensor", time: Date(timeIntervalSince1970: 1_795_000_060), timeSource: "system",
        coordinate: Coordinate(uncheckedLatitude: 52.52, longitude: 13.41), model: "sds011", serial: "a160",
        particulate: ParticulateValues(pm2_5: 12.5, pm10: 20), climate: nil, samples: 9, windowSeconds: 9, usAQI: 52,
        correctedPM2_5: nil, flags: ["warm-up-cut-short"], segment: 3)

    /// Checks `line` against `kind`'s fields: the same names, each value of its type or null.
    static func conforms(_ line: String, _ kind: RowKind) throws {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["schema"] as? String == RowSchema.name)
        #expect(Set(object.keys) == Set(kind.fields.map(\.name) + ["schema"]), "\(kind): \(line)")
        for field in kind.fields {
            let value = try #require(object[field.name], "\(field.name) missing")
            if value is NSNull { continue }
            switch field.type {
            case .text: #expect(value is String, "\(kind).\(field.name) is text")
            case .words: #expect(value is [String], "\(kind).\(field.name) is a list of words")
            case .integer: #expect((value as? NSNumber).map { $0.doubleValue.rounded() == $0.doubleValue } == true)
            case .number: #expect(value is NSNumber && !(value is String), "\(kind).\(field.name) is a number")
            }
        }
    }

    @Test func everyRowIsTheSchemasFieldsOfTheSchemasTypes() throws {
        try Self.conforms(LogFields.trackJSON(Self.point), .track)
        try Self.conforms(LogFields.airJSON(Self.record), .air)
        try Self.conforms(LogFields.sensorJSON(Self.reading), .sensor)
        #expect(LogFields.trackValues(Self.point).map(\.0) == RowKind.track.fields.map(\.name), "in the schema's order")
    }

    @Test func theFastTrackLineIsTheSchemasLine() {
        // The export's hot path writes a track line by hand: it must be the declared one.
        #expect(LogFields.trackJSON(Self.point) == LogFields.json(LogFields.trackValues(Self.point)))
    }

    @Test func withoutThePositionEveryPositionFieldIsNull() throws {
        let air = try #require(
            try JSONSerialization.jsonObject(with: Data(LogFields.airJSON(Self.record, position: false).utf8))
                as? NSDictionary)
        let full = try #require(
            try JSONSerialization.jsonObject(with: Data(LogFields.airJSON(Self.record).utf8)) as? NSDictionary)
        for field in RowKind.air.fields {
            if field.position {
                #expect(air[field.name] is NSNull, "\(field.name) is withheld")
            } else {
                #expect((air[field.name] as? NSObject) == (full[field.name] as? NSObject), "\(field.name) is kept")
            }
        }
        #expect(full["place"] as? String == "Berlin, Germany" && full["us_aqi"] as? Int == 41)
        let sensor = try #require(
            try JSONSerialization.jsonObject(with: Data(LogFields.sensorJSON(Self.reading, position: false).utf8))
                as? [String: Any])
        #expect(sensor["latitude"] is NSNull && sensor["longitude"] is NSNull && sensor["pm2_5"] as? Double == 12.5)
    }
}
