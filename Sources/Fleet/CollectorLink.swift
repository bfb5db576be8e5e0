import FleetWire
import Foundation
import Logbook
import MQTT
import Platform
import Web

/// The device's half of the end-to-end acknowledgement (`[mqtt] end-to-end =
/// collector`), run by ``FleetPublisher`` on its connection.
///
/// Contract:
/// - On every (re)connection: a subscription to `<prefix>/ack` and `<prefix>/replay`, the
///   retained `<prefix>/hello` (who, what software, the first id of each kind still to be
///   delivered), and every published but unstored row made unsent again (``AckWatch``).
/// - An acknowledgement marks stored exactly what it covers (``Logbook/markStored(through:revised:)``)
///   and is kept in the logbook for `log status`; a replay request makes the unstored rows
///   it names unsent. Either one that does not decode is ignored.
/// - Each history message carries `device` and `revision`, so that the collector can
///   refuse another device's rows and never let an older revision replace a newer one.
/// - The lag check runs when the watch's wait ends (``nextCheck(at:)``), not on a timer
///   of its own: it counts rows in the logbook.
public struct CollectorLink: Sendable {
    /// The outbox's logbook.
    public let logbook: Logbook
    /// The device's topics' prefix.
    public let prefix: String
    /// The device's id.
    public let deviceID: String
    private var watch: AckWatch
    /// The replays done in the last ``replayPause``, by kind and range: the same one asked
    /// again within it is not done twice, so a backlog never goes out twice a minute (the
    /// collector asks for every gap of a stream at once, each its own range).
    private var replays: [String: ContinuousClock.Instant] = [:]
    /// When a replay was last said on stderr: one line a minute, however many ranges.
    private var replaySaid: (at: ContinuousClock.Instant, rows: Int)?
    /// When an acknowledgement first said the store holds less than the last one trusted:
    /// a claim the collector has not confirmed yet (any account on an open broker can
    /// retain an ack; the broker re-delivers an old one after a reconnect).
    private var forgetClaimed: ContinuousClock.Instant?
    /// When the device last sent rows again because the store forgot them: at most once
    /// per ack-timeout, whoever asks.
    private var forgetActed: ContinuousClock.Instant?
    /// How long the same replay request is not done again.
    public static let replayPause: Duration = .seconds(60)
    /// Replay ranges done in a minute at most.
    static let replaysAtMost = 4096

    /// The link of this device, publishing again after `ackTimeout`.
    public init(logbook: Logbook, prefix: String, deviceID: String, ackTimeout: Duration) {
        self.logbook = logbook
        self.prefix = prefix
        self.deviceID = deviceID
        self.watch = AckWatch(timeout: ackTimeout)
    }

    /// Where the collector acknowledges.
    public var ackTopic: String { "\(prefix)/ack" }
    /// Where the collector asks for replays.
    public var replayTopic: String { "\(prefix)/replay" }

    /// A new connection: subscribe, say hello, publish again what is unstored.
    mutating func greet(_ client: any MQTTClient, at now: ContinuousClock.Instant, notify: (ServiceNotice) -> Void) {
        try? client.subscribe(ackTopic)
        try? client.subscribe(replayTopic)
        sayHello(client, acked: lastAck()?.through ?? [:])
        if watch.reconnected(at: now) == .republish { requeue(reason: nil, notify: notify) }
    }

    /// A message on a subscribed topic; true when it was the collector's.
    mutating func received(
        _ message: (topic: String, payload: String), client: any MQTTClient, at now: ContinuousClock.Instant,
        notify: (ServiceNotice) -> Void
    ) -> Bool {
        if message.topic == ackTopic {
            // Another incarnation's acknowledgement (this logbook was made again; the
            // broker retained the old one's) covers none of these rows.
            guard let ack = CollectorMessages.Ack(json: message.payload), ack.incarnation == logbook.incarnation
            else { return true }
            do {
                var forgotten = 0
                let told = lastAck()
                let before = told?.through ?? [:]
                // An acknowledgement that says less is stored than the last one trusted is
                // acted on only when the collector says it again (asked by the hello) and
                // not within ack-timeout of the last time: one forged or stale ack costs a
                // hello, not the whole logbook again nor a false "restored?" alarm.
                let claims = before.contains { kind, acknowledged in (ack.through[kind] ?? 0) < acknowledged }
                if claims {
                    let paced = forgetActed.map { now - $0 < watch.timeout } ?? false
                    guard forgetClaimed != nil, !paced else {
                        // The hello asks the collector once a claim; the rest wait for it.
                        if forgetClaimed == nil {
                            forgetClaimed = now
                            sayHello(client, acked: before)
                        }
                        return true
                    }
                    forgetClaimed = nil
                    forgetActed = now
                } else {
                    forgetClaimed = nil
                }
                // What the last acknowledgement covered reaches its highest stored range; a
                // message at its cap of ranges says nothing of the ids above its last one.
                for (kind, acknowledged) in before.sorted(by: { $0.key < $1.key }) {
                    let ranges = ack.stored[kind] ?? []
                    var highest = max(acknowledged, told?.stored[kind]?.last?.upperBound ?? 0)
                    if ranges.count >= CollectorMessages.Ack.storedRangesAtMost, let last = ranges.last {
                        highest = min(highest, max(acknowledged, last.upperBound))
                    }
                    forgotten += try logbook.forgotten(
                        kind: kind, above: ack.through[kind] ?? 0, upTo: highest, except: ranges)
                }
                if forgotten > 0 {
                    // Said to the collector too: its `collect status` names this device.
                    sayHello(client, acked: before)
                    notify(
                        .warning(
                            "the collector's store holds fewer rows than it acknowledged before (a database restored "
                                + "from a backup?): publishing \(forgotten) again", from: .mqtt))
                }
                let covered = try logbook.markStored(through: ack.through, revised: ack.revised, stored: ack.stored)
                try logbook.setMeta(Logbook.lastAckKey, message.payload)
                // Rows stored above a gap are no progress on the gap: while one stays open,
                // only `through` moving restarts the wait before the device sends it again.
                let progress =
                    covered > 0 && (ack.stored.isEmpty || ack.through.contains { before[$0.key] ?? 0 < $0.value })
                watch.acknowledged(progress: progress, outstanding: try logbook.unstoredCount(), at: now)
            } catch { notify(.error("cannot mark rows stored: \(error)", from: .mqtt)) }
            return true
        }
        if message.topic == replayTopic {
            guard let replay = CollectorMessages.Replay(json: message.payload),
                replay.incarnation == logbook.incarnation
            else { return true }
            let key = "\(replay.kind.rawValue):\(replay.from):\(replay.until.map(String.init) ?? "")"
            if let last = replays[key], now - last < Self.replayPause { return true }
            replays = replays.filter { now - $0.value < Self.replayPause }
            // A collector asking for more ranges than that in a minute is not one to follow.
            guard replays.count < Self.replaysAtMost else { return true }
            replays[key] = now
            do {
                let count = try logbook.replay(kind: replay.kind, from: replay.from, until: replay.until)
                if count > 0 {
                    if let said = replaySaid, now - said.at < Self.replayPause {
                        replaySaid?.rows += count
                    } else {
                        let earlier =
                            replaySaid.map { $0.rows > 0 ? " (and \($0.rows) more since the last such line)" : "" }
                            ?? ""
                        notify(
                            .info(
                                "the collector asked for \(replay.kind.rawValue) rows from \(replay.from): \(count) again"
                                    + earlier, from: .mqtt))
                        replaySaid = (now, 0)
                    }
                }
            } catch { notify(.error("cannot replay rows: \(error)", from: .mqtt)) }
            return true
        }
        return false
    }

