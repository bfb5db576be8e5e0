import FleetWire
import Foundation

/// A history payload as the collector reads it: once, with Foundation's `JSONDecoder`, and
/// only the fields it checks and stores — the envelope (`schema`, `device`, `id`, `kind`,
/// `time`, `revision`, `incarnation`) and the typed columns of the row's kind
/// (``Column``). The rest of the line is not looked at: it goes to `payload` as it
/// arrived.
///
/// Contract: decoding fails only when the payload is not a JSON object; a field of the
/// wrong type is recorded (``badColumn``, ``badRevision``, ``claimedDevice``), never
/// thrown, so that ``DeviceRow`` refuses in its documented order (schema, device, id,
/// time, revision, columns). A number is any finite JSON number; an integer column takes
/// a whole number of at most 15 digits; text is at most 1,024 bytes; a `words` column
/// takes an array of strings (or, from older devices, one space-separated string).
struct PublishedRow: Decodable {
    /// A key of the payload, by name.
    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    var schema: String?
    /// `device` when present: the text, or `"null"`/`"?"` when it is not a string.
    var claimedDevice: String?
    var id: String?
    var kind: String?
    var time: String?
    var revision: Int64 = 0
    var badRevision = false
    var incarnation = ""
    /// The kind's columns in order (`.null` where absent).
    var columns: [String: DeviceRow.ColumnValue] = [:]
    /// The first column, in the kind's order, whose value has the wrong type.
    var badColumn: String?

    init(from decoder: Decoder) throws {
        let row = try decoder.container(keyedBy: Key.self)
        schema = try? row.decodeIfPresent(String.self, forKey: Key("schema"))
        if row.contains(Key("device")) {
            claimedDevice =
                (try? row.decodeNil(forKey: Key("device"))) == true
                ? "null" : (try? row.decode(String.self, forKey: Key("device"))) ?? "?"
        }
        id = try? row.decodeIfPresent(String.self, forKey: Key("id"))
        kind = try? row.decodeIfPresent(String.self, forKey: Key("kind"))
        time = try? row.decodeIfPresent(String.self, forKey: Key("time"))
        if row.contains(Key("revision")) {
            if let number = Self.integer(try? row.decode(Double.self, forKey: Key("revision"))), number >= 0 {
                revision = number
            } else {
                badRevision = true
            }
        }
        incarnation = CollectorMessages.incarnation(try? row.decodeIfPresent(String.self, forKey: Key("incarnation")))
        guard let kind = kind.flatMap(RowKind.init(rawValue:)) else { return }
        for column in Column.of(kind) {
            // One lookup a column: absent and null are nil, a wrong type throws.
            do {
                columns[column.name] = try Self.value(row, Key(column.name), column.type) ?? .null
            } catch {
                columns[column.name] = .null
                if badColumn == nil { badColumn = column.name }
            }
        }
    }

    struct WrongType: Error {}

    static func value(_ row: KeyedDecodingContainer<Key>, _ key: Key, _ type: FieldType) throws
        -> DeviceRow.ColumnValue?
    {
        switch type {
        case .text:
            guard let text = try row.decodeIfPresent(String.self, forKey: key) else { return nil }
            guard text.utf8.count <= 1024 else { throw WrongType() }
            return .text(text)
        case .words:
            // An array of words now; older devices sent them space-separated.
            let text: String?
            do { text = try row.decodeIfPresent([String].self, forKey: key)?.joined(separator: " ") } catch {
                text = try row.decodeIfPresent(String.self, forKey: key)
            }
            guard let text else { return nil }
            guard text.utf8.count <= 1024 else { throw WrongType() }
            return .text(text)
        case .integer:
            guard let number = try row.decodeIfPresent(Double.self, forKey: key) else { return nil }
            guard let integer = integer(number) else { throw WrongType() }
            return .integer(integer)
        case .number:
            guard let number = try row.decodeIfPresent(Double.self, forKey: key) else { return nil }
            guard number.isFinite else { throw WrongType() }
            return .number(number)
        }
    }

    /// A whole number of at most 15 digits.
    static func integer(_ value: Double?) -> Int64? {
        guard let value, value.isFinite, value == value.rounded(), abs(value) < 9e15 else { return nil }
        return Int64(value)
    }
}
