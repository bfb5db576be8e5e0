import FieldLog
import Foundation
import Geo
import TestSupport
import Testing

@testable import Logbook

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The logbook file itself: a real SQLite database in a temporary directory.
@Suite struct LogbookTests {
    static let hour = Date(timeIntervalSince1970: 1_795_003_200)

    static func point(_ seconds: Double, segment: Int64, north: Double = 0) -> TrackPoint {
        TrackPoint(
            time: hour.addingTimeInterval(seconds),
            fix: Fix(
                coordinate: Coordinate(uncheckedLatitude: 52.52 + north, longitude: 13.405), source: .gps,
                horizontalAccuracy: 4.5, altitudeMSL: 35, speed: 1.5, track: 90, mode: .threeD, satellitesUsed: 9),
            provider: "gpsd", segment: segment)
    }

    static func air(_ hour: Date, source: AirRecord.Source, place: String? = "Berlin, Berlin, Germany", segment: Int64)
        -> AirRecord
    {
        var values = AirValues()
        if source != .pending {
            values.usAQI = 41
            values.category = "good"
            values.pollutants = ["pm2_5": 8.8, "pm10": 9.7]
        }
        return AirRecord(
            hour: hour, loggedAt: hour.addingTimeInterval(120),
            coordinate: .init(uncheckedLatitude: 52.52, longitude: 13.405),
            sentCoordinate: .init(uncheckedLatitude: 52.52, longitude: 13.41), place: place, values: values,
            source: source, segment: segment)
    }

    /// Two segments (3 points and 1 point), a live reading and a pending hour.
    static func filled(_ directory: TemporaryDirectory) throws -> Logbook {
        let logbook = try Logbook(url: directory.file("state/airloc/logbook.sqlite"))
        let first = try logbook.startSegment(at: hour, bootID: "boot", reason: "start")
        for second in [0.0, 5, 10] { try logbook.append(point(second, segment: first, north: second / 1e5)) }
        try logbook.append(air(hour, source: .live, place: "Frankfurt (Oder), \"Brandenburg\"", segment: first))
        let second = try logbook.startSegment(at: hour.addingTimeInterval(4000), bootID: "boot", reason: "gap")
        try logbook.append(point(4000, segment: second))
        try logbook.append(air(hour.addingTimeInterval(3600), source: .pending, segment: second))
        return logbook
    }

    func mode(_ path: String) -> mode_t {
        var info = stat()
        _ = stat(path, &info)
        return info.st_mode & 0o777
    }

