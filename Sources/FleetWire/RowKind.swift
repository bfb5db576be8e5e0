/// The three kinds of logbook row, named as the export, the wire and the collector's
/// tables name them: positions (`track`), the model's air (`air`), measured air (`sensor`).
///
/// Contract: the raw value is the `kind` field of an `airloc.log/1` line and the name of
/// the collector's table; the letter starts the row's id (`t42`, `a7`, `s3`). Ids are
/// sequential per kind and never given back.
public enum RowKind: String, Sendable, CaseIterable, Comparable, Codable {
    case track, air, sensor

    /// The letter of its ids (`t` for `t42`).
    public var letter: Character {
        switch self {
        case .track: return "t"
        case .air: return "a"
        case .sensor: return "s"
        }
    }

    /// The kind of an id (`t42` → track), or nil when it is not a row's.
    public init?(id: String) {
        guard let letter = id.first, let kind = Self.allCases.first(where: { $0.letter == letter }) else {
            return nil
        }
        self = kind
    }

    /// `t42` for 42.
    public func id(_ number: Int64) -> String { "\(letter)\(number)" }

    /// The fields its rows carry, in the export's order (``RowSchema``).
    public var fields: [RowField] { RowSchema.fields(self) }

    /// Ordered by name (track after sensor after air), for stable output.
    public static func < (a: RowKind, b: RowKind) -> Bool { a.rawValue < b.rawValue }
}
