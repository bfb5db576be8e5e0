import FleetWire

/// The typed columns of each row table in the collector's database: ``RowSchema``'s
/// `column` fields, so the schema, the check of a published row and the insert cannot
/// disagree with what the device writes.
///
/// Contract: every table has `device_id`, `id`, `n`, `revision`, `time`, `stored_at`
/// and `payload` (the published line, jsonb) besides these; a column's name is the export's
/// field name, so a row's columns read as its NDJSON line does.
public struct Column: Sendable, Equatable {
    /// The column's name (the field's).
    public var name: String
    /// Its value's type.
    public var type: FieldType

    /// The typed columns of `kind`'s table, in order.
    public static func of(_ kind: RowKind) -> [Column] { table[kind] ?? [] }

    /// Made once: a row is checked against its kind's columns for every message.
    private static let table: [RowKind: [Column]] = Dictionary(
        uniqueKeysWithValues: RowKind.allCases.map { kind in
            (kind, kind.fields.filter(\.column).map { Column(name: $0.name, type: $0.type) })
        })
}

extension FieldType {
    /// The PostgreSQL type of a column of this type.
    package var sql: String {
        switch self {
        case .number: return "double precision"
        case .integer: return "bigint"
        case .text, .words: return "text"
        }
    }
}
