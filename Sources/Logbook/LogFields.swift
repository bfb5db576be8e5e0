import FleetWire
import Foundation
import Geo
import Platform

/// The fields of a logbook row in each export format: one place for names, order and
/// number formatting, so NDJSON, CSV, GPX and GeoJSON cannot drift apart.
///
/// Contract: `airloc.log/1` field names (docs/logbook.md); numbers in their shortest
/// exact decimal form; text JSON- or XML-escaped, CSV fields quoted when they hold a
/// comma, quote or line break.
enum LogFields {
    static let schema = "airloc.log/1"

    // MARK: values

    /// ISO 8601 UTC with `Z`, milliseconds only when there are any. ``UTCTime``, not
    /// Foundation's formatters: those cost more than the rest of an export row together.
    static func time(_ date: Date) -> String { UTCTime.iso8601(date) }

    static func number(_ value: Double?) -> String? {
        guard let value, value.isFinite else { return nil }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    static func mode(_ mode: Int?) -> String? {
        switch mode {
        case 2?: return "2d"
        case 3?: return "3d"
        case 1?: return "none"
        default: return nil
        }
    }

    /// A field value: a JSON number, or text, or nothing.
    enum Value {
        case number(String?)
        case text(String?)
        /// A list of words (``FieldType/words``).
        case words([String])
    }

    /// A track row's fields, named and ordered by ``TrackField`` (the schema both sides read).
    static func trackValues(_ p: TrackPoint) -> [(String, Value)] {
        TrackField.allCases.map { ($0.rawValue, value($0, of: p)) }
    }

    static func value(_ field: TrackField, of p: TrackPoint) -> Value {
        switch field {
        case .id: return .text("t\(p.id)")
        case .kind: return .text(RowKind.track.rawValue)
        case .time: return .text(time(p.time))
        case .latitude: return .number(number(p.coordinate.latitude))
        case .longitude: return .number(number(p.coordinate.longitude))
        case .timeSource: return .text(p.timeSource)
        case .altitude: return .number(number(p.altitude))
        case .speed: return .number(number(p.speed))
        case .course: return .number(number(p.course))
        case .accuracy: return .number(number(p.accuracy))
        case .mode: return .text(mode(p.mode))
        case .satellites: return .number(p.satellites.map(String.init))
        case .provider: return .text(p.provider)
        case .segment: return .number(String(p.segment))
        }
    }

    /// An air row's fields, named and ordered by ``AirField``.
    static func airValues(_ r: AirRecord) -> [(String, Value)] {
        AirField.allCases.map { ($0.rawValue, value($0, of: r)) }
    }

    static func value(_ field: AirField, of r: AirRecord) -> Value {
        switch field {
        case .id: return .text("a\(r.id)")
        case .kind: return .text(RowKind.air.rawValue)
        case .time: return .text(time(r.hour))
        case .latitude: return .number(number(r.coordinate.latitude))
        case .longitude: return .number(number(r.coordinate.longitude))
        case .loggedAt: return .text(time(r.loggedAt))
        case .sentLatitude: return .number(number(r.sentCoordinate.latitude))
        case .sentLongitude: return .number(number(r.sentCoordinate.longitude))
        case .place: return .text(r.place)
        case .usAQI: return .number(r.values.usAQI.map(String.init))
        case .category: return .text(r.values.category)
        case .dominantPollutant: return .text(r.values.dominantPollutant)
        case .pm2_5, .pm10, .nitrogenDioxide, .sulphurDioxide, .ozone, .carbonMonoxide:
            return .number(number(r.values.pollutants[field.rawValue]))
        case .europeanAQI: return .number(r.values.europeanAQI.map(String.init))
        case .pollen: return .text(r.values.pollen)
        case .source: return .text(r.source.rawValue)
        case .reason: return .text(r.reason)
        case .segment: return .number(String(r.segment))
        }
    }

    // MARK: JSON

    static func json(_ fields: [(String, Value)]) -> String {
        var line = "{\"schema\":\"\(schema)\""
        for (name, value) in fields {
            line += ",\"\(name)\":"
            switch value {
            case .number(let text): line += text ?? "null"
            case .text(let text): line += text.map(jsonString) ?? "null"
            case .words(let words): line += "[" + words.map(jsonString).joined(separator: ",") + "]"
            }
        }
        return line + "}"
    }

    /// A track row's NDJSON line, written directly (the hot path of a big export).
    static func trackJSON(_ p: TrackPoint) -> String {
        var line = "{\"schema\":\"\(schema)\",\"id\":\"t\(p.id)\",\"kind\":\"track\",\"time\":\""
        line += time(p.time)
        line += "\",\"latitude\":" + (number(p.coordinate.latitude) ?? "null")
        line += ",\"longitude\":" + (number(p.coordinate.longitude) ?? "null")
        line += ",\"time_source\":" + jsonString(p.timeSource)
        line += ",\"altitude_m\":" + (number(p.altitude) ?? "null")
        line += ",\"speed_ms\":" + (number(p.speed) ?? "null")
        line += ",\"course_deg\":" + (number(p.course) ?? "null")
        line += ",\"accuracy_m\":" + (number(p.accuracy) ?? "null")
        line += ",\"mode\":" + (mode(p.mode).map { "\"\($0)\"" } ?? "null")
        line += ",\"satellites\":" + (p.satellites.map(String.init) ?? "null")
        line += ",\"provider\":" + jsonString(p.provider)
        line += ",\"segment\":\(p.segment)}"
        return line
    }
    /// An air row's line; without `position` (what is published under `[mqtt] position =
    /// none`) every field that says where is null: the device's latitude and longitude,
    /// the point sent to Open-Meteo (a coarse position, but a position) and the place name.
    static func airJSON(_ record: AirRecord, position: Bool = true) -> String {
        guard !position else { return json(airValues(record)) }
        return json(
            AirField.allCases.map { field in
                guard field.position else { return (field.rawValue, value(field, of: record)) }
                return (field.rawValue, field.type == .text ? .text(nil) : .number(nil))
            })
    }

    static func jsonString(_ text: String) -> String { JSONText.quoted(text) }

    // MARK: CSV

    static let csvColumns: [String] = {
        var names: [String] = []
        let sensor = sensorValues(placeholderSensor).map { (csvSensorName($0.0), $0.1) }
        for (name, _) in trackValues(placeholderPoint) + airValues(placeholderRecord) + sensor
        where !names.contains(name) {
            names.append(name)
        }
        return names
    }()

    /// For each CSV column, the index of the field in a track (or air) row's list, or nil.
    static let trackColumns: [Int?] = {
        let names = trackValues(placeholderPoint).map(\.0)
        return csvColumns.map { names.firstIndex(of: $0) }
    }()
    static let airColumns: [Int?] = {
        let names = airValues(placeholderRecord).map(\.0)
        return csvColumns.map { names.firstIndex(of: $0) }
    }()

    static func csvRow(_ fields: [(String, Value)], columns: [Int?]) -> String {
        var line = ""
        for (position, index) in columns.enumerated() {
            if position > 0 { line += "," }
            guard let index else { continue }
            switch fields[index].1 {
            case .number(let text?): line += text
            case .text(let text?): line += csvField(text)
            case .words(let words): line += csvField(words.joined(separator: " "))
            default: break
            }
        }
        return line + "\r\n"
    }

    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static let placeholderPoint = TrackPoint(
        time: Date(timeIntervalSince1970: 0),
        fix: .init(coordinate: .init(uncheckedLatitude: 0, longitude: 0), source: .gps),
        provider: "", segment: 0)
    static let placeholderRecord = AirRecord(
        hour: Date(timeIntervalSince1970: 0), loggedAt: Date(timeIntervalSince1970: 0),
        coordinate: .init(uncheckedLatitude: 0, longitude: 0),
        sentCoordinate: .init(uncheckedLatitude: 0, longitude: 0),
        place: nil, source: .pending, segment: 0)

    // MARK: GPX

    static func xml(_ text: String) -> String { XMLText.escape(text) }

    static func gpxPoint(_ p: TrackPoint) -> String {
        var text = "      <trkpt lat=\"\(number(p.coordinate.latitude)!)\" lon=\"\(number(p.coordinate.longitude)!)\">"
        if let altitude = number(p.altitude) { text += "<ele>\(altitude)</ele>" }
        text += "<time>\(time(p.time))</time>"
        // GPX 1.1's order: ele, time, ..., fix, sat.
        if let mode = mode(p.mode) { text += "<fix>\(mode)</fix>" }
        if let satellites = p.satellites { text += "<sat>\(satellites)</sat>" }
        return text + "</trkpt>\n"
    }

    static func gpxWaypoint(_ r: AirRecord) -> String {
        var text = "  <wpt lat=\"\(number(r.coordinate.latitude)!)\" lon=\"\(number(r.coordinate.longitude)!)\">"
        text += "<time>\(time(r.hour))</time>"
        let name = r.values.usAQI.map { "US AQI \($0)" } ?? "air \(r.source.rawValue)"
        text += "<name>\(xml(name))</name>"
        if let place = r.place { text += "<desc>\(xml(place))</desc>" }
        text += "<extensions><airloc:air"
        for (name, value) in airValues(r) where !["id", "kind", "time", "latitude", "longitude"].contains(name) {
            switch value {
            case .number(let v?), .text(let v?): text += " \(name)=\"\(xml(v))\""
            case .words(let words) where !words.isEmpty: text += " \(name)=\"\(xml(words.joined(separator: " ")))\""
            default: break
            }
        }
        return text + " id=\"a\(r.id)\"/></extensions></wpt>\n"
    }

    // MARK: GeoJSON

    static func position(_ p: TrackPoint) -> String {
        let base = "[\(number(p.coordinate.longitude)!),\(number(p.coordinate.latitude)!)"
        return base + (number(p.altitude).map { ",\($0)]" } ?? "]")
    }

    static let geojsonLineStart = "{\"type\":\"Feature\",\"geometry\":{\"type\":\"LineString\",\"coordinates\":["

    static func geojsonLineEnd(start: TrackPoint, end: TrackPoint, points: Int) -> String {
        "]},\"properties\":{\"kind\":\"track\",\"segment\":\(start.segment),\"start\":\"\(time(start.time))\","
            + "\"end\":\"\(time(end.time))\",\"points\":\(points)}}"
    }

    static func geojsonLonePoint(_ p: TrackPoint) -> String {
        "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":\(position(p))},\"properties\":"
            + trackJSON(p) + "}"
    }

    static func geojsonAirPoint(_ r: AirRecord) -> String {
        "{\"type\":\"Feature\",\"geometry\":{\"type\":\"Point\",\"coordinates\":[\(number(r.coordinate.longitude)!),"
            + "\(number(r.coordinate.latitude)!)]},\"properties\":" + airJSON(r) + "}"
    }
}
