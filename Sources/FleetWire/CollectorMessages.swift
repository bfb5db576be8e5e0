import Foundation
import Geo
import Platform

/// The messages a device and the collector exchange for the end-to-end acknowledgement
/// (`[mqtt] end-to-end = collector`; docs/collector.md, "On the wire"). Row kinds are
/// named on the wire as the export names them (``RowKind``): `track`, `air`, `sensor`.
///
/// Contract: each has a `schema`; a message with another schema, or not of this shape,
/// decodes to nil and is ignored (a newer collector's message is never misread); a kind
/// that is not a row's is left out.
public enum CollectorMessages {
    /// `<prefix>/ack`, retained, from the collector: per kind, every row through `through`
    /// is stored; `revised` rows (`t3` → 2) are stored at that revision or a newer one.
    public struct Ack: Sendable, Equatable {
        /// The message's schema.
        public static let schema = "airloc.ack/1"
        /// Per kind, every row through this id is stored.
        public var through: [RowKind: Int64]
        /// Changed rows stored (`t3` → 2): at that revision or a newer one.
        public var revised: [String: Int64]
        /// When the collector said it.
        public var time: Date
        /// The logbook incarnation it speaks of (empty: a logbook made before incarnations,
        /// or an older collector); a device ignores an acknowledgement of another.
        public var incarnation: String
        /// Per kind, rows stored above `through` (at revision 0), as ranges of ids, lowest
        /// first, at most ``storedRangesAtMost``: a device counts them stored while the gap
        /// below them is still being filled (absent from an older collector's message).
        public var stored: [RowKind: [ClosedRange<Int64>]]

        /// How many ranges per kind a message carries at most (the lowest ones: the next
        /// acknowledgement carries the rest once the gaps below them are filled).
        public static let storedRangesAtMost = 32

        /// An acknowledgement.
        public init(
            through: [RowKind: Int64], revised: [String: Int64], time: Date, incarnation: String = "",
            stored: [RowKind: [ClosedRange<Int64>]] = [:]
        ) {
            self.through = through
            self.revised = revised
            self.time = time
            self.incarnation = incarnation
            self.stored = stored.filter { !$0.value.isEmpty }
        }

        /// `ids` (stored ids above a `through`) as ranges, lowest first, at most
        /// ``storedRangesAtMost``.
        public static func ranges(_ ids: some Collection<Int64>) -> [ClosedRange<Int64>] {
            var ranges: [ClosedRange<Int64>] = []
            for id in ids.sorted() {
                if let last = ranges.last, id <= last.upperBound + 1 {
                    ranges[ranges.count - 1] = last.lowerBound...max(last.upperBound, id)
                } else {
                    guard ranges.count < storedRangesAtMost else { break }
                    ranges.append(id...id)
                }
            }
            return ranges
        }

        /// The message as the collector publishes it.
        /// Written by hand, keys sorted as before: it is made for every device after every
        /// batch, and Foundation's writer was a fifth of the collector's CPU.
        public var json: String {
            func counts(_ values: [String: Int64]) -> String {
                "{"
                    + values.sorted { $0.key < $1.key }.map { "\(JSONText.quoted($0.key)):\($0.value)" }
                    .joined(separator: ",") + "}"
            }
            let ranges =
                stored.isEmpty
                ? ""
                : "\"stored\":{"
                    + stored.sorted { $0.key.rawValue < $1.key.rawValue }.map { kind, ranges in
                        "\"\(kind.rawValue)\":["
                            + ranges.map { "[\($0.lowerBound),\($0.upperBound)]" }.joined(separator: ",") + "]"
                    }.joined(separator: ",") + "},"
            return "{" + (incarnation.isEmpty ? "" : "\"incarnation\":\(JSONText.quoted(incarnation)),")
                + "\"revised\":\(counts(revised)),\"schema\":\"\(Self.schema)\"," + ranges
                + "\"through\":\(counts(CollectorMessages.named(through))),\"time\":\"\(UTCTime.iso8601(time))\"}"
        }