    @Test func theFileIsPrivateDurableAndVersioned() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Self.filled(directory)
        let path = logbook.url.path
        #expect(mode(path) == 0o600 && mode(path + "-wal") == 0o600, "it holds exact positions")
        #expect(mode(logbook.url.deletingLastPathComponent().path) == 0o700)
        #expect(try logbook.database.texts("PRAGMA journal_mode") == ["wal"])
        #expect(try logbook.database.integer("PRAGMA synchronous") == 2, "FULL")
        #expect(try logbook.database.integer("PRAGMA user_version") == Int64(LogbookSchema.version))
        #expect(try logbook.integrityCheck() == ["ok"])
        // Another reader sees every committed row while the writer is open.
        let reader = try Logbook(url: logbook.url, readOnly: true)
        let status = try reader.status(now: Self.hour.addingTimeInterval(4010))
        #expect(status.trackRows == 4 && status.airRows == 2 && status.segments == 2 && status.pending == 1)
        #expect(status.lastFixAge == 10)
    }

    @Test func aNewerFileIsRefusedNotDamagedAndAMissingOneIsSaidSo() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Self.filled(directory)
        try logbook.database.execute("PRAGMA user_version = 99")
        #expect(throws: LogbookError.self) { try Logbook(url: logbook.url) }
        do {
            _ = try Logbook(url: directory.file("nothing.sqlite"), readOnly: true)
            Issue.record("opened a logbook that does not exist")
        } catch {
            #expect(error.description.contains("no logbook at"))
        }
    }

    @Test func ndjsonHasEveryKeyOfEveryRowInTimeOrder() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Self.filled(directory)
        var data = Data()
        let counts = try LogExport.write(logbook, format: .ndjson, kind: .all, window: LogWindow()) { data.append($0) }
        #expect(counts == LogExport.Counts(track: 4, air: 2))
        let rows = try String(decoding: data, as: UTF8.self).split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(rows.map { $0["id"] as? String } == ["a1", "t1", "t2", "t3", "a2", "t4"])
        #expect(rows.allSatisfy { $0["schema"] as? String == "airloc.log/1" })
        let pending = try #require(rows.first { $0["id"] as? String == "a2" })
        #expect(pending["us_aqi"] is NSNull && pending["source"] as? String == "pending", "nulls are kept")
        #expect(rows[1]["time"] as? String == "2026-11-18T12:00:00Z" && rows[1]["mode"] as? String == "3d")
        // A window: only the second hour.
        var windowed = Data()
        let second = try LogExport.write(
            logbook, format: .ndjson, kind: .all,
            window: LogWindow(since: Self.hour.addingTimeInterval(3600), until: nil)
        ) { windowed.append($0) }
        #expect(second == LogExport.Counts(track: 1, air: 1))
    }

    @Test func gpxIsValidXMLWithATrackSegmentPerSegmentAndTheAirAsWaypoints() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Self.filled(directory)
        var data = Data()
        _ = try LogExport.write(logbook, format: .gpx, kind: .all, window: LogWindow()) { data.append($0) }
        final class Counter: NSObject, XMLParserDelegate {
            var elements: [String: Int] = [:]
            var order: [String] = []
            func parser(
                _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]
            ) {
                elements[name, default: 0] += 1
                if ["wpt", "trk"].contains(name) { order.append(name) }
            }
        }
        let parser = XMLParser(data: data)
        let counter = Counter()
        parser.delegate = counter
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
        #expect(counter.elements["trk"] == 1 && counter.elements["trkseg"] == 2 && counter.elements["trkpt"] == 4)
        #expect(counter.elements["wpt"] == 2 && counter.order.first == "wpt", "GPX puts waypoints first")
        #expect(String(decoding: data, as: UTF8.self).contains("Frankfurt (Oder), &quot;Brandenburg&quot;"))
    }

    @Test func geojsonHasALineStringPerSegmentAndAPointPerReading() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Self.filled(directory)
        var data = Data()
        _ = try LogExport.write(logbook, format: .geojson, kind: .all, window: LogWindow()) { data.append($0) }
        let collection = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let features = try #require(collection["features"] as? [[String: Any]])
        let kinds = features.map { (($0["geometry"] as? [String: Any])?["type"] as? String) ?? "?" }
        // The second segment has one point: a LineString needs two, so it is a Point.
        #expect(kinds == ["LineString", "Point", "Point", "Point"])
        let line = try #require((features[0]["geometry"] as? [String: Any])?["coordinates"] as? [[Double]])
        #expect(line.count == 3 && line[0] == [13.405, 52.52, 35], "longitude first, then latitude, then height")
        #expect((features[0]["properties"] as? [String: Any])?["points"] as? Int == 3)
    }

    @Test func csvQuotesWhatNeedsQuotingAndHasOneColumnSet() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Self.filled(directory)
        var data = Data()
        _ = try LogExport.write(logbook, format: .csv, kind: .all, window: LogWindow()) { data.append($0) }
        let text = String(decoding: data, as: UTF8.self)
        let lines = text.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(lines.count == 7, "a header and six rows")
        #expect(lines[0].hasPrefix("id,kind,time,latitude,longitude,"))
        #expect(text.contains(#""Frankfurt (Oder), ""Brandenburg""""#))
    }

    @Test func restampingMovesOnlyThisBootsUnconfirmedRows() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook(url: directory.file("log.sqlite"))
        let wrongClock = Date(timeIntervalSince1970: 946_684_800)  // 2000-01-01
        let segment = try logbook.startSegment(at: wrongClock, bootID: "this-boot", reason: "start")
        for second in 0..<3 {
            var point = Self.point(0, segment: segment)
            point.time = wrongClock.addingTimeInterval(Double(second))
            try logbook.append(point, bootSeconds: 100 + Double(second))
        }
        let other = try logbook.startSegment(at: wrongClock, bootID: "another-boot", reason: "start")
        var unrelated = Self.point(0, segment: other)
        unrelated.time = wrongClock
        try logbook.append(unrelated, bootSeconds: 50)
        // At boot second 110, GPS time says 2026-11-18T12:00:10Z.
        let changed = try logbook.restamp(
            bootID: "this-boot", trustedTime: Self.hour.addingTimeInterval(10), atBootSeconds: 110)
        #expect(changed == 3)
        let points = Array(try logbook.trackPoints())
        #expect(
            points.filter { $0.timeSource == "gps" }.map(\.time) == [0, 1, 2].map { Self.hour.addingTimeInterval($0) })
        #expect(points.filter { $0.timeSource == "system" }.map(\.time) == [wrongClock], "another boot's row is left")
    }

    /// Uploads take no track row whose time may still change, nor any after it: another
    /// boot's rows are released at once, this boot's when the clock is judged, and a
    /// re-stamp after that changes nothing that may have been sent.
    @Test func uploadsWaitForTimesThatMayStillChange() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook(url: directory.file("log.sqlite"))
        let wrongClock = Date(timeIntervalSince1970: 946_684_800)
        let earlier = try logbook.startSegment(at: wrongClock, bootID: "another-boot", reason: "start")
        try logbook.append(Self.point(0, segment: earlier), bootSeconds: 10)
        let segment = try logbook.startSegment(at: wrongClock, bootID: "this-boot", reason: "start")
        for second in 0..<3 { try logbook.append(Self.point(0, segment: segment), bootSeconds: 100 + Double(second)) }
        #expect(try logbook.uploadRows(kind: .track, after: 0, limit: 10).isEmpty, "t1 may be re-stamped yet")
        #expect(try logbook.settleTimes(exceptBoot: "this-boot") == 1)
        #expect(try logbook.uploadRows(kind: .track, after: 0, limit: 10).map(\.key) == ["t1"])
        #expect(try logbook.settleTimes() == 3)
        #expect(try logbook.uploadRows(kind: .track, after: 0, limit: 10).map(\.key) == ["t1", "t2", "t3", "t4"])
        let changed = try logbook.restamp(bootID: "this-boot", trustedTime: Self.hour, atBootSeconds: 110)
        #expect(changed == 0, "a settled time is final")
    }

    /// After GPS time re-stamps a boot's rows, id order and time order differ. Read page
    /// by page as the fleet publisher reads it (what it handed out is in flight), the
    /// outbox still hands out every row once.
    @Test func theOutboxHandsOutEveryRowWhenTimeAndIdOrderDiffer() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook(url: directory.file("logbook.sqlite"), outbox: true)
        let segment = try logbook.startSegment(at: Self.hour, bootID: "boot", reason: "start")
        for second in [30.0, 10, 20] { try logbook.append(Self.point(second, segment: segment)) }
        for second in [15.0, 25] {
            try logbook.append(Self.air(Self.hour.addingTimeInterval(second), source: .live, segment: segment))
        }
        var inFlight: [String: Int64] = [:]
        var handedOut: [String] = []
        for _ in 0..<10 {
            let page = try logbook.unsent(excluding: inFlight, limit: 2)
            if page.isEmpty { break }
            for entry in page {
                handedOut.append(entry.key)
                inFlight[entry.key] = entry.revision
            }
        }
        #expect(handedOut.sorted() == ["a1", "a2", "t1", "t2", "t3"])
    }

    /// A pending hour published, then settled by a live answer while its first message
    /// was in flight: the row is handed out again with its new content, and the
    /// acknowledgement of the old message leaves it unsent.
    @Test func aRowThatChangesAfterPublishingIsHandedOutAgain() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook(url: directory.file("logbook.sqlite"), outbox: true)
        let segment = try logbook.startSegment(at: Self.hour, bootID: "boot", reason: "start")
        let pending = Self.air(Self.hour, source: .pending, segment: segment)
        try logbook.append(pending)
        let first = try #require(try logbook.unsent(excluding: [:], limit: 10).first)
        #expect(try logbook.unsent(excluding: [first.key: first.revision], limit: 10).isEmpty)
        var values = AirValues()
        values.usAQI = 137
        values.category = "unhealthy_for_sensitive_groups"
        #expect(try logbook.settle(hour: Self.hour, sent: pending.sentCoordinate, values: values, source: .live) == 1)
        let again = try logbook.unsent(excluding: [first.key: first.revision], limit: 10)
        #expect(again.map(\.key) == ["a1"] && again.first?.revision == first.revision + 1)
        guard case .air(let settled)? = again.first?.row else { return #expect(Bool(false), "no air row") }
        #expect(settled.values.usAQI == 137 && settled.source == .live)
        try logbook.markSent([(first.key, first.revision)])
        #expect(try logbook.unsentCount() == 1, "the old revision's acknowledgement settles nothing")
        try logbook.markSent([(first.key, first.revision + 1)])
        #expect(try logbook.unsentCount() == 0)
    }

    /// GPS time re-stamps rows that were already published: they go out again.
    @Test func restampedRowsAreUnsentAgain() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Logbook(url: directory.file("logbook.sqlite"), outbox: true)
        let segment = try logbook.startSegment(at: Self.hour, bootID: "boot", reason: "start")
        try logbook.append(Self.point(10, segment: segment), bootSeconds: 5)
        let entries = try logbook.unsent(excluding: [:], limit: 10)
        try logbook.markSent(entries.map { ($0.key, $0.revision) })
        #expect(try logbook.unsentCount() == 0)
        #expect(
            try logbook.restamp(bootID: "boot", trustedTime: Self.hour.addingTimeInterval(3600), atBootSeconds: 6) == 1)
        let again = try logbook.unsent(excluding: [:], limit: 10)
        guard case .track(let point)? = again.first?.row else { return #expect(Bool(false), "not handed out again") }
        #expect(point.timeSource == "gps" && point.time == Self.hour.addingTimeInterval(3599))
    }

    /// A disk that fills up while a new logbook's tables are made leaves no half-made file
    /// (it once left one without its sensor table): all of the schema or none of it.
    @Test func aSchemaThatDoesNotFitIsNotMadeHalfWay() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // "Disks" of 2, 3, ... 1 KiB pages: each that cannot hold the whole schema must be
        // left with none of it, whichever table the space ran out in.
        var refused = 0
        for pages in 2...200 {
            let path = directory.file("logbook-\(pages).sqlite").path
            let database = try SQLiteDatabase(path: path)
            try database.execute("PRAGMA page_size = 1024; PRAGMA max_page_count = \(pages)")
            do {
                try LogbookSchema.migrate(database, from: 0)
                break
            } catch {
                refused += 1
                #expect(try database.integer("PRAGMA user_version") == 0, "\(pages) pages")
                #expect(try database.integer("SELECT count(*) FROM sqlite_master") == 0, "\(pages) pages: a table left")
            }
        }
        #expect(refused > 5, "the schema needs more than a few pages")
        // With room, a file that was refused becomes a whole logbook.
        let logbook = try Logbook(url: directory.file("logbook-\(refused + 1).sqlite"))
        #expect(try logbook.database.integer("PRAGMA user_version") == Int64(LogbookSchema.version))
        #expect(try logbook.status(now: Self.hour).sensorRows == 0 && !logbook.incarnation.isEmpty)
    }

    @Test func pruningRemovesOldRowsAndEmptySegments() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logbook = try Self.filled(directory)
        let removed = try logbook.prune(before: Self.hour.addingTimeInterval(3600))
        #expect(removed.track == 3 && removed.air == 1)
        let status = try logbook.status(now: Self.hour)
        #expect(status.trackRows == 1 && status.airRows == 1 && status.segments == 1)
    }

    @Test func aReaderThatStaysOpenSeesEveryLaterCommit() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let writer = try Logbook(url: directory.file("logbook.sqlite"))
        let segment = try writer.startSegment(at: Self.hour, bootID: nil, reason: "start")
        try writer.append(Self.point(0, segment: segment))
        let reader = try Logbook(url: directory.file("logbook.sqlite"), readOnly: true)
        // Each of these reads stops after its first row: none may pin the reader to that moment.
        #expect(try reader.latestTrackPoint()?.time == Self.hour)
        #expect(try reader.lastIDs()[.track] == 1)
        for (count, second) in [(2, 5.0), (3, 10)] {
            try writer.append(Self.point(second, segment: segment))
            #expect(try reader.status(now: Self.hour).trackRows == count, "after \(second) s")
            #expect(try reader.rows(after: [.track: 1], limit: 10).count == count - 1)
            #expect(try reader.latestTrackPoint()?.time == Self.hour.addingTimeInterval(second))
        }
    }

    @Test func backfillPlansOneRequestPerPlaceAndContiguousSpan() {
        var rows: [AirRecord] = []
        for offset in Array(0..<168) + [200, 201] {
            var record = Self.air(Self.hour.addingTimeInterval(Double(offset) * 3600), source: .pending, segment: 1)
            record.id = Int64(offset + 1)
            rows.append(record)
        }
        var elsewhere = Self.air(Self.hour, source: .pending, segment: 1)
        elsewhere.sentCoordinate = Coordinate(uncheckedLatitude: 48.14, longitude: 11.58)
        elsewhere.id = 999
        let spans = Backfill.plan(rows + [elsewhere])
        #expect(spans.count == 3, "a week in one place is one request; a later gap and another place are others")
        let week = spans.first { $0.rows.count == 168 }
        #expect(week?.first == Self.hour && week?.last == Self.hour.addingTimeInterval(167 * 3600))
    }
}
