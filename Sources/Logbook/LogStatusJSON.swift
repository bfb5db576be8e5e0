import FleetWire
import Foundation
import Geo
import Platform

/// `airloc log status --json`, schema `airloc.log-status/1` (docs/json-schema.md): what
/// the logbook holds, how big it is on disk, and what is still to be delivered.
///
/// Contract: times are ISO 8601 UTC to the second; `size_bytes` counts the database and its
/// write-ahead log; `unsent` is 0 without a broker, `unstored` 0 without a collector.
public struct LogStatusJSON: Encodable, Sendable {
    /// The document's schema.
    public var schema = "airloc.log-status/1"
    /// The file.
    public var database: String
    /// The database and its write-ahead log, bytes.
    public var sizeBytes: Int
    /// Track points.
    public var trackRows: Int
    /// Air readings.
    public var airRows: Int
    /// Measured readings.
    public var sensorRows: Int
    /// Segments.
    public var segments: Int
    /// Hours still to be back-filled.
    public var pending: Int
    /// Hours the service had no data for.
    public var unavailable: Int
    /// The first track point's time.
    public var firstTime: String?
    /// The last track point's time.
    public var lastTime: String?
    /// Seconds since the last track point.
    public var lastFixAgeS: Double?
    /// The logger's last error still going on.
    public var lastError: String?
    /// When it began.
    public var lastErrorAt: String?
    /// Rows the MQTT broker has not acknowledged yet (0 without a broker).
    public var unsent: Int
    /// Rows the fleet collector has not said it stored (0 without `end-to-end = collector`).
    public var unstored: Int
    /// The collector's last acknowledgement, as the device received it.
    public var collectorAck: CollectorAck?
    /// The process of the `log run` writing this logbook now, or nil when none runs.
    public var loggerPid: Int?

    /// Each `[upload.NAME]`: its backlog (rows after its cursor), what it sent and
    /// skipped, and its last error and success.
    public var uploads: [Upload] = []

    /// One upload's state: its section, and its status as the logbook keeps it (the
    /// status's fields written beside `name` and `type`, as schema airloc.log-status/1 has them).
    public struct Upload: Encodable, Sendable, Equatable {
        /// The section's name.
        public var name: String
        /// Its type.
        public var type: String
        /// Its backlog, what it sent and skipped, its last error and success.
        public var status: Logbook.UploadStatus

        private enum Key: String, CodingKey { case name, type }

        /// The fields side by side, as one object.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(name, forKey: .name)
            try container.encode(type, forKey: .type)
            try status.encode(to: encoder)
        }
    }

    /// The collector's last acknowledgement.
    public struct CollectorAck: Encodable, Sendable, Equatable {
        /// When the collector said it.
        public var time: String
        /// Track rows stored through this id.
        public var track: Int
        /// Air rows stored through this id.
        public var air: Int
        /// Sensor rows stored through this id.
        public var sensor: Int
    }

    /// An `[upload.NAME]` as the status shows it: its name, its type, the kinds it takes.
    public struct UploadSection: Sendable, Equatable {
        /// The section's name.
        public var name: String
        /// Its type.
        public var type: String
        /// The kinds of rows it takes.
        public var kinds: [RowKind]

        /// A section.
        public init(name: String, type: String, kinds: [RowKind]) {
            self.name = name
            self.type = type
            self.kinds = kinds
        }
    }

    /// The document for `logbook` as it is at `now`, with the `[upload.NAME]`s configured.
    public init(_ logbook: Logbook, now: Date, uploads: [UploadSection] = []) throws(LogbookError) {
        let status = try logbook.status(now: now)
        let path = logbook.url.path
        database = path
        sizeBytes = ["", "-wal"].reduce(0) { total, suffix in
            total + ((try? FileManager.default.attributesOfItem(atPath: path + suffix)[.size] as? Int) ?? 0)
        }
        (trackRows, airRows, segments) = (status.trackRows, status.airRows, status.segments)
        sensorRows = status.sensorRows
        (pending, unavailable) = (status.pending, status.unavailable)
        firstTime = status.firstTime.map(UTCTime.iso8601Seconds)
        lastTime = status.lastTime.map(UTCTime.iso8601Seconds)
        lastFixAgeS = status.lastFixAge.map { ($0 * 10).rounded() / 10 }
        (lastError, lastErrorAt) = (status.lastError, status.lastErrorAt)
        unsent = (try? logbook.unsentCount()) ?? 0
        unstored = (try? logbook.unstoredCount()) ?? 0
        collectorAck = Self.ack((try? logbook.meta(Logbook.lastAckKey)) ?? nil)
        loggerPid = WriterLock.holder(beside: logbook.url).map(Int.init)
        for upload in uploads {
            let status = try logbook.uploadStatus(upload.name, kinds: upload.kinds)
            self.uploads.append(Upload(name: upload.name, type: upload.type, status: status))
        }
    }

    /// The fields of an `airloc.ack/1` message (docs/collector.md), or nil.
    static func ack(_ json: String?) -> CollectorAck? {
        guard let json, let object = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any],
            let time = object["time"] as? String, let through = object["through"] as? [String: Any]
        else { return nil }
        func id(_ kind: String) -> Int { (through[kind] as? NSNumber)?.intValue ?? 0 }
        return CollectorAck(time: time, track: id("track"), air: id("air"), sensor: id("sensor"))
    }
}

extension LogStatusJSON {
    /// `log status` for people: one line per part, the parts without news left out.
    public var text: String {
        var lines = [
            "database:  \(database) (\(sizeBytes / 1024) KiB)",
            "track:     \(count: trackRows, "point") in \(count: segments, "segment")",
            "air:       \(count: airRows, "reading") (\(pending) pending back-fill, "
                + "\(unavailable) unavailable)",
        ]
        if sensorRows > 0 { lines.append("sensor:    \(count: sensorRows, "measured reading")") }
        if let first = firstTime, let last = lastTime {
            lines.append("time:      \(first) – \(last)")
        }
        if let age = lastFixAgeS { lines.append("last fix:  \(formatAge(age)) ago") }
        lines.append("logger:    " + (loggerPid.map { "running (process \($0))" } ?? "not running"))
        if unsent > 0 {
            lines.append("mqtt:      \(count: unsent, "row") not yet acknowledged by the broker")
        }
        if unstored > 0 || collectorAck != nil {
            let ack = collectorAck.map {
                "; last ack \($0.time): track t\($0.track), air a\($0.air), sensor s\($0.sensor)"
            }
            lines.append("collector: \(count: unstored, "row") not yet stored\(ack ?? "; no ack yet")")
        }
        for upload in uploads {
            let error =
                upload.status.lastError.map {
                    "; last error \($0)" + (upload.status.lastErrorAt.map { " (\($0))" } ?? "")
                } ?? ""
            lines.append(
                "upload:    \(upload.name) (\(upload.type)): \(count: upload.status.backlog, "row") waiting, \(upload.status.sent) sent, "
                    + "\(upload.status.skipped) skipped\(error)")
        }
        if let error = lastError {
            lines.append("last error: \(error)" + (lastErrorAt.map { " (\($0))" } ?? ""))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
