import Collector
import FleetStore
import Foundation
import Geo
import Platform

/// `[collect] keep`'s drop of a month (docs/collector.md, docs/performance.md):
/// `airloc-bench retention-drop CONNINFO DEVICES SPACING` fills the month three back of
/// the collector's `track` with DEVICES devices' rows, one every SPACING seconds each, then
/// times the retention that drops it, as the collector applies it.
///
/// The fill is SQL (`generate_series`), not the collector, and is checkpointed before the
/// drop (as a month past `keep` long has been): what is measured is the drop.
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
        // A month that `keep` drops is long written: its pages are on disk, none dirty. (Just
        // filled, its unlink would wait for the kernel's write-back and measure that.)
        try database.execute("CHECKPOINT")
        let name = month.name(.track)
        let size = try database.execute(
            "SELECT count(*), pg_size_pretty(pg_total_relation_size($1::regclass)) FROM \(name)", [name])
        let rows = (size.first?[0] ?? nil) ?? "?"
        let bytes = (size.first?[1] ?? nil) ?? "?"
        print("filled \(name): \(rows) rows of \(devices) devices, one each \(spacing) s, \(bytes), in \(fillTime)")
        // Kept: a day less than the month's end is old, so this month (and nothing newer) goes.
        let keep = now.timeIntervalSince(month.next.start) - 86_400
        // Beside it, a writer as the collector is: a row into this month every 10 ms, each
        // timed; its slowest is how long the drop held the rows back.
        let writer = try PostgresConnection(conninfo: conninfo, password: nil)
        defer { writer.close() }
        // The writer's state: rows written, its slowest, whether it is asked to stop and has.
        struct Writer: Sendable {
            var written = 0
            var slowest = Duration.zero
            var stop = false
            var finished = false
        }
        let state = GuardedState(Writer())
        let writing = Thread {
            var number = 1
            while !state.withLock({ $0.stop }) {
                let begun = ContinuousClock.now
                _ = try? writer.execute(
                    """
                    INSERT INTO track (device_id, incarnation, id, n, revision, time, stored_at, payload)
                    VALUES ('bench-keep-1', 'writer', $1, $2, 0, now(), now(), '{}')
                    """, ["t\(number)", String(number)])
                let took = ContinuousClock.now - begun
                state.change {
                    $0.slowest = max($0.slowest, took); $0.written += 1
                }
                number += 1
                // A row every 10 ms at most, as a collector's batches come.
                Thread.sleep(forTimeInterval: 0.01)
            }
            state.change { $0.finished = true }
        }
        writing.start()
        // The drop begins with the writer going (50 rows in), and ends with 20 more after it.
        _ = state.wait { $0.written >= 50 ? true : nil }
        let started = ContinuousClock.now
        let outcome = try Retention(keep: keep, keepHourly: nil).apply(database, now: now)
        let took = ContinuousClock.now - started
        let after = state.withLock { $0.written }
        _ = state.wait { $0.written >= after + 20 ? true : nil }
        state.change { $0.stop = true }
        let held = state.wait { $0.finished ? $0.slowest : nil } ?? .zero
        guard outcome.dropped.contains(name) else {
            throw FleetBench.Failure(description: "the retention dropped \(outcome.dropped), not \(name)")
        }
        let milliseconds = Double(took.components.seconds) * 1000 + Double(took.components.attoseconds) / 1e15
        let heldMilliseconds = Double(held.components.seconds) * 1000 + Double(held.components.attoseconds) / 1e15
        print(
            String(
                format: "retention drop of %@ (%@ rows, %@): %.1f ms (the whole round; dropped: %@); "
                    + "a writer's slowest row meanwhile: %.1f ms", name, rows, bytes, milliseconds,
                outcome.dropped.joined(separator: ", "), heldMilliseconds))
    }
}
