import AirQuality
import Foundation
import Geo
import Logbook
import Readings

/// The logbook's figures for docs/performance.md, and the write loop the crash test kills.
enum LogbookBench {
    static func point(_ index: Int, segment: Int64, start: Date) -> TrackPoint {
        let step = Double(index)
        return TrackPoint(
            time: start.addingTimeInterval(step), timeSource: "system",
            fix: Fix(
                coordinate: Coordinate(
                    uncheckedLatitude: 52.52 + sin(step / 500) * 0.01, longitude: 13.405 + cos(step / 500) * 0.01),
                source: .gps, horizontalAccuracy: 3.2 + Double(index % 7) * 0.1, altitudeMSL: 34.5 + Double(index % 11),
                speed: 1.4, track: Double(index % 360), mode: .threeD, satellitesUsed: 9),
            provider: "gpsd", segment: segment)
    }

    /// `airloc-bench logbook-write FILE COUNT`: appends COUNT track points, one
    /// transaction each as the logger writes them, printing "committed N" after each.
    static func writeLoop(path: String, count: Int) throws {
        let logbook = try Logbook(url: URL(fileURLWithPath: path))
        let segment = try logbook.startSegment(at: Date(), bootID: nil, reason: "start")
        let start = Date()
        for index in 0..<count {
            try logbook.append(point(index, segment: segment, start: start), bootSeconds: Double(index))
            FileHandle.standardOutput.write(Data("committed \(index + 1)\n".utf8))
        }
    }

    /// `airloc-bench backlog-write FILE ROWS`: a week offline, as the uploads find it: ROWS
    /// track points and ROWS measured readings, a minute apart, ending a minute ago.
    static func writeBacklog(path: String, rows: Int) throws {
        let logbook = try Logbook(url: URL(fileURLWithPath: path))
        let start = Date().addingTimeInterval(-Double(rows + 1) * 60)
        let segment = try logbook.startSegment(at: start, bootID: nil, reason: "start")
        try logbook.bulk {
            for index in 0..<rows {
                var point = point(index, segment: segment, start: start)
                point.time = start.addingTimeInterval(Double(index) * 60)
                try logbook.append(point)
                let sample = SensorSample(
                    model: .sds011, device: "/dev/seeded", serial: "A160",
                    readings: [ParticulateValues(pm2_5: Double(index % 50) + 0.5, pm10: Double(index % 70) + 1)],
                    windowSeconds: 10, warmUpSeconds: 30, correction: .none, humidityLimit: 70)
                try logbook.append(
                    SensorRecord(
                        sample, time: point.time, timeSource: "gps", coordinate: point.coordinate, segment: segment))
            }
        }
    }

    /// Sensor rows, each "MINUTES:PM2.5" before now, at Berlin.
    static func writeSensorRows(path: String, _ rows: [String]) throws {
        let logbook = try Logbook(url: URL(fileURLWithPath: path))
        let now = Date()
        for row in rows {
            let parts = row.split(separator: ":").compactMap { Double($0) }
            guard parts.count == 2 else { throw LogbookError.file(path, "expected MINUTES:PM2.5, not \(row)") }
            let sample = SensorSample(
                model: .sds011, device: "/dev/seeded", serial: "A160",
                readings: [ParticulateValues(pm2_5: parts[1], pm10: parts[1] * 1.5)], windowSeconds: 10,
                warmUpSeconds: 30, correction: .none, humidityLimit: 70)
            try logbook.append(
                SensorRecord(
                    sample, time: now.addingTimeInterval(-parts[0] * 60), timeSource: "gps",
                    coordinate: Coordinate(uncheckedLatitude: 52.52, longitude: 13.405), segment: nil))
        }
    }

