import Foundation
import Platform

/// The collector's own `/metrics` (`[collect] metrics = HOST:PORT`), for Prometheus.
///
/// Contract: the families are fixed (docs/collector.md lists them, alerts rely on them),
/// each with `HELP` and `TYPE`, clean under `promtool check metrics`:
/// `airloc_collector_rows_stored_total{kind}`, `airloc_collector_rows_refused_total{reason}`,
/// `airloc_collector_acks_total`, `airloc_collector_rows_misdated_total`,
/// `airloc_collector_devices_rewound_total` (counters of this run),
/// `airloc_collector_device_rewound_timestamp_seconds{device}` (when this run last asked a
/// device for rows its database had lost; the latest 64), `airloc_collector_devices`
/// (heard lately), `airloc_collector_leases` (whose acknowledgements it publishes),
/// `airloc_collector_database_up` (1 only while rows can be stored: connected, and the last
/// store worked), `airloc_collector_database_fault{kind}` (1 for the fault that keeps rows
/// from being stored; no series while none does), `airloc_collector_broker_up`,
/// `airloc_collector_rows_waiting` and `airloc_collector_oldest_waiting_seconds` (how long
/// the oldest row received and not stored has waited; 0 when none waits),
/// `airloc_collector_devices_behind` and `airloc_collector_behind_seconds` (devices that
/// hold rows the store lacks and whose rows have not moved for 30 s, and the longest such
/// wait: rows taken by another subscriber, dropped by an ACL) (gauges),
/// `airloc_collector_batch_seconds` and `airloc_collector_lag_seconds` (histograms). The
/// values are the running collector's (``Collector/current``), read without waiting on it.
public enum CollectorMetrics {
    /// The exposition of `state`.
    public static func text(_ state: CollectorState, openMetrics: Bool, now: Date = Date()) -> String {
        var exposition = MetricsExposition(openMetrics: openMetrics)
        // Every kind is written, 0 before its first row: a counter that appears only later
        // would make rate() miss its first increase.
        exposition.counter(
            "airloc_collector_rows_stored", "Rows stored in PostgreSQL by this collector since it started, by kind.",
            ["track", "air", "sensor"].map { ("kind=\"\($0)\"", Double(state.storedByKind[$0] ?? 0)) })
        exposition.counter(
            "airloc_collector_rows_refused", "Messages refused since the collector started, by reason.",
            RefusalReason.allCases.map(\.rawValue).sorted().map {
                ("reason=\"\($0)\"", Double(state.refusedByReason[$0] ?? 0))
            })
        exposition.counter(
            "airloc_collector_acks", "Acknowledgements published to the devices since the collector started.",
            [("", Double(state.acksPublished))])
        exposition.counter(
            "airloc_collector_rows_misdated",
            "Rows stored by this collector since it started with a time far off (a clock years wrong): in the "
                + "default partition.", [("", Double(state.misdated))])
        exposition.counter(
            "airloc_collector_devices_rewound",
            "Times since the collector started that a device was asked for rows again: the database held fewer than "
                + "the device had been told were stored (a failover, a restore).", [("", Double(state.rewoundTotal))])
        exposition.gauge(
            "airloc_collector_device_rewound_timestamp_seconds",
            "Unix time this run last asked a device for rows the database had lost (the latest 64 devices).",
            state.rewound.sorted { $0.key < $1.key }.map {
                ("device=\"\(MetricsExposition.label($0.key))\"", $0.value.timeIntervalSince1970)
            })
        exposition.gauge(
            "airloc_collector_devices", "Devices the collector heard from lately (whose rows it may store).",
            [("", Double(state.devices))])
        exposition.gauge(
            "airloc_collector_leases",
            "Devices whose acknowledgements this collector publishes: a share group member's leases; alone, every "
                + "device it knows.", [("", Double(state.leases))])
        exposition.gauge(
            "airloc_collector_database_up",
            "1 while rows can be stored in PostgreSQL (connected, and the last store worked), else 0.",
            [("", state.database == .connected && state.databaseError == nil ? 1 : 0)])
        exposition.gauge(
            "airloc_collector_database_fault",
            "1 for the kind of fault that keeps rows from being stored (none while they are stored).",
            state.databaseFault.map { [("kind=\"\(MetricsExposition.label($0))\"", 1)] } ?? [])
        exposition.gauge(
            "airloc_collector_broker_up", "1 when the collector is connected to the MQTT broker, else 0.",
            [("", state.broker == .connected ? 1 : 0)])
        exposition.gauge(
            "airloc_collector_rows_waiting", "Rows received and not stored yet.", [("", Double(state.buffered))])
        exposition.gauge(
            "airloc_collector_oldest_waiting_seconds",
            "Seconds the oldest row received and not stored yet has waited (0 when none waits).",
            [("", state.oldestWaiting.map { max(0, now.timeIntervalSince($0)) } ?? 0)])
        let behind = DevicesBehind.reported(state.behind, at: now)
        exposition.gauge(
            "airloc_collector_devices_behind",
            "Devices that hold rows the store lacks (their hello says so, or rows stored above a gap) and whose rows "
                + "have not moved for 30 s: another subscriber takes them, or an ACL drops them.",
            [("", Double(behind.devices.count))])
        exposition.gauge(
            "airloc_collector_behind_seconds",
            "Seconds the device longest behind has waited with its rows not moving (0 when none is behind 30 s).",
            [("", behind.longest)])
        exposition.histogram(
            "airloc_collector_batch_seconds", "Seconds each stored batch's transaction took.", state.batchSeconds)
        exposition.histogram(
            "airloc_collector_lag_seconds", "Seconds from each stored row's time to its storing.", state.lagSeconds)
        return exposition.text
    }
}

/// The running collector's state as of its last event, for readers on other threads.
public final class CurrentState: Sendable {
    private let value = Lock(CollectorState())
    /// A state before anything happened.
    public init() {}
    /// The latest state.
    public var state: CollectorState { value.withLock { $0 } }
    func set(_ state: CollectorState) { value.withLock { $0 = state } }
}
