import Foundation
import Platform

/// The logbook as files other tools read: NDJSON (schema `airloc.log/1`), CSV (RFC 4180),
/// GPX 1.1 and GeoJSON (RFC 7946), streamed (docs/logbook.md has the fields).
///
/// Contract: rows are read one at a time and written through a buffered sink, so an
/// export of any size runs in constant memory. Unknown values are JSON `null` / empty CSV
/// fields, never left out of NDJSON. Ids are stable and unique across kinds: `t<n>` for
/// track rows, `a<n>` for air rows, `s<n>` for measured (sensor) rows. Times are ISO 8601
/// UTC with `Z`.
public enum LogExport {
    /// What the file is.
    public enum Format: String, Sendable, CaseIterable {
        case ndjson, csv, gpx, geojson
    }

    /// Which rows.
    public enum Kind: String, Sendable, CaseIterable {
        case track, air, sensor, all
        var track: Bool { self == .track || self == .all }
        var air: Bool { self == .air || self == .all }
        var sensor: Bool { self == .sensor || self == .all }
    }

    /// Rows written, by kind.
    public struct Counts: Sendable, Equatable {
        /// Track rows written.
        public var track = 0
        /// Air rows written.
        public var air = 0
        /// Sensor rows written.
        public var sensor = 0
    }

    /// Writes the rows of `kind` in `window` as `format` to `sink` (called with chunks of
    /// about 64 KiB). With a `grid` (GeoJSON only: the device page's coarse positions),
    /// every position is on that grid and a track point has no altitude. `next` (GeoJSON
    /// only) is a link to the rest of a range served a page at a time: the collection's
    /// `next` member.
    public static func write(
        _ logbook: Logbook, format: Format, kind: Kind, window: LogWindow, grid: Double? = nil, next: String? = nil,
        to sink: @escaping (Data) throws -> Void
    ) throws -> Counts {
        var out = Buffered(sink: sink)
        var counts = Counts()
        switch format {
        case .ndjson: try ndjson(logbook, kind: kind, window: window, out: &out, counts: &counts)
        case .csv: try csv(logbook, kind: kind, window: window, out: &out, counts: &counts)
        case .gpx: try gpx(logbook, kind: kind, window: window, out: &out, counts: &counts)
        case .geojson:
            try geojson(logbook, kind: kind, window: window, grid: grid, out: &out, counts: &counts)
            try out.write("\n]" + (next.map { ",\"next\":" + JSONText.quoted($0) } ?? "") + "}\n")
        }
        try out.flush()
        return counts
    }

    struct Buffered {
        let sink: (Data) throws -> Void
        var buffer = Data(capacity: 1 << 16)

        mutating func write(_ text: String) throws {
            buffer.append(contentsOf: text.utf8)
            if buffer.count >= 1 << 16 { try flush() }
        }

        mutating func flush() throws {
            guard !buffer.isEmpty else { return }
            try sink(buffer)
            buffer.removeAll(keepingCapacity: true)
        }
    }

    /// Every kind asked for in time order: the cursors merged, each already ordered.
    static func merged(
        _ logbook: Logbook, kind: Kind, window: LogWindow, track: (TrackPoint) throws -> Void,
        air: (AirRecord) throws -> Void, sensor: (SensorRecord) throws -> Void
    ) throws {
        var points = kind.track ? try logbook.trackPoints(in: window) : nil
        var records = kind.air ? try logbook.airRecords(in: window) : nil
        var readings = kind.sensor ? try logbook.sensorRecords(in: window) : nil
        var point = points?.next()
        var record = records?.next()
        var reading = readings?.next()
        while point != nil || record != nil || reading != nil {
            let times = [point?.time, record?.hour, reading?.time]
            let earliest = times.compactMap { $0 }.min()
            // On a tie the hour's air reading comes before the point logged at its start.
            if let r = record, r.hour == earliest {
                try air(r)
                record = records?.next()
            } else if let p = point, p.time == earliest {
                try track(p)
                point = points?.next()
            } else if let m = reading {
                try sensor(m)
                reading = readings?.next()
            }
        }
        if let error = points?.error ?? records?.error ?? readings?.error { throw error }
    }

    // MARK: NDJSON

    static func ndjson(_ logbook: Logbook, kind: Kind, window: LogWindow, out: inout Buffered, counts: inout Counts)
        throws
    {
        try merged(
            logbook, kind: kind, window: window,
            track: { point in
                try out.write(LogFields.trackJSON(point) + "\n")
                counts.track += 1
            },
            air: { record in
                try out.write(LogFields.airJSON(record) + "\n")
                counts.air += 1
            },
            sensor: { reading in
                try out.write(LogFields.sensorJSON(reading) + "\n")
                counts.sensor += 1
            })
    }

    // MARK: CSV

