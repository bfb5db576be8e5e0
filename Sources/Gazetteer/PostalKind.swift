import Foundation

/// What a postal code addresses, as the US Postal Service sorts ZIP codes: most codes
/// are an area of streets; a unique code is one organisation's mail (a university, an
/// agency), a PO-box code only post-office boxes (no street has it), a military code an
/// APO/FPO address abroad.
///
/// Contract: `rawValue` is what `postal --json` prints as `type`; `code` is how the
/// gazetteer file stores it (bits 8-11 of a postal record's flags; 0 = not known, as
/// for every country whose data does not say).
public enum PostalKind: String, Sendable, Hashable, CaseIterable {
    case standard
    case unique
    case poBox = "po_box"
    case military

    /// From USPS's names as the `zipcodes` data writes them ("STANDARD", "PO BOX", ...).
    public init?(uspsName: String) {
        switch uspsName.uppercased().trimmingCharacters(in: .whitespaces) {
        case "STANDARD": self = .standard
        case "UNIQUE": self = .unique
        case "PO BOX": self = .poBox
        case "MILITARY": self = .military
        default: return nil
        }
    }

    var code: UInt32 {
        switch self {
        case .standard: return 1
        case .unique: return 2
        case .poBox: return 3
        case .military: return 4
        }
    }

    init?(code: UInt32) {
        guard let kind = Self.allCases.first(where: { $0.code == code }) else { return nil }
        self = kind
    }

    /// For people, when it matters: a code that is not an area of streets.
    public var explanation: String? {
        switch self {
        case .standard: return nil
        case .unique: return "a unique ZIP code: one organisation's mail, not an area"
        case .poBox: return "a PO-box ZIP code: post-office boxes only, no street area"
        case .military:
            return "a military ZIP code (APO/FPO): mail for forces abroad; the position is not the addressee's"
        }
    }
}