    /// Bytes the process has caused to be written to storage (SD-card wear).
    static func writtenBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/io", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("write_bytes:") {
            return Int(line.split(separator: " ").last ?? "0") ?? 0
        }
        return 0
    }

    static func peakRSSMegabytes() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return (Double(line.split(separator: " ").dropFirst().first ?? "0") ?? 0) / 1024
        }
        return 0
    }

    /// `airloc-bench logbook DIR [ROWS]`: bytes per row as the logger writes them, and
    /// the export of ROWS (default 1,000,000) track points.
    static func figures(directory: String, rows: Int) throws {
        let dir = URL(fileURLWithPath: directory)
        // Row by row, as `log run` commits them: what reaches the disk per row.
        let small = dir.appendingPathComponent("rows.sqlite")
        let logbook = try Logbook(url: small)
        let segment = try logbook.startSegment(at: Date(), bootID: nil, reason: "start")
        let start = Date()
        let n = 2000
        let before = writtenBytes()
        let started = DispatchTime.now().uptimeNanoseconds
        for index in 0..<n {
            try logbook.append(point(index, segment: segment, start: start), bootSeconds: Double(index))
        }
        let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        let written = writtenBytes() - before
        _ = try logbook.integrityCheck()
        try logbook.checkpoint()
        let size = (try? FileManager.default.attributesOfItem(atPath: small.path)[.size] as? Int) ?? 0
        print(
            String(
                format: "logbook: %d track rows, one transaction each: %.2f ms per row; %d bytes written per row "
                    + "(/proc/self/io, WAL + fsync); %d bytes on disk per row", n, elapsed * 1000 / Double(n),
                written / n, size / n))

        // A big logbook, filled in bulk, then exported.
        let big = dir.appendingPathComponent("big.sqlite")
        let bulk = try Logbook(url: big)
        let bigSegment = try bulk.startSegment(at: Date(), bootID: nil, reason: "start")
        try bulk.bulk {
            for index in 0..<rows { try bulk.append(point(index, segment: bigSegment, start: start)) }
        }
        let rssBefore = peakRSSMegabytes()
        for format in [LogExport.Format.ndjson, .gpx, .csv, .geojson] {
            let output = FileHandle(forWritingAtPath: "/dev/null")!
            var bytes = 0
            let begin = DispatchTime.now().uptimeNanoseconds
            let counts = try LogExport.write(bulk, format: format, kind: .track, window: LogWindow()) { chunk in
                bytes += chunk.count
                output.write(chunk)
            }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - begin) / 1e9
            print(
                String(
                    format: "export --format %@ of %d track rows: %.2f s (%.0f MB); peak RSS %.1f MB (%.1f MB before)",
                    format.rawValue, counts.track, seconds, Double(bytes) / 1e6, peakRSSMegabytes(), rssBefore))
        }
    }
}

extension LogbookBench {
    /// `airloc-bench day-write FILE [START]`: the plot's seeded day (docs/plot.md, the plot
    /// tests), from 2026-11-30 08:00Z or START (seconds since 1970; tests that need a fresh day): a 2-hour walk east from Berlin's centre, a point every 10 s,
    /// with a 10-minute gap in the second hour (09:23:20 to 09:33:20, then a new segment); the
    /// model's air: hour 8 US AQI 41 (live), hour 9 AQI 137 (back-filled); measured rows every
    /// minute from 09:30 (12-16 µg/m³: Moderate).
    static func writeDay(path: String, start: Date = Date(timeIntervalSince1970: 1_796_025_600)) throws {
        let logbook = try Logbook(url: URL(fileURLWithPath: path))
        var segment = try logbook.startSegment(at: start, bootID: nil, reason: "start")
        for step in 0..<720 {
            let time = start.addingTimeInterval(Double(step) * 10)
            // Steps 500-559 (09:23:20 to 09:33:10) nothing was logged: the receiver lost the sky.
            if (500..<560).contains(step) { continue }
            if step == 560 { segment = try logbook.startSegment(at: time, bootID: nil, reason: "gap") }
            let coordinate = Coordinate(
                uncheckedLatitude: 52.5200 + 0.0001 * sin(Double(step) / 40),
                longitude: 13.4050 + Double(step) * 0.00004)
            try logbook.append(
                TrackPoint(
                    time: time, fix: Fix(coordinate: coordinate, source: .gps, horizontalAccuracy: 5, mode: .threeD),
                    provider: "gpsd",
                    segment: segment))
        }
        for (hour, aqi, pm, source) in [(0.0, 41, 9.8, AirRecord.Source.live), (3600, 137, 50.1, .backfill)] {
            var values = AirValues()
            values.usAQI = aqi
            values.category = AQICategory(aqi: aqi).rawValue
            values.pollutants["pm2_5"] = pm
            try logbook.append(
                AirRecord(
                    hour: start.addingTimeInterval(hour), loggedAt: start.addingTimeInterval(hour + 60),
                    coordinate: Coordinate(uncheckedLatitude: 52.52, longitude: 13.405),
                    sentCoordinate: Coordinate(uncheckedLatitude: 52.52, longitude: 13.41),
                    place: "Berlin, Berlin, Germany",
                    values: values, source: source, segment: 1))
        }
        for minute in 90..<120 {
            let sample = SensorSample(
                model: .sds011, device: "/dev/seeded", serial: "A160",
                readings: [ParticulateValues(pm2_5: 12.0 + Double(minute % 5), pm10: 20)], windowSeconds: 10,
                warmUpSeconds: 30,
                correction: .none, humidityLimit: 70)
            try logbook.append(
                SensorRecord(
                    sample, time: start.addingTimeInterval(Double(minute) * 60), timeSource: "gps",
                    coordinate: Coordinate(uncheckedLatitude: 52.52, longitude: 13.405 + Double(minute * 6) * 0.00004),
                    segment: segment))
        }
    }
}
