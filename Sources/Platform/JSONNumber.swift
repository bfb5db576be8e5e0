import Foundation

/// A number from a JSONSerialization result, never a boolean.
///
/// Why: Foundation hands JSON `true`/`false` back as NSNumber, and on Linux `0 is Bool`
/// and `1 is Bool` are true for an ordinary NSNumber too, so `!(value is Bool)` refuses
/// every 0 and 1. A boolean is the one NSNumber whose type encoding is `c` (char).
public enum JSONNumber {
    /// The finite number `value` is, or nil for a boolean, a string, null or anything else.
    public static func double(_ value: Any?) -> Double? {
        guard let number = value as? NSNumber, String(cString: number.objCType) != "c" else { return nil }
        let double = number.doubleValue
        return double.isFinite ? double : nil
    }

    /// The integer `value` is (a whole number of at most 15 digits), or nil.
    public static func integer(_ value: Any?) -> Int64? {
        guard let double = double(value), double == double.rounded(), abs(double) < 1e15 else { return nil }
        return Int64(double)
    }
}
