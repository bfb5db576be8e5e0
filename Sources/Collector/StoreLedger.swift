import FleetWire

/// What the collector has stored of each device's rows, as the acknowledgements say it:
/// per device and kind, the highest id through which every row is stored, the gaps
/// above it, and when to ask the device to replay from a gap.
///
/// Its "devices" are stream owners (``StreamOwner``): a device's logbook of one
/// incarnation.
///
/// Contract (a pure state machine: the collector feeds it events and acts on what it
/// returns; time is passed in, so it is tested on a manual clock):
/// - ``stored(_:at:)`` after a commit: each row's id joins its stream; `through` advances
///   over every id now contiguous. It returns the acknowledgements to publish, one per
///   device that stored anything.
/// - ``declared(device:first:)``: the device's `hello` says which id of each kind it
///   delivers first; ids below it are never expected (rows logged before a broker was
///   configured, or stored long ago) once a row at or past it is stored and none below:
///   `through` never passes ids no row was stored for on a claim alone.
/// - ``due(at:)``: a stream's gaps (ids missing between `through` and the highest id
///   stored above it) still open after `gapGrace` are asked for at once, each gap its own
///   range (at most ``rangesAtMost`` a round), then again every `replayEvery` while open.
/// - A row stored with a revision above 0 is listed in the device's acknowledgements
///   (the newest `revisedLimit` such rows), so that the device learns which revision
///   of a changed row is stored: `through` alone speaks of ids, not of content.
public struct StoreLedger: Sendable {
    /// One device's rows of one kind.
    public struct StreamKey: Hashable, Sendable, Comparable {
        /// The device.
        public var device: String
        /// The kind.
        public var kind: RowKind

        /// Ordered by device, then kind.
        public static func < (a: StreamKey, b: StreamKey) -> Bool { (a.device, a.kind) < (b.device, b.kind) }
    }

    /// What the device is told: `<prefix>/ack`, retained.
    public struct Acknowledgement: Sendable, Equatable {
        /// The device told.
        public var device: String
        /// Per kind, every row through this id is stored (0: none yet).
        public var through: [RowKind: Int64]
        /// Rows stored with a revision above 0 (`t3` → 2): that revision or a newer one.
        public var revised: [String: Int64]
        /// Per kind, the ids stored above `through` as ranges (the lowest
        /// ``CollectorMessages/Ack/storedRangesAtMost``), so that the device counts them
        /// stored while a gap below them is filled.
        public var stored: [RowKind: [ClosedRange<Int64>]] = [:]
    }

    /// "Send the rows of `kind` again, from id `from` through `until`": `<prefix>/replay`.
    public struct ReplayRequest: Sendable, Equatable {
        /// The device asked.
        public var device: String
        /// The kind asked for.
        public var kind: RowKind
        /// The first id asked for.
        public var from: Int64
        /// The last id asked for: the gap's end (the ids above it are stored).
        public var until: Int64
    }

    private struct Stream: Sendable {
        var through: Int64 = 0
        var above: Set<Int64> = []
        var gapSince: ContinuousClock.Instant?
        var askedAt: ContinuousClock.Instant?
        /// The device's hello: the first id it still delivers.
        var declaredFirst: Int64?

        mutating func absorb() {
            // A hello's first id is believed only as far as rows bear it out: once the
            // lowest row stored above `through` is at or past it, the ids between are the
            // ones the device said never come. A claim alone moves nothing, so a forged
            // hello (any account on an open broker can retain one) cannot acknowledge ids
            // no row was stored for.
            if let first = declaredFirst, first - 1 > through, let lowest = above.min(), lowest >= first {
                through = first - 1
            }
            while above.remove(through + 1) != nil { through += 1 }
            // Ids at or below `through` (declared, or stored twice) are done with.
            if let lowest = above.min(), lowest <= through { above = above.filter { $0 > through } }
        }
    }

