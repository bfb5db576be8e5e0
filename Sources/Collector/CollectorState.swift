import Foundation
import Geo
import Platform

/// What a running collector is doing, as it writes it for `airloc collect status`
/// (`collect-status.json` in its state directory, replaced every 2 s).
///
/// Contract: the document's schema is `airloc.collect-state/1`; `database` is
/// `connected` or `down` (with `database_error`), `broker` says `connected`,
/// `connecting: …`, `paused: …` or `stopped`. No password and no row is in it.
public struct CollectorState: Sendable, Equatable {
    /// The file's schema.
    public static let schema = "airloc.collect-state/1"
    /// The collector's process.
    public var pid = Int(ProcessInfo.processInfo.processIdentifier)
    /// When it started.
    public var started: Date?
    /// When it wrote this.
    public var written: Date?
    /// Whether rows can be stored.
    public var database = DatabaseLink.connecting
    /// Why rows cannot be stored (the database's own words); nil while they are.
    public var databaseError: String?
    /// The kind of that fault, for `/metrics` (`unreachable`, `disk_full`, `read_only`,
    /// `permission`, …; ``StoreFault/label(_:)``).
    public var databaseFault: String?
    /// The broker connection's state.
    public var broker = BrokerLink.connecting(nil)
    /// Rows received and not yet stored.
    public var buffered = 0
    /// When the oldest of them was received (nil: none waits).
    public var oldestWaiting: Date?
    /// Rows stored by this run.
    public var stored = 0
    /// The devices whose rows have not reached the store since this date while they hold
    /// rows it lacks (``DevicesBehind``): reported once the wait is 30 s old.
    public var behind: [String: Date] = [:]
    /// Messages refused.
    public var refused = 0
    /// Acknowledgements published.
    public var acksPublished = 0
    /// Replays asked for.
    public var replaysAsked = 0
    /// Devices known.
    public var devices = 0
    /// Devices whose acknowledgements this collector publishes: in a `[collect] share`
    /// group, the leases its last round was granted (a member without any still stores its
    /// share of the rows); alone, every device it knows (`/metrics`; not in the file).
    public var leases = 0
    /// Rows stored by this run, by kind (`/metrics`; not in the file).
    public var storedByKind: [String: Int] = [:]
    /// Rows stored by this run with a time outside the months the tables keep apart (a
    /// clock far off: more than ``PartitionMonth/monthsBack`` months back, or over a month
    /// ahead), which land in the default partition (`/metrics`; not in the file).
    public var misdated = 0
    /// The devices whose rows this run asked for again because the database held fewer than
    /// they had been told were stored (a failover, a restore), and when: the latest
    /// ``rewoundKept`` (`/metrics`; not in the file: `collect status` reads the devices'
    /// `rewound_at`).
    public var rewound: [String: Date] = [:]
    /// How many devices ``rewound`` names at most (a broker without ACLs lets anyone claim a
    /// device): the oldest goes first.
    public static let rewoundKept = 64
    /// Times this run asked a device for rows again, in all.
    public var rewoundTotal = 0
    /// Messages refused by this run, by reason (`/metrics` and the file's `refused_by_reason`).
    public var refusedByReason: [String: Int] = [:]
    /// Seconds each stored batch's transaction took.
    public var batchSeconds = Histogram(bounds: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10])
    /// Seconds from each stored row's time to its storing.
    public var lagSeconds = Histogram(bounds: [0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600, 86_400])

    /// The state before anything happened.
    public init() {}

    /// `device`'s rows were asked for again at `date`.
    mutating func rewind(_ device: String, at date: Date) {
        rewoundTotal += 1
        rewound[device] = date
        if rewound.count > Self.rewoundKept, let oldest = rewound.min(by: { $0.value < $1.value })?.key {
            rewound[oldest] = nil
        }
    }

    /// The file's content.
    public var json: String {
        var object: [String: Any] = [
            "schema": Self.schema, "pid": pid, "database": database.rawValue, "broker": broker.text,
            "buffered": buffered,
            "stored": stored, "refused": refused, "acks_published": acksPublished, "replays_asked": replaysAsked,
            "devices": devices,
        ]
        object["started"] = started.map(UTCTime.iso8601Seconds) ?? NSNull()
        object["written"] = written.map(UTCTime.iso8601Seconds) ?? NSNull()
        object["database_error"] = databaseError ?? NSNull()
        object["database_fault"] = databaseFault ?? NSNull()
        object["oldest_waiting"] = oldestWaiting.map(UTCTime.iso8601Seconds) ?? NSNull()
        object["refused_by_reason"] = refusedByReason
        object["behind"] = behind.mapValues(UTCTime.iso8601Seconds)
        let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// The document a collector wrote, or nil when it is not one.
    public init?(json: String) {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any],
            object["schema"] as? String == Self.schema
        else { return nil }
        pid = object["pid"] as? Int ?? 0
        started = (object["started"] as? String).flatMap(UTCTime.parse)
        written = (object["written"] as? String).flatMap(UTCTime.parse)
        database = (object["database"] as? String).flatMap(DatabaseLink.init(rawValue:)) ?? .connecting
        databaseError = object["database_error"] as? String
        databaseFault = object["database_fault"] as? String
        oldestWaiting = (object["oldest_waiting"] as? String).flatMap(UTCTime.parse)
        broker = BrokerLink(text: object["broker"] as? String ?? "")
        buffered = object["buffered"] as? Int ?? 0
        stored = object["stored"] as? Int ?? 0
        refused = object["refused"] as? Int ?? 0
        acksPublished = object["acks_published"] as? Int ?? 0
        replaysAsked = object["replays_asked"] as? Int ?? 0
        devices = object["devices"] as? Int ?? 0
        refusedByReason = object["refused_by_reason"] as? [String: Int] ?? [:]
        behind = (object["behind"] as? [String: String] ?? [:]).compactMapValues(UTCTime.parse)
    }
}