    /// Publishes the retained `<prefix>/hello`: who this is, the first id of each kind it
    /// still delivers, the newest it holds, and `acked`, what it was told is stored.
    private func sayHello(_ client: any MQTTClient, acked: [RowKind: Int64]) {
        let first = (try? logbook.firstUnstored()) ?? [:]
        // The newest id given: at least the one before the first to come (a kind whose rows
        // were all pruned holds none, and its ids are never given again).
        let last = ((try? logbook.lastIDs()) ?? [:]).merging(first.mapValues { $0 - 1 }, uniquingKeysWith: max)
        let hello = CollectorMessages.Hello(
            device: deviceID, software: AirlocVersion.string, first: first, acked: acked,
            incarnation: logbook.incarnation, last: last)
        _ = try? client.publish("\(prefix)/hello", hello.json, retain: true)
    }

    /// The last acknowledgement received, as the logbook keeps it.
    private func lastAck() -> CollectorMessages.Ack? {
        ((try? logbook.meta(Logbook.lastAckKey)) ?? nil).flatMap(CollectorMessages.Ack.init(json:))
    }

    /// Rows went to the broker.
    mutating func published(at now: ContinuousClock.Instant) { watch.published(at: now) }

    /// How long until the lag check is due (nil: nothing waits for the collector).
    func nextCheck(at now: ContinuousClock.Instant) -> Duration? {
        watch.deadline.map { max($0 - now, .zero) }
    }

    /// The lag check: says the hello again when the collector has been silent a while
    /// (``AckWatch/reminder``), publishes again what it has not stored in `timeout`; true
    /// when rows were made unsent.
    mutating func tick(
        _ client: any MQTTClient, at now: ContinuousClock.Instant, notify: (ServiceNotice) -> Void
    ) -> Bool {
        guard watch.isWaiting, let outstanding = try? logbook.unstoredCount() else { return false }
        switch watch.tick(outstanding: outstanding, at: now) {
        case .none: return false
        case .remind:
            sayHello(client, acked: lastAck()?.through ?? [:])
            return false
        case .republish: break
        }
        let seconds = String(format: "%g", watch.timeout.seconds)
        return requeue(
            reason: "the collector has not acknowledged \(outstanding) rows in \(seconds) s", notify: notify)
    }

    @discardableResult
    private func requeue(reason: String?, notify: (ServiceNotice) -> Void) -> Bool {
        do {
            let count = try logbook.requeueUnstored()
            if count > 0, let reason { notify(.warning("\(reason): publishing \(count) again", from: .mqtt)) }
            return count > 0
        } catch {
            notify(.error("cannot publish unstored rows again: \(error)", from: .mqtt))
            return false
        }
    }

    /// The history line with the device and the revision it carries.
    func decorated(_ line: String, revision: Int64) -> String {
        guard line.hasPrefix("{") else { return line }
        let incarnation =
            logbook.incarnation.isEmpty ? "" : "\"incarnation\":\(Self.quoted(logbook.incarnation)),"
        return "{\"device\":\(Self.quoted(deviceID)),\(incarnation)\"revision\":\(revision)," + line.dropFirst()
    }

    static func quoted(_ text: String) -> String {
        let data = try? JSONSerialization.data(withJSONObject: [text], options: [])
        let array = data.map { String(decoding: $0, as: UTF8.self) } ?? "[\"\"]"
        return String(array.dropFirst().dropLast())
    }
}