    private var streams: [StreamKey: Stream] = [:]
    /// The streams with a gap: kept as they change, since the collector asks for them on
    /// every round of its loop.
    private var open = Set<StreamKey>()
    /// Each device's stream owners (its incarnations): every owner known, by device.
    private var ownersByDevice: [String: [String]] = [:]
    private var dueAcknowledgements = Set<String>()
    /// The streams whose `through` moved since the database last had it written: a batch
    /// writes these, not every stream ever seen (with many devices, that was the batch's
    /// whole cost).
    private var unwritten = Set<StreamKey>()
    private var revised: [String: (order: [String], revisions: [String: Int64])] = [:]
    /// How long a gap may stay open before it is asked for.
    public let gapGrace: Duration
    /// How often an open gap is asked for again.
    public let replayEvery: Duration
    /// Changed rows listed in an acknowledgement at most.
    public let revisedLimit: Int

    /// A ledger with nothing stored.
    public init(gapGrace: Duration = .seconds(10), replayEvery: Duration = .seconds(30), revisedLimit: Int = 1024) {
        self.gapGrace = gapGrace
        self.replayEvery = replayEvery
        self.revisedLimit = revisedLimit
    }

    /// Every stream's `through`.
    public var throughs: [StreamKey: Int64] { streams.mapValues(\.through) }

    /// What a batch of `rows` writes: each of their streams' `through` once they are stored,
    /// and every other `through` the database has not had written yet (kept so that a
    /// restart starts there). Only the streams the rows touch are worked on: copying the
    /// whole ledger for it cost a batch as much as the devices known.
    public func throughs(afterStoring rows: [DeviceRow]) -> [StreamKey: Int64] {
        var touched: [StreamKey: Stream] = [:]
        for row in rows {
            let key = StreamKey(device: row.owner, kind: row.kind)
            var stream = touched[key] ?? streams[key] ?? Stream()
            if row.number > stream.through { stream.above.insert(row.number) }
            stream.absorb()
            touched[key] = stream
        }
        var result: [StreamKey: Int64] = [:]
        for key in unwritten { result[key] = streams[key]?.through ?? 0 }
        for (key, stream) in touched { result[key] = stream.through }
        return result
    }

    /// The database has these `through`s now.
    public mutating func written(_ throughs: [StreamKey: Int64]) {
        for (key, through) in throughs where (streams[key]?.through ?? 0) <= through { unwritten.remove(key) }
    }

    /// The stream owners known (a device, or a device's logbook incarnation:
    /// ``StreamOwner``), sorted.
    public var devices: [String] { ownersByDevice.values.flatMap { $0 }.sorted() }

    /// Forgets every stream of `device` (all its incarnations): it is read from the
    /// database again before anything is said of it.
    public mutating func forget(device: String) {
        guard let owners = ownersByDevice.removeValue(forKey: device) else { return }
        for owner in owners {
            for kind in RowKind.allCases {
                let key = StreamKey(device: owner, kind: kind)
                streams[key] = nil
                open.remove(key)
                unwritten.remove(key)
            }
            revised[owner] = nil
        }
        dueAcknowledgements.subtract(owners)
    }

    /// The stream owners (incarnations) of `device` known.
    public func owners(of device: String) -> [String] { ownersByDevice[device] ?? [] }

    /// Whether a stream of `device` has a gap (ids stored above its `through`).
    public func hasGap(device: String) -> Bool {
        owners(of: device).contains { owner in
            RowKind.allCases.contains { open.contains(StreamKey(device: owner, kind: $0)) }
        }
    }

    /// Per kind, `owner`'s `through` and the highest id stored (`through` when none is
    /// stored above it): what ``DevicesBehind`` compares with what the device holds.
    public func reach(of owner: String) -> [RowKind: (through: Int64, highest: Int64)] {
        var reach: [RowKind: (through: Int64, highest: Int64)] = [:]
        for kind in RowKind.allCases {
            guard let stream = streams[StreamKey(device: owner, kind: kind)] else { continue }
            reach[kind] = (stream.through, max(stream.through, stream.above.max() ?? 0))
        }
        return reach
    }