        /// The message in `json`, or nil when it is not one.
        public init?(json: String) {
            guard let object = CollectorMessages.decode(json, schema: Self.schema),
                let through = CollectorMessages.counts(object["through"]),
                let time = (object["time"] as? String).flatMap(UTCTime.parse)
            else { return nil }
            self.through = CollectorMessages.kinds(through)
            self.revised = CollectorMessages.counts(object["revised"] ?? [String: Any]()) ?? [:]
            self.time = time
            self.incarnation = CollectorMessages.incarnation(object["incarnation"])
            self.stored = CollectorMessages.storedRanges(object["stored"])
        }
    }

    /// `<prefix>/replay`, from the collector: send the rows of `kind` again from id `from`,
    /// through `until` when it is given (the gap's end: rows above it are stored).
    public struct Replay: Sendable, Equatable {
        /// The message's schema.
        public static let schema = "airloc.replay/1"
        /// The kind of rows asked for.
        public var kind: RowKind
        /// The first id asked for.
        public var from: Int64
        /// The last id asked for (nil: every id from `from` on; an older collector's request).
        public var until: Int64?
        /// The logbook incarnation asked (empty: the one made before incarnations).
        public var incarnation: String

        /// A request for `kind` rows from `from` through `until`.
        public init(kind: RowKind, from: Int64, until: Int64? = nil, incarnation: String = "") {
            self.kind = kind
            self.from = from
            self.until = until
            self.incarnation = incarnation
        }

        /// The message as the collector publishes it.
        public var json: String {
            var object: [String: Any] = ["schema": Self.schema, "kind": kind.rawValue, "from": from]
            if let until { object["until"] = until }
            if !incarnation.isEmpty { object["incarnation"] = incarnation }
            return CollectorMessages.encode(object)
        }

        /// The message in `json`, or nil when it is not one.
        public init?(json: String) {
            guard let object = CollectorMessages.decode(json, schema: Self.schema),
                let kind = (object["kind"] as? String).flatMap(RowKind.init(rawValue:)),
                let from = JSONNumber.integer(object["from"]), from > 0
            else { return nil }
            var until: Int64?
            if let value = object["until"] {
                guard let number = JSONNumber.integer(value), number >= from else { return nil }
                until = number
            }
            self.kind = kind
            self.from = from
            self.until = until
            self.incarnation = CollectorMessages.incarnation(object["incarnation"])
        }
    }

    /// `<prefix>/hello`, retained, from the device on every connection: who it is, what it
    /// runs, and per kind the first id it still delivers (those below are stored already,
    /// or were logged before it published: the collector expects none of them).
    public struct Hello: Sendable, Equatable {
        /// The message's schema.
        public static let schema = "airloc.hello/1"
        /// The device's id.
        public var device: String
        /// What it runs ("0.2.0").
        public var software: String
        /// Per kind, the first id it still delivers.
        public var first: [RowKind: Int64]
        /// Per kind, the `through` of the last acknowledgement it received (empty before the
        /// first): a collector that holds less has forgotten rows (a database restored from
        /// a backup) and must not take `first` as the word that they are stored.
        public var acked: [RowKind: Int64]
        /// Its logbook's incarnation (empty: made before incarnations): `first` and `acked`
        /// speak of its rows.
        public var incarnation: String
        /// Per kind, the newest id it holds (empty from an older device): a collector whose
        /// store stays below it while the device goes on saying so is not receiving the
        /// device's rows (another subscriber takes them, an ACL drops them).
        public var last: [RowKind: Int64]

        /// A hello.
        public init(
            device: String, software: String, first: [RowKind: Int64], acked: [RowKind: Int64] = [:],
            incarnation: String = "", last: [RowKind: Int64] = [:]
        ) {
            self.device = device
            self.software = software
            self.first = first
            self.acked = acked
            self.incarnation = incarnation
            self.last = last
        }

