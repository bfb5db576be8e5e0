import FleetWire
import Foundation
import MQTT
import Platform
import Settings

/// One message from the broker, judged alone before anything of it is kept: the unit that
/// can be refused without touching any other device's rows (docs/collector.md, "What is
/// refused").
///
/// Contract:
/// - The device is the topic's device level, and it must be a device name
///   (``DeviceIdentity/isValidName(_:)``: 1–64 letters, digits, `-` and `_`); with
///   `[collect] devices = known` it must also be registered.
/// - A history payload must be a row (``DeviceRow``: JSON, its schema, its id, its time,
///   its values' types and ranges, no NUL); a status at most 40 plain characters (no
///   control, line break or bidirectional character; empty clears it); a hello this
///   device's, its software plain and at most 100 characters. A payload over `[collect]
///   max-message` or not UTF-8 arrives refused already (``MQTTPayloadProblem``).
/// - Whatever is refused names a `label` (`airloc_collector_rows_refused_total{reason}`)
///   and a reason whose foreign text is quoted (``TerminalText/quoted(_:limit:)``): a
///   refusal cannot forge a log line.
enum IncomingMessage {
    /// A row to store.
    case row(Sender, DeviceRow)
    /// The device's status word (nil: cleared).
    case status(Sender, String?)
    /// The device's hello.
    case hello(Sender, CollectorMessages.Hello)
    /// Not one of the collector's topics: nothing to do.
    case ignored
    /// Refused: counted by `label`, said as `reason` (`device` nil: no valid device named).
    case refused(device: String?, reason: String, label: RefusalReason)

    /// The device a message came from, and its topics' prefix.
    struct Sender {
        var device: String
        var prefix: String
    }

    /// The longest status word kept.
    static let maximumStatus = 40
    /// The longest software description kept.
    static let maximumSoftware = 100

    /// `payload` on `topic` as `settings` read it, at `now`; `registered` holds the devices
    /// `devices = known` admits.
    static func judge(
        topic: String, payload: String, settings: CollectSettings, registered: Set<String>, now: Date
    ) -> IncomingMessage {
        let sender: Sender
        let rest: String
        switch self.sender(topic: topic, settings: settings, registered: registered) {
        case .success(let found): (sender, rest) = found
        case .failure(let refusal): return refusal.message
        case nil: return .ignored
        }
        switch rest {
        case "history":
            do {
                return .row(
                    sender,
                    try DeviceRow(device: sender.device, payload: payload, now: now, maximumBytes: settings.maxMessage))
            } catch {
                return .refused(device: sender.device, reason: error.description, label: error.label)
            }
        case "status":
            guard payload.utf8.count <= maximumStatus, TerminalText.isPlain(payload) else {
                return .refused(
                    device: sender.device, reason: "a status that is not a word (\(TerminalText.quoted(payload)))",
                    label: .badStatus)
            }
            return .status(sender, payload.isEmpty ? nil : payload)
        case "hello":
            // A hello that does not decode is a bad one; one that names another device, foreign.
            guard let hello = CollectorMessages.Hello(json: payload) else {
                return .refused(
                    device: sender.device, reason: "a hello that is not airloc.hello/1 JSON", label: .badHello)
            }
            guard hello.device == sender.device else {
                return .refused(
                    device: sender.device, reason: "a hello that is not this device's", label: .foreignHello)
            }
            guard hello.software.count <= maximumSoftware, TerminalText.isPlain(hello.software) else {
                return .refused(
                    device: sender.device,
                    reason: "a hello whose software is not plain text (\(TerminalText.quoted(hello.software)))",
                    label: .badHello)
            }
            // What cannot be true of a logbook: ids past any a device could have written, a
            // first id past the newest one it holds, or an acknowledgement of rows it never
            // held. Obeyed, it could only move what the collector believes; refused, it is counted.
            if let absurd = Self.absurdity(of: hello) {
                return .refused(device: sender.device, reason: "a hello that \(absurd)", label: .badHello)
            }
            return .hello(sender, hello)
        default: return .ignored
        }
    }

    /// Ids above this are no logbook's: a row a second for 30,000 years.
    static let largestID: Int64 = 1 << 40

    /// Why `hello` cannot be a real logbook's word, or nil.
    static func absurdity(of hello: CollectorMessages.Hello) -> String? {
        let counts = [hello.first, hello.acked, hello.last].flatMap(\.values)
        if counts.contains(where: { $0 > largestID }) { return "claims ids past \(largestID)" }
        guard !hello.last.isEmpty else { return nil }
        for kind in RowKind.allCases {
            let last = hello.last[kind] ?? 0
            if let first = hello.first[kind], first > last + 1 {
                return "says its first \(kind.rawValue) row to come is \(first), past its newest, \(last)"
            }
            if let acked = hello.acked[kind], acked > last {
                return "says \(acked) \(kind.rawValue) rows were acknowledged, past its newest, \(last)"
            }
        }
        return nil
    }

    /// A payload the connection did not hand over (too large, not UTF-8), on `topic`.
    static func unreadable(topic: String, problem: MQTTPayloadProblem, settings: CollectSettings) -> IncomingMessage {
        let device = settings.device(inTopic: topic).map(\.device).flatMap {
            DeviceIdentity.isValidName($0) ? $0 : nil
        }
        switch problem {
        case .tooLarge: return .refused(device: device, reason: problem.description, label: .tooLarge)
        case .notUTF8: return .refused(device: device, reason: problem.description, label: .notUTF8)
        }
    }

    private struct Refusal: Error {
        var message: IncomingMessage
    }

    /// The sender of a message on `topic`, and the topic's last level; nil when the topic is
    /// not one of `settings.topicPrefix`'s.
    private static func sender(topic: String, settings: CollectSettings, registered: Set<String>)
        -> Result<(Sender, String), Refusal>?
    {
        guard let (device, rest) = settings.device(inTopic: topic) else { return nil }
        guard DeviceIdentity.isValidName(device) else {
            return .failure(
                Refusal(
                    message: .refused(
                        device: nil,
                        reason: "a topic whose device is not a device name (\(TerminalText.quoted(device)))",
                        label: .badDevice)))
        }
        if settings.devices == .known, !registered.contains(device) {
            return .failure(
                Refusal(
                    message: .refused(
                        device: device, reason: "a device that is not registered ([collect] devices = known)",
                        label: .unknownDevice)))
        }
        return .success((Sender(device: device, prefix: String(topic.dropLast(rest.count + 1))), rest))
    }
}
