import Foundation
import Logbook
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
/// - The lag check runs at most once a second: it counts rows in the logbook.
public struct CollectorLink: Sendable {
    public let logbook: Logbook
    public let prefix: String
    public let deviceID: String
    private var watch: AckWatch
    private var lastCheck: ContinuousClock.Instant?
    public var notify: @Sendable (String) -> Void

    public init(
        logbook: Logbook, prefix: String, deviceID: String, ackTimeout: Duration,
        notify: @escaping @Sendable (String) -> Void
    ) {
        self.logbook = logbook
        self.prefix = prefix
        self.deviceID = deviceID
        self.watch = AckWatch(timeout: ackTimeout)
        self.notify = notify
    }

    public var ackTopic: String { "\(prefix)/ack" }
    public var replayTopic: String { "\(prefix)/replay" }

    /// A new connection: subscribe, say hello, publish again what is unstored.
    mutating func greet(_ connection: MQTTConnection, at now: ContinuousClock.Instant) {
        connection.subscribe(ackTopic)
        connection.subscribe(replayTopic)
        let first = (try? logbook.firstUnstored()) ?? [:]
        let hello = CollectorMessages.Hello(device: deviceID, software: AirlocVersion.string, first: first)
        _ = try? connection.publish("\(prefix)/hello", hello.json, retain: true)
        if watch.reconnected(at: now) == .republish { requeue(reason: nil) }
    }

    /// A message on a subscribed topic; true when it was the collector's.
    mutating func received(_ message: (topic: String, payload: String), at now: ContinuousClock.Instant) -> Bool {
        if message.topic == ackTopic {
            guard let ack = CollectorMessages.Ack(json: message.payload) else { return true }
            do {
                let covered = try logbook.markStored(through: ack.through, revised: ack.revised)
                try logbook.setMeta(Logbook.lastAckKey, message.payload)
                watch.acknowledged(progress: covered > 0, outstanding: try logbook.unstoredCount(), at: now)
            } catch { notify("cannot mark rows stored: \(error)") }
            return true
        }
        if message.topic == replayTopic {
            guard let replay = CollectorMessages.Replay(json: message.payload) else { return true }
            do {
                let count = try logbook.replay(kind: replay.kind, from: replay.from)
                if count > 0 {
                    notify("the collector asked for \(replay.kind) rows from \(replay.from): \(count) again")
                }
            } catch { notify("cannot replay rows: \(error)") }
            return true
        }
        return false
    }

    /// Rows went to the broker.
    mutating func published(at now: ContinuousClock.Instant) { watch.published(at: now) }

    /// The lag check: publishes again what the collector has not stored in `timeout`.
    mutating func tick(at now: ContinuousClock.Instant) {
        guard watch.isWaiting else { return }
        if let lastCheck, now - lastCheck < .seconds(1) { return }
        lastCheck = now
        guard let outstanding = try? logbook.unstoredCount() else { return }
        if watch.tick(outstanding: outstanding, at: now) == .republish {
            let seconds = String(format: "%g", watch.timeout.seconds)
            requeue(reason: "the collector has not acknowledged \(outstanding) rows in \(seconds) s")
        }
    }

    private func requeue(reason: String?) {
        do {
            let count = try logbook.requeueUnstored()
            if count > 0, let reason { notify("\(reason): publishing \(count) again") }
        } catch { notify("cannot publish unstored rows again: \(error)") }
    }

    /// The history line with the device and the revision it carries.
    func decorated(_ line: String, revision: Int64) -> String {
        guard line.hasPrefix("{") else { return line }
        return "{\"device\":\(Self.quoted(deviceID)),\"revision\":\(revision)," + line.dropFirst()
    }

    static func quoted(_ text: String) -> String {
        let data = try? JSONSerialization.data(withJSONObject: [text], options: [])
        let array = data.map { String(decoding: $0, as: UTF8.self) } ?? "[\"\"]"
        return String(array.dropFirst().dropLast())
    }
}
