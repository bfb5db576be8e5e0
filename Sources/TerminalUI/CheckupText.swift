import Airloc

/// `airloc doctor` for a person: a line per check (ok, warn, FAIL), what to do under each
/// problem, and how many there are to fix.
public struct CheckupText {
    /// Where it is printed.
    public var console: Console

    /// The text for `console`.
    public init(console: Console) { self.console = console }

    /// `doctor`'s text: one line per check, advice under each failure.
    public func render(_ checks: [HealthCheck]) -> String {
        var lines: [String] = []
        for check in checks {
            let word: String
            switch check.status {
            case .ok: word = console.dim("ok  ")
            case .warn: word = console.warning("warn")
            case .fail: word = console.bold("FAIL")
            }
            lines.append("\(word)  \(check.name): \(check.detail)")
            if let advice = check.advice, check.status != .ok { lines.append("      → \(advice)") }
        }
        let failed = checks.filter { $0.status == .fail }.count
        lines.append(failed == 0 ? "All needed parts work." : "\(failed) problem\(failed == 1 ? "" : "s") to fix.")
        return lines.joined(separator: "\n") + "\n"
    }
}
