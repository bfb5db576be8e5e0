import Foundation
import Platform

/// What the logger has to say to the journal (stderr under systemd): every service's
/// notice type, ``ServiceNotice`` (never a precise position; the remedy names what helps).
public typealias LoggerNotice = ServiceNotice

/// What is wrong with the logger right now, and what to say about it.
///
/// Contract (one event per call, each returning what to do):
/// - A trouble is said when it begins, and again only when its message changes: a full
///   disk failing every write says so once, not once a second.
/// - It is said once when it ends, with how many times it happened meanwhile. It ends
///   after `successes` successes in a row (a full disk flaps: a small row still fits in a
///   page another freed, and the next write fails again).
/// - `last_error` (``Action/record(_:)``) is the newest trouble still going on, and is
///   cleared (``Action/clear``) when the last one ends: a status after recovery shows none.
public struct LoggerTroubles: Sendable {
    /// What kind of trouble.
    public enum Kind: String, Sendable, CaseIterable {
        /// No position: gpsd unreachable, the receiver gone, the fix lost.
        case position
        /// The air service did not answer.
        case air
        /// The logbook could not be written.
        case storage
        /// The particulate sensor did not give a reading (unplugged, silent).
        case sensor
    }

    /// What to do.
    public enum Action: Sendable, Equatable {
        case say(LoggerNotice)
        /// Keep this as the logbook's last error.
        case record(String)
        /// No trouble left: the logbook's last error goes.
        case clear
    }

    private struct Ongoing: Sendable {
        var message: String
        var key: String
        var times: Int
        var order: Int
        var successes = 0
    }

    /// Keyed by the kind's name, or `sensor.NAME` for a `[sensor.NAME]` sensor: each
    /// sensor's trouble is its own, begun and ended apart from the others'.
    private var ongoing: [String: Ongoing] = [:]
    private var counter = 0

    /// No trouble.
    public init() {}

    /// The trouble going on of this kind, if any.
    public func current(_ kind: Kind) -> String? { ongoing[kind.rawValue]?.message }

    /// The trouble going on of the sensor of `[sensor.NAME]`, if any.
    public func current(sensorNamed name: String) -> String? { ongoing["sensor.\(name)"]?.message }

    /// A trouble happened (again). `cause` says what makes two notices one trouble when
    /// their words differ (a full disk fails the track's and the sensor's writes alike:
    /// said once, not at every alternation); without it, the message.
    public mutating func happened(_ kind: Kind, _ notice: LoggerNotice, cause: String? = nil) -> [Action] {
        happened(key: kind.rawValue, notice, cause: cause)
    }

    /// The sensor of `[sensor.NAME]` failed (again): as ``happened(_:_:cause:)``.
    public mutating func happened(sensorNamed name: String, _ notice: LoggerNotice, cause: String? = nil) -> [Action] {
        happened(key: "sensor.\(name)", notice, cause: cause)
    }

    /// The sensor of `[sensor.NAME]` gave a reading: as ``ended(_:saying:successes:)``.
    public mutating func ended(sensorNamed name: String, saying message: String) -> [Action] {
        ended(key: "sensor.\(name)", saying: message, successes: 1)
    }

    private mutating func happened(key kind: String, _ notice: LoggerNotice, cause: String?) -> [Action] {
        let key = cause ?? notice.message
        if ongoing[kind]?.key == key {
            ongoing[kind]!.times += 1
            ongoing[kind]!.successes = 0
            return []
        }
        counter += 1
        ongoing[kind] = Ongoing(
            message: notice.message, key: key, times: (ongoing[kind]?.times ?? 0) + 1, order: counter)
        return [.say(notice), .record(notice.message)]
    }

    /// What went wrong of this kind worked; after `successes` in a row it has ended,
    /// and `saying` is the notice for that.
    public mutating func ended(_ kind: Kind, saying message: String, successes: Int = 1) -> [Action] {
        ended(key: kind.rawValue, saying: message, successes: successes)
    }

    private mutating func ended(key kind: String, saying message: String, successes: Int) -> [Action] {
        guard ongoing[kind] != nil else { return [] }
        ongoing[kind]!.successes += 1
        guard ongoing[kind]!.successes >= successes, let was = ongoing.removeValue(forKey: kind) else { return [] }
        let times = was.times > 1 ? " (after \(was.times) failures)" : ""
        var actions: [Action] = [.say(LoggerNotice(level: .info, message: message + times))]
        if let newest = ongoing.values.max(by: { $0.order < $1.order }) {
            actions.append(.record(newest.message))
        } else {
            actions.append(.clear)
        }
        return actions
    }
}