        /// The message as the device publishes it.
        public var json: String {
            var object: [String: Any] = [
                "schema": Self.schema, "device": device, "software": software, "first": CollectorMessages.named(first),
                "acked": CollectorMessages.named(acked),
            ]
            if !incarnation.isEmpty { object["incarnation"] = incarnation }
            if !last.isEmpty { object["last"] = CollectorMessages.named(last) }
            return CollectorMessages.encode(object)
        }

        /// The message in `json`, or nil when it is not one.
        public init?(json: String) {
            guard let object = CollectorMessages.decode(json, schema: Self.schema),
                let device = object["device"] as? String, let first = CollectorMessages.counts(object["first"])
            else { return nil }
            self.device = device
            self.software = String((object["software"] as? String ?? "").prefix(100))
            self.first = CollectorMessages.kinds(first)
            self.acked = CollectorMessages.kinds(CollectorMessages.counts(object["acked"] ?? [String: Any]()) ?? [:])
            self.incarnation = CollectorMessages.incarnation(object["incarnation"])
            self.last = CollectorMessages.kinds(CollectorMessages.counts(object["last"] ?? [String: Any]()) ?? [:])
        }
    }

    /// An incarnation as the wire carries it: up to 32 letters and digits; anything else
    /// (or none) is the empty one.
    public static func incarnation(_ value: Any?) -> String {
        guard let text = value as? String, text.utf8.count <= 32,
            text.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) })
        else { return "" }
        return text
    }

    /// Counts by kind as the wire writes them (`{"track": 3}`).
    static func named(_ counts: [RowKind: Int64]) -> [String: Int64] {
        Dictionary(uniqueKeysWithValues: counts.map { ($0.key.rawValue, $0.value) })
    }

    /// The counts of the row kinds among `counts`; other keys are left out.
    static func kinds(_ counts: [String: Int64]) -> [RowKind: Int64] {
        var kinds: [RowKind: Int64] = [:]
        for (name, count) in counts { if let kind = RowKind(rawValue: name) { kinds[kind] = count } }
        return kinds
    }

    static func encode(_ object: [String: Any]) -> String {
        let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        return data.map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    static func decode(_ json: String, schema: String) -> [String: Any]? {
        guard json.utf8.count <= 65_536,
            let object = (try? JSONSerialization.jsonObject(with: Data(json.utf8))) as? [String: Any],
            object["schema"] as? String == schema
        else { return nil }
        return object
    }

    /// `{"name": non-negative integer}`, or nil when any value is not one.
    /// An acknowledgement's `stored`: per kind, `[from, through]` pairs; what is not one
    /// (a damaged pair, a reversed range, a kind not known, more than the cap) is left out.
    static func storedRanges(_ value: Any?) -> [RowKind: [ClosedRange<Int64>]] {
        guard let object = value as? [String: Any] else { return [:] }
        var stored: [RowKind: [ClosedRange<Int64>]] = [:]
        for (name, list) in object {
            guard let kind = RowKind(rawValue: name), let pairs = list as? [Any] else { continue }
            let ranges = pairs.prefix(Ack.storedRangesAtMost).compactMap { pair -> ClosedRange<Int64>? in
                guard let ends = pair as? [Any], ends.count == 2, let low = JSONNumber.integer(ends[0]),
                    let high = JSONNumber.integer(ends[1]), low >= 1, low <= high
                else { return nil }
                return low...high
            }
            if !ranges.isEmpty { stored[kind] = ranges }
        }
        return stored
    }

    static func counts(_ value: Any?) -> [String: Int64]? {
        guard let object = value as? [String: Any] else { return nil }
        var counts: [String: Int64] = [:]
        for (key, value) in object {
            guard let number = JSONNumber.integer(value), number >= 0 else { return nil }
            counts[key] = number
        }
        return counts
    }
}
