/// Levenshtein distance, for "did you mean" suggestions on mistyped commands and options.
public func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a)
    let b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
        }
        swap(&previous, &current)
    }
    return previous[b.count]
}

/// The closest candidate within a distance of 2 (or a unique prefix match), if any.
public func suggestion(for input: String, among candidates: [String]) -> String? {
    let prefixed = candidates.filter { $0.hasPrefix(input) }
    if prefixed.count == 1 { return prefixed[0] }
    let scored = candidates.map { ($0, editDistance(input, $0)) }.filter { $0.1 <= 2 }
    return scored.min { $0.1 < $1.1 }?.0
}
