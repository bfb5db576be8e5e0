/// A count with its noun in the right number, for messages people read: "1 point",
/// "2 points", "1 hour", "0 rows".
///
/// Contract: the plural is the noun with "s" unless `plural` is given; the count is
/// written in full (no thousands separators: messages are also read by scripts).
extension String.StringInterpolation {
    /// "1 track point", "3 track points": the count and the noun in the right number.
    public mutating func appendInterpolation(count: Int, _ noun: String, plural: String? = nil) {
        appendLiteral("\(count) \(count == 1 ? noun : plural ?? noun + "s")")
    }
}
