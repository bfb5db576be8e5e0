import Foundation
import Geo

/// The logbook's air rows: an hour's reading appended, or a pending hour kept until the
/// air service answers for it (back-fill after an outage), then settled or filled.
extension Logbook {
    /// Appends an air reading (or a pending hour).
    @discardableResult
    public func append(_ record: AirRecord) throws(LogbookError) -> Int64 {
        try writing { c throws(SQLiteError) in
            try c.run(
                """
                INSERT INTO air (id, hour_s, logged_ms, lat, lon, sent_lat, sent_lon, place, us_aqi, category,
                                 dominant, pm2_5, pm10, nitrogen_dioxide, sulphur_dioxide, ozone, carbon_monoxide,
                                 european_aqi, pollen, source, reason, segment, sent, stored)
                VALUES (\(LogbookIDs.next(.air)), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [
                    .integer(Int64(record.hour.timeIntervalSince1970)), .integer(record.loggedAt.milliseconds),
                    .real(record.coordinate.latitude), .real(record.coordinate.longitude),
                    .real(record.sentCoordinate.latitude), .real(record.sentCoordinate.longitude),
                    .string(record.place),
                ] + Self.valueColumns(record.values) + [
                    .text(record.source.rawValue), .string(record.reason), .integer(record.segment),
                    .integer(outbox ? 0 : 1), .integer(collector ? 0 : 1),
                ])
            return c.database.lastInsertedRow
        }
    }

    static func valueColumns(_ values: AirValues) -> [SQLiteValue?] {
        [.int(values.usAQI), .string(values.category), .string(values.dominantPollutant)]
            + AirValues.pollutantNames.map { .double(values.pollutants[$0]) }
            + [.int(values.europeanAQI), .string(values.pollen)]
    }

    /// True when a row for this hour and sent coordinate exists (of any source).
    public func hasAir(hour: Date, sent: Coordinate) throws(LogbookError) -> Bool {
        try with { c throws(SQLiteError) in
            try c.integer(
                "SELECT 1 FROM air WHERE hour_s = ? AND sent_lat = ? AND sent_lon = ? LIMIT 1",
                [.integer(Int64(hour.timeIntervalSince1970)), .real(sent.latitude), .real(sent.longitude)]) != nil
        }
    }

    /// Settles the pending rows of `hour` at `sent` with a reading fetched after all
    /// (live or cached); returns how many there were.
    @discardableResult
    public func settle(hour: Date, sent: Coordinate, values: AirValues, source: AirRecord.Source) throws(LogbookError)
        -> Int
    {
        try writing { c throws(SQLiteError) in
            try c.run(
                """
                UPDATE air SET us_aqi = ?, category = ?, dominant = ?, pm2_5 = ?, pm10 = ?, nitrogen_dioxide = ?,
                               sulphur_dioxide = ?, ozone = ?, carbon_monoxide = ?, european_aqi = ?, pollen = ?,
                               source = ?, reason = NULL, sent = CASE WHEN ? THEN 0 ELSE sent END,
                               stored = CASE WHEN ? THEN 0 ELSE stored END, revision = revision + 1
                WHERE hour_s = ? AND sent_lat = ? AND sent_lon = ? AND source = 'pending'
                """,
                Self.valueColumns(values) + [
                    .text(source.rawValue), .integer(outbox ? 1 : 0), .integer(collector ? 1 : 0),
                    .integer(Int64(hour.timeIntervalSince1970)), .real(sent.latitude), .real(sent.longitude),
                ])
            return c.database.changes
        }
    }

    /// Every pending air row, oldest first.
    public func pending() throws(LogbookError) -> [AirRecord] {
        try with { c throws(SQLiteError) in
            let query = try c.statement("\(LogbookRows.airSelect) WHERE source = 'pending' ORDER BY hour_s, id")
            try query.bind([])
            var rows: [AirRecord] = []
            while try query.step() { rows.append(LogbookRows.air(query)) }
            return rows
        }
    }

    /// Fills pending rows with what the service's history said, in one transaction.
    public func fill(_ answers: [(id: Int64, values: AirValues?, reason: String?)]) throws(LogbookError) {
        try writing { c throws(SQLiteError) in
            try c.database.transaction { () throws(SQLiteError) in
                let update = try c.statement(
                    """
                    UPDATE air SET us_aqi = ?, category = ?, dominant = ?, pm2_5 = ?, pm10 = ?, nitrogen_dioxide = ?,
                                   sulphur_dioxide = ?, ozone = ?, carbon_monoxide = ?, european_aqi = ?, pollen = ?,
                                   source = ?, reason = ?, sent = CASE WHEN ? THEN 0 ELSE sent END,
                                   stored = CASE WHEN ? THEN 0 ELSE stored END, revision = revision + 1
                    WHERE id = ? AND source = 'pending'
                    """)
                for answer in answers {
                    let source = answer.values == nil ? AirRecord.Source.unavailable : .backfill
                    try update.run(
                        Self.valueColumns(answer.values ?? AirValues()) + [
                            .text(source.rawValue), .string(answer.reason), .integer(outbox ? 1 : 0),
                            .integer(collector ? 1 : 0), .integer(answer.id),
                        ])
                }
            }
        }
    }
}
