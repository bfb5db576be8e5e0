import Foundation
import Platform

/// Re-encodes a value so that optional properties that are nil appear as JSON `null`
/// instead of being left out (Swift's synthesised `Encodable` drops them), which keeps
/// the documented schema's keys present for scripts.
///
/// It mirrors the value with `Mirror`: each stored property becomes a key (converted to
/// snake_case by the encoder), nested structs recurse, arrays map element-wise.
public struct NullPreserving: Encodable {
    /// The value.
    public let value: Any

    /// `value`, to be encoded with its nils as null.
    public init(_ value: Any) { self.value = value }

    private struct Key: CodingKey {
        /// The key.
        public var stringValue: String
        /// Keys are never integers here.
        public var intValue: Int? { nil }
        /// The key `string`.
        public init(_ string: String) { stringValue = string }
        /// The key `stringValue`.
        public init?(stringValue: String) { self.stringValue = stringValue }
        /// Keys are never integers here.
        public init?(intValue: Int) { nil }
    }

    /// Encodes the value, an absent optional as null.
    public func encode(to encoder: any Encoder) throws {
        let mirror = Mirror(reflecting: value)
        switch value {
        case let v as String: var c = encoder.singleValueContainer(); try c.encode(v)
        case let v as Int: var c = encoder.singleValueContainer(); try c.encode(v)
        case let v as Int64: var c = encoder.singleValueContainer(); try c.encode(v)
        case let v as Double: var c = encoder.singleValueContainer(); try c.encode(v)
        case let v as Bool: var c = encoder.singleValueContainer(); try c.encode(v)
        // An enum with raw values (HealthCheck.Status) is written as its raw value.
        case let v as any RawRepresentable: try NullPreserving(v.rawValue).encode(to: encoder)
        // A dictionary with string keys is an object of those keys (rows per kind).
        case let v as [String: Any]:
            var c = encoder.container(keyedBy: Key.self)
            for (key, value) in v { try c.encode(NullPreserving(value), forKey: Key(key)) }
        default:
            if mirror.displayStyle == .optional {
                if let child = mirror.children.first {
                    try NullPreserving(child.value).encode(to: encoder)
                } else {
                    var c = encoder.singleValueContainer()
                    try c.encodeNil()
                }
            } else if mirror.displayStyle == .collection {
                var c = encoder.unkeyedContainer()
                for child in mirror.children { try c.encode(NullPreserving(child.value)) }
            } else {
                var c = encoder.container(keyedBy: Key.self)
                for child in mirror.children {
                    guard let label = child.label else { continue }
                    // A field set shared by two documents is written as their own keys.
                    if child.value is any JSONInline {
                        for field in Mirror(reflecting: child.value).children {
                            guard let label = field.label else { continue }
                            try c.encode(NullPreserving(field.value), forKey: Key(label))
                        }
                        continue
                    }
                    try c.encode(NullPreserving(child.value), forKey: Key(label))
                }
            }
        }
    }
}