    static func csv(_ logbook: Logbook, kind: Kind, window: LogWindow, out: inout Buffered, counts: inout Counts)
        throws
    {
        try out.write(LogFields.csvColumns.joined(separator: ",") + "\r\n")
        try merged(
            logbook, kind: kind, window: window,
            track: { point in
                try out.write(LogFields.csvRow(LogFields.trackValues(point), columns: LogFields.trackColumns))
                counts.track += 1
            },
            air: { record in
                try out.write(LogFields.csvRow(LogFields.airValues(record), columns: LogFields.airColumns))
                counts.air += 1
            },
            sensor: { reading in
                try out.write(LogFields.csvRow(LogFields.sensorValues(reading), columns: LogFields.sensorColumns))
                counts.sensor += 1
            })
    }

    // MARK: GPX

    static func gpx(_ logbook: Logbook, kind: Kind, window: LogWindow, out: inout Buffered, counts: inout Counts)
        throws
    {
        try out.write(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <gpx version="1.1" creator="airloc" xmlns="http://www.topografix.com/GPX/1/1" \
            xmlns:airloc="https://airloc.invalid/gpx/1" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" \
            xsi:schemaLocation="http://www.topografix.com/GPX/1/1 http://www.topografix.com/GPX/1/1/gpx.xsd">

            """)
        // GPX puts waypoints before tracks: the air readings first.
        if kind.air {
            var records = try logbook.airRecords(in: window)
            while let record = records.next() {
                try out.write(LogFields.gpxWaypoint(record))
                counts.air += 1
            }
            if let error = records.error { throw error }
        }
        if kind.sensor {
            var readings = try logbook.sensorRecords(in: window)
            while let reading = readings.next() {
                // A reading before the first fix has no place to stand in a GPX file.
                guard let waypoint = LogFields.gpxSensorWaypoint(reading) else { continue }
                try out.write(waypoint)
                counts.sensor += 1
            }
            if let error = readings.error { throw error }
        }
        if kind.track {
            var points = try logbook.trackPoints(in: window)
            var segment: Int64?
            while let point = points.next() {
                if segment == nil { try out.write("  <trk>\n    <name>airloc</name>\n") }
                if point.segment != segment {
                    if segment != nil { try out.write("    </trkseg>\n") }
                    try out.write("    <trkseg>\n")
                    segment = point.segment
                }
                try out.write(LogFields.gpxPoint(point))
                counts.track += 1
            }
            if let error = points.error { throw error }
            if segment != nil { try out.write("    </trkseg>\n  </trk>\n") }
        }
        try out.write("</gpx>\n")
    }

    // MARK: GeoJSON

    static func geojson(
        _ logbook: Logbook, kind: Kind, window: LogWindow, grid: Double?, out: inout Buffered, counts: inout Counts
    ) throws {
        try out.write("{\"type\":\"FeatureCollection\",\"features\":[\n")
        var first = true
        func feature(_ text: String, into out: inout Buffered) throws {
            try out.write((first ? "" : ",\n") + text)
            first = false
        }
        if kind.track {
            var points = try logbook.trackPoints(in: window)
            // A LineString needs two positions: a segment's first point waits for its second.
            var held: TrackPoint?
            var last: TrackPoint?
            var count = 0
            var open = false
            func close(into out: inout Buffered) throws {
                if open, let start = held, let end = last {
                    try out.write(LogFields.geojsonLineEnd(start: start, end: end, points: count))
                } else if let lone = held {
                    try feature(LogFields.geojsonLonePoint(lone), into: &out)
                }
                (open, held, last, count) = (false, nil, nil, 0)
            }
            while var point = points.next() {
                if let grid { point = point.coarse(grid: grid) }
                counts.track += 1
                if let start = held, start.segment == point.segment {
                    if !open {
                        try feature(LogFields.geojsonLineStart + LogFields.position(start), into: &out)
                        open = true
                    }
                    try out.write("," + LogFields.position(point))
                } else {
                    try close(into: &out)
                    held = point
                }
                last = point
                count += 1
            }
            try close(into: &out)
            if let error = points.error { throw error }
        }
        if kind.air {
            var records = try logbook.airRecords(in: window)
            while var record = records.next() {
                if let grid { record.coordinate = record.coordinate.rounded(toDegrees: grid) }
                try feature(LogFields.geojsonAirPoint(record), into: &out)
                counts.air += 1
            }
            if let error = records.error { throw error }
        }
        if kind.sensor {
            var readings = try logbook.sensorRecords(in: window)
            while var reading = readings.next() {
                if let grid { reading.coordinate = reading.coordinate?.rounded(toDegrees: grid) }
                try feature(LogFields.geojsonSensorPoint(reading), into: &out)
                counts.sensor += 1
            }
            if let error = readings.error { throw error }
        }
    }
}
