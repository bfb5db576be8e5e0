import Collector
import Foundation
import Geo

/// `[collect] keep`'s drop of a month (docs/collector.md, docs/performance.md):
/// `airloc-bench retention-drop CONNINFO DEVICES SPACING` fills the month three back of
/// the collector's `track` with DEVICES devices' rows, one every SPACING seconds each, then
/// times the retention that drops it, as the collector applies it.
///
/// The fill is SQL (`generate_series`), not the collector: what is measured is the drop.
enum RetentionBench {
    static func run(conninfo: String, devices: Int, spacing: Int) throws {
        let database = try PostgresConnection(conninfo: conninfo, password: nil)
        defer { database.close() }
        try CollectorSchema.prepare(database)
        let now = Date()
        let month = PartitionMonth(index: PartitionMonth(now).index - 3)
        try PartitionMonth.make([.init(kind: .track, month: month)], database)
        let filled = ContinuousClock.now
        try database.execute(
            """
            INSERT INTO devices (device_id, first_seen, last_seen, topic_prefix)
            SELECT 'bench-keep-' || d, now(), now(), 'airloc/bench-keep-' || d FROM generate_series(1, $1::int) d
            ON CONFLICT DO NOTHING
            """, [String(devices)])
        try database.execute(
            """
            INSERT INTO track (device_id, incarnation, id, n, revision, time, latitude, longitude, time_source, mode,
                               provider, segment, stored_at, payload)
            SELECT 'bench-keep-' || d, '', 't' || s, s, 0, $1::timestamptz + s * $3::int * interval '1 second',
                   52.5 + d * 0.001, 13.4, 'gps', '3d', 'gpsd', 1, now(),
                   jsonb_build_object('schema', 'airloc.log/1', 'id', 't' || s, 'kind', 'track')
            FROM generate_series(1, $2::int) d,
                 generate_series(0, (extract(epoch FROM $4::timestamptz - $1::timestamptz) / $3::int)::int - 1) s
            """,
            [
                UTCTime.iso8601(month.start), String(devices), String(spacing), UTCTime.iso8601(month.next.start),
            ])
        let fillTime = ContinuousClock.now - filled
        let name = month.name(.track)
        let size = try database.execute(
            "SELECT count(*), pg_size_pretty(pg_total_relation_size($1::regclass)) FROM \(name)", [name])
        let rows = (size.first?[0] ?? nil) ?? "?"
        let bytes = (size.first?[1] ?? nil) ?? "?"
        print("filled \(name): \(rows) rows of \(devices) devices, one each \(spacing) s, \(bytes), in \(fillTime)")
        // Kept: a day less than the month's end is old, so this month (and nothing newer) goes.
        let keep = now.timeIntervalSince(month.next.start) - 86_400
        let started = ContinuousClock.now
        let outcome = try Retention(keep: keep, keepHourly: nil).apply(database, now: now)
        let took = ContinuousClock.now - started
        guard outcome.dropped.contains(name) else {
            throw FleetBench.Failure(description: "the retention dropped \(outcome.dropped), not \(name)")
        }
        let milliseconds = Double(took.components.seconds) * 1000 + Double(took.components.attoseconds) / 1e15
        print(
            String(
                format: "retention drop of %@ (%@ rows, %@): %.1f ms (the whole round; dropped: %@)", name,
                rows, bytes, milliseconds, outcome.dropped.joined(separator: ", ")))
    }
}