    /// Whether any stream of `device` (any of its incarnations) is known.
    public func holds(device: String) -> Bool { ownersByDevice[device] != nil }

    /// How many devices are known (a device of two incarnations counts once).
    public var deviceCount: Int { ownersByDevice.count }

    private mutating func track(_ key: StreamKey, movedFrom before: Int64? = nil) {
        if let before, streams[key]?.through != before { unwritten.insert(key) }
        let device = StreamOwner.split(key.device).device
        if ownersByDevice[device]?.contains(key.device) != true {
            ownersByDevice[device, default: []].append(key.device)
        }
        if streams[key]?.above.isEmpty == false { open.insert(key) } else { open.remove(key) }
    }

    /// What the database says was stored (`through`, and the ids above it): at start, and
    /// in a `[collect] share` group after every round (`now`: a gap it shows is open from
    /// then, to be asked for as one the collector stored).
    public mutating func loaded(
        device: String, kind: RowKind, through: Int64, storedAbove: [Int64], at now: ContinuousClock.Instant? = nil
    ) {
        let key = StreamKey(device: device, kind: kind)
        var stream = streams[key] ?? Stream()
        let before = stream.through
        stream.through = max(stream.through, through)
        stream.above.formUnion(storedAbove)
        stream.absorb()
        if let now {
            stream.gapSince = stream.above.isEmpty ? nil : (stream.gapSince ?? now)
            if stream.above.isEmpty { stream.askedAt = nil }
        }
        streams[key] = stream
        // What the database said it holds needs no writing back; what the ids above moved does.
        track(key, movedFrom: max(before, through))
    }

    /// Rows of `device` another collector of the group stored with a revision above 0.
    public mutating func revised(device: String, _ rows: [String: Int64]) {
        for (id, revision) in rows.sorted(by: { $0.key < $1.key }) { remember(id: id, revision: revision, of: device) }
    }

    /// The kinds of which `device` was acknowledged more (`acked`, its hello's word) than
    /// this store holds: the store forgot rows (its database restored from a backup, a
    /// lagging replica). The device sends them again once it hears the smaller `through`.
    public func forgot(device: String, acked: [RowKind: Int64]) -> [RowKind] {
        acked.filter { kind, through in through > (streams[StreamKey(device: device, kind: kind)]?.through ?? 0) }
            .keys.sorted()
    }

    /// The device says it delivers ids from `first` on, per kind (its latest hello's word
    /// replaces an earlier one); returns its acknowledgement when that moved `through` (it
    /// is then due). The ids below `first` count as never coming only once a row at or past
    /// `first` is stored and none below it: until then the claim moves nothing.
    public mutating func declared(device: String, first: [RowKind: Int64]) -> Acknowledgement? {
        var moved = false
        for (kind, first) in first where first > 1 {
            let key = StreamKey(device: device, kind: kind)
            let before = streams[key]?.through ?? 0
            streams[key, default: Stream()].declaredFirst = first
            streams[key]?.absorb()
            track(key, movedFrom: before)
            if streams[key]?.through != before { moved = true }
        }
        return moved ? acknowledgement(for: device) : nil
    }

    /// `device`'s acknowledgement is to be published with the next commit (a hello moved it).
    public mutating func markDue(_ device: String) { dueAcknowledgements.insert(device) }

    /// The devices marked due since the last call.
    public mutating func takeDue() -> [String] {
        defer { dueAcknowledgements.removeAll() }
        return dueAcknowledgements.sorted()
    }

    /// Whether a version of `row`'s id may be stored: its id is at or below its stream's
    /// `through` (stored, or declared never coming), or stored above it.
    public func mayHold(_ row: DeviceRow) -> Bool {
        guard let stream = streams[StreamKey(device: row.owner, kind: row.kind)] else { return false }
        return row.number <= stream.through || stream.above.contains(row.number)
    }

