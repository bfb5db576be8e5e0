import FleetStore
import FleetWire
import Foundation
import Geo
import Platform

/// One logbook row as a device published it on `<prefix>/history`, checked before it may
/// be stored: the unit of what the collector writes and acknowledges.
///
/// Contract:
/// - The device is the topic's, never the payload's: a payload naming another device
///   (`device`) is refused, so no device can write another's rows.
/// - A row is accepted whole or not at all: every column of its kind has the type the
///   table declares, the id is the kind's (`t42`, `a7`, `s3`), the time is ISO 8601 and
///   at most a day ahead of the collector's clock. Anything else is a ``Refusal``.
/// - `revision` (default 0) orders two versions of one row: the store keeps the newest.
public struct DeviceRow: Sendable, Equatable {
    /// The kind of a row: its table, and the letter of its ids.
    public typealias Kind = RowKind

    /// Why a message is not stored (counted and logged, never half-stored).
    public enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        case tooLarge(Int, limit: Int)
        case notJSON
        case unknownSchema(String?)
        case badID(String?)
        case otherDevice(String)
        case badTime(String?)
        case badValue(String)
        /// A `\u0000` escape: PostgreSQL stores no NUL character.
        case nulCharacter

        /// Why, as `/metrics` labels it (`airloc_collector_rows_refused_total{reason}`).
        public var label: RefusalReason {
            switch self {
            case .tooLarge: return .tooLarge
            case .notJSON: return .notJSON
            case .unknownSchema: return .unknownSchema
            case .badID: return .badID
            case .otherDevice: return .otherDevice
            case .badTime: return .badTime
            case .badValue: return .badValue
            case .nulCharacter: return .nulCharacter
            }
        }

        /// Why, in words for the journal.
        public var description: String {
            switch self {
            case .tooLarge(let bytes, let limit): return "a payload of \(bytes) bytes (at most \(limit))"
            case .notJSON: return "not a JSON object"
            case .unknownSchema(let schema): return "an unknown schema \(schema.map(quoted) ?? "(none)")"
            case .badID(let id): return "an id that is not a row's \(id.map { "(\(quoted($0)))" } ?? "(none)")"
            case .otherDevice(let device): return "a row of another device (\(quoted(device)))"
            case .badTime(let time): return "a time that is not ISO 8601 \(time.map { "(\(quoted($0)))" } ?? "(none)")"
            case .badValue(let field): return "\(quoted(field)) of the wrong type or out of range"
            case .nulCharacter: return "a NUL character (\\u0000), which PostgreSQL cannot store"
            }
        }
    }

    /// What a message may weigh by default (`[collect] max-message`): a row is about 500 bytes.
    public static let maximumBytes = 65_536

    /// Text of the payload as a log line may show it (``TerminalText/quoted(_:limit:)``):
    /// the refusal of a hostile row cannot forge a line of the collector's.
    static func quoted(_ text: String) -> String { TerminalText.quoted(text) }

    /// The device, as its topic says.
    public var device: String
    /// The incarnation of the device's logbook that wrote it (empty: made before
    /// incarnations).
    public var incarnation: String
    /// The row's kind.
    public var kind: Kind
    /// The number of its id (42 for `t42`): sequential per device and kind.
    public var number: Int64
    /// Which version of the row's content.
    public var revision: Int64
    /// The row's time.
    public var time: Date
    /// The columns of its kind (``Column``s), JSON-ready values; NSNull for null.
    public var columns: [String: ColumnValue]
    /// The row as published, for the `payload` jsonb column.
    public var line: String
    /// False when the collector's ledger holds no version of this id (it is new): then no
    /// stored version need be looked for in every month's partition. Nil (not known) and
    /// true are looked for.
    public var mayBeStored: Bool?
    /// When the collector received it (the age of the oldest row waiting, in `/metrics`).
    public var received: Date?

    /// `t42`.
    public var id: String { kind.id(number) }

    /// The ledger's stream owner: the device and its logbook's incarnation.
    public var owner: String { StreamOwner.name(device: device, incarnation: incarnation) }

    /// The row's identity across versions: its owner and its id (a revision keeps it).
    var key: String { "\(owner)\u{0}\(id)" }

    /// A typed column value, as JSON.
    public enum ColumnValue: Sendable, Equatable {
        case null, number(Double), integer(Int64), text(String)

        /// The value as JSON text.
        var jsonText: String {
            switch self {
            case .null: return "null"
            case .number(let value): return value.isFinite ? "\(value)" : "null"
            case .integer(let value): return String(value)
            case .text(let value): return JSONText.quoted(value)
            }
        }
    }

    /// Parses the payload published by `device` on its history topic, at `now`.
    public init(device: String, payload: String, now: Date, maximumBytes: Int = maximumBytes) throws(Refusal) {
        let bytes = payload.utf8.count
        guard bytes <= maximumBytes else { throw .tooLarge(bytes, limit: maximumBytes) }
        guard let row = PublishedRow(payload) else { throw .notJSON }
        guard !row.holdsNUL else { throw .nulCharacter }
        guard row.schema == RowSchema.name else { throw .unknownSchema(row.schema) }
        if let claimed = row.claimedDevice, claimed != device { throw .otherDevice(claimed) }
        let idText = row.id
        guard let idText, let letter = idText.first,
            let kind = Kind.allCases.first(where: { $0.letter == letter }), row.kind == kind.rawValue,
            let number = Int64(idText.dropFirst()), number > 0, String(number) == idText.dropFirst()
        else { throw .badID(idText) }
        let timeText = row.time
        guard let timeText, let time = UTCTime.parse(timeText) else { throw .badTime(timeText) }
        // A time far off (a clock years ahead or behind) is stored all the same, in the
        // default partition: refused, the row would be asked for again forever.
        guard !row.badRevision else { throw .badValue("revision") }
        if let column = row.badColumn { throw .badValue(column) }
        if case .number(let latitude) = row.columns["latitude"], abs(latitude) > 90 { throw .badValue("latitude") }
        if case .number(let longitude) = row.columns["longitude"], abs(longitude) > 180 {
            throw .badValue("longitude")
        }
        self.device = device
        self.incarnation = row.incarnation
        self.kind = kind
        self.number = number
        self.revision = row.revision
        self.time = time
        self.columns = row.columns
        self.line = payload
    }
}

/// A row's table and time decide its month's partition.
extension DeviceRow: TimedRow {}