/// Whether the collector can store rows: the `database` of its status file.
public enum DatabaseLink: String, Sendable, Equatable {
    /// Not connected yet.
    case connecting
    /// Connected, and the last store worked (or none was needed yet).
    case connected
    /// Unreachable, or refusing the rows (`database_error` says why).
    case down
}

/// The collector's broker connection: the `broker` of its status file, where it is written
/// `connected`, `connecting` (`connecting: why` while a problem lasts), `paused: why` or
/// `stopped`.
public enum BrokerLink: Sendable, Equatable {
    /// Connecting, with the problem that keeps it from it, if any.
    case connecting(String?)
    /// Connected and subscribed.
    case connected
    /// Left, while rows cannot be stored: why.
    case paused(String)
    /// The collector stopped.
    case stopped

    /// As the status file writes it.
    public var text: String {
        switch self {
        case .connecting(let problem): return problem.map { "connecting: \($0)" } ?? "connecting"
        case .connected: return "connected"
        case .paused(let why): return "paused: \(why)"
        case .stopped: return "stopped"
        }
    }

    /// The state a status file's `text` says.
    public init(text: String) {
        if text == "connected" {
            self = .connected
        } else if text == "stopped" {
            self = .stopped
        } else if text.hasPrefix("paused: ") {
            self = .paused(String(text.dropFirst("paused: ".count)))
        } else {
            self = .connecting(text.hasPrefix("connecting: ") ? String(text.dropFirst("connecting: ".count)) : nil)
        }
    }
}

extension CollectorMachine {
    /// The status a running collector writes, as of now.
    public func status(at date: Date) -> CollectorState {
        var state = self.state
        state.buffered = waiting.rows.count
        state.devices = known.count
        if !isShared { state.leases = known.count }
        state.written = date
        var oldest = waiting.rows.first?.received
        if let first = database.storing?.rows.first?.received {
            oldest = min(oldest ?? first, first)
        }
        state.oldestWaiting = oldest
        state.behind = behind.behind
        return state
    }
}