    /// After a commit of `rows`: the acknowledgements to publish.
    public mutating func stored(_ rows: [DeviceRow], at now: ContinuousClock.Instant) -> [Acknowledgement] {
        var touched = Set<String>()
        for row in rows {
            let key = StreamKey(device: row.owner, kind: row.kind)
            var stream = streams[key] ?? Stream()
            let before = streams[key] == nil ? -1 : stream.through
            if row.number > stream.through { stream.above.insert(row.number) }
            stream.absorb()
            stream.gapSince = stream.above.isEmpty ? nil : (stream.gapSince ?? now)
            if stream.above.isEmpty { stream.askedAt = nil }
            streams[key] = stream
            track(key, movedFrom: before)
            if row.revision > 0 { remember(id: row.id, revision: row.revision, of: row.owner) }
            touched.insert(row.owner)
        }
        return touched.sorted().map(acknowledgement(for:))
    }

    private mutating func remember(id: String, revision: Int64, of owner: String) {
        var entry = revised[owner] ?? ([], [:])
        if entry.revisions[id] == nil { entry.order.append(id) }
        entry.revisions[id] = max(entry.revisions[id] ?? 0, revision)
        if entry.order.count > revisedLimit {
            let dropped = entry.order.count - revisedLimit
            for id in entry.order.prefix(dropped) { entry.revisions[id] = nil }
            entry.order.removeFirst(dropped)
        }
        revised[owner] = entry
    }

    /// What `device` is told now.
    public func acknowledgement(for device: String) -> Acknowledgement {
        var through: [RowKind: Int64] = [:]
        var stored: [RowKind: [ClosedRange<Int64>]] = [:]
        for kind in RowKind.allCases {
            let stream = streams[StreamKey(device: device, kind: kind)]
            through[kind] = stream?.through ?? 0
            if let above = stream?.above, !above.isEmpty { stored[kind] = CollectorMessages.Ack.ranges(above) }
        }
        return Acknowledgement(
            device: device, through: through, revised: revised[device]?.revisions ?? [:], stored: stored)
    }

    /// The replays to ask for now: gaps open for `gapGrace`, each at most every `replayEvery`.
    public mutating func due(at now: ContinuousClock.Instant) -> [ReplayRequest] {
        var requests: [ReplayRequest] = []
        for key in open.sorted() {
            guard var stream = streams[key], let since = stream.gapSince, now - since >= gapGrace else { continue }
            if let asked = stream.askedAt, now - asked < replayEvery { continue }
            stream.askedAt = now
            streams[key] = stream
            for (from, until) in Self.gaps(through: stream.through, above: stream.above) {
                requests.append(ReplayRequest(device: key.device, kind: key.kind, from: from, until: until))
            }
        }
        return requests
    }

    /// Gap ranges asked for in one round of a stream at most (the rest the next round).
    static let rangesAtMost = 256

    /// The ranges missing between `through` and the highest id of `above`, in order.
    static func gaps(through: Int64, above: Set<Int64>) -> [(from: Int64, until: Int64)] {
        var ranges: [(from: Int64, until: Int64)] = []
        var last = through
        for id in above.sorted() {
            if id > last + 1 { ranges.append((last + 1, id - 1)) }
            last = id
            if ranges.count == rangesAtMost { break }
        }
        return ranges
    }

    /// How long until ``due(at:)`` may have a request (nil: no gap is open).
    public func nextReplay(after now: ContinuousClock.Instant) -> Duration? {
        var soonest: ContinuousClock.Instant?
        for key in open {
            guard let stream = streams[key], let since = stream.gapSince else { continue }
            let next = stream.askedAt.map { max($0 + replayEvery, since + gapGrace) } ?? since + gapGrace
            soonest = min(soonest ?? next, next)
        }
        return soonest.map { max($0 - now, .zero) }
    }

    /// The ids stored above the contiguous run, per stream (for `collect status`).
    public var gaps: [StreamKey: (through: Int64, above: Int)] {
        streams.filter { !$0.value.above.isEmpty }.mapValues { ($0.through, $0.above.count) }
    }
}
