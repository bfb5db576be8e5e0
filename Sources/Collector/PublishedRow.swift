import FleetStore
import FleetWire
import Foundation

/// A history payload as the collector reads it: once (``FlatJSON``), and only the fields it
/// checks and stores — the envelope (`schema`, `device`, `id`, `kind`, `time`, `revision`,
/// `incarnation`) and the typed columns of the row's kind (``Column``). The rest of the
/// line is checked to be JSON and not looked at: it goes to `payload` as it arrived.
///
/// Contract: nil only when the payload is not a JSON object; a field of the wrong type is
/// recorded (``badColumn``, ``badRevision``, ``claimedDevice``), so that ``DeviceRow``
/// refuses in its documented order (schema, device, id, time, revision, columns). A number
/// is any JSON number of magnitude below 10¹⁵ (what the hourly roll-up can sum); an integer
/// column takes a whole number of at most 15 digits;
/// text is at most 1,024 bytes; a `words` column takes an array of strings (or, from older
/// devices, one space-separated string).
struct PublishedRow {
    var schema: String?
    /// `device` when present: the text, or its JSON kind when it is not a string.
    var claimedDevice: String?
    var id: String?
    var kind: String?
    var time: String?
    var revision: Int64 = 0
    var badRevision = false
    var incarnation = ""
    /// The kind's columns (`.null` where absent).
    var columns: [String: DeviceRow.ColumnValue] = [:]
    /// The first column, in the kind's order, whose value has the wrong type.
    var badColumn: String?
    /// A `\u0000` escape somewhere in the payload.
    var holdsNUL = false

    init?(_ payload: String) {
        guard let row = FlatJSON(payload) else { return nil }
        holdsNUL = row.holdsNUL
        func text(_ name: String) -> String? {
            if case .string(let text)? = row[name] { return text }
            return nil
        }
        schema = text("schema")
        if let claimed = row["device"] {
            if case .string(let text) = claimed { claimedDevice = text } else { claimedDevice = "\(claimed)" }
        }
        (id, kind, time) = (text("id"), text("kind"), text("time"))
        switch row["revision"] {
        case nil: break
        case .number(let value)?:
            if let number = Self.integer(value), number >= 0 { revision = number } else { badRevision = true }
        default: badRevision = true
        }
        incarnation = CollectorMessages.incarnation(text("incarnation"))
        guard let kind = kind.flatMap(RowKind.init(rawValue:)) else { return }
        columns.reserveCapacity(32)
        for column in Column.of(kind) {
            switch Self.value(row[column.name], column.type) {
            case .some(let value): columns[column.name] = value
            case .none:
                columns[column.name] = .null
                if badColumn == nil { badColumn = column.name }
            }
        }
    }

    /// A member as a column of `type` (`.null` when absent or null), or nil for a wrong type.
    static func value(_ member: FlatJSON.Value?, _ type: FieldType) -> DeviceRow.ColumnValue? {
        switch (member, type) {
        case (nil, _), (.null?, _): return .null
        case (.string(let text)?, .text), (.string(let text)?, .words):
            // Words: an array now; older devices sent them space-separated.
            return text.utf8.count <= 1024 ? .text(text) : nil
        case (.strings(let words)?, .words):
            let text = words.joined(separator: " ")
            return text.utf8.count <= 1024 ? .text(text) : nil
        case (.number(let value)?, .integer): return integer(value).map { .integer($0) }
        case (.number(let value)?, .number): return abs(value) < largest ? .number(value) : nil
        default: return nil
        }
    }

    /// Numbers are below this in magnitude: 15 digits before the point.
    static let largest = 1e15

    /// A whole number of at most 15 digits.
    static func integer(_ value: Double) -> Int64? {
        guard value.isFinite, value == value.rounded(), abs(value) < largest else { return nil }
        return Int64(value)
    }
}
