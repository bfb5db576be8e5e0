/// The ways a query can be read as "name + where": "Paris, France", "Portland, OR",
/// "Springfield IL", "Japan, Tokyo", "Sarajevo, Bosnia and Herzegovina".
///
/// Contract: with commas, the first part is the name and the rest qualify it, or the
/// last part is the name and the ones before qualify it. Without commas, the last one
/// or two words, or the first one or two, may be the qualifier. Every reading keeps a
/// non-empty name; all parts come back folded (``SearchKey``). The search checks each
/// qualifier against countries and regions and drops readings whose qualifier names
/// neither, so a reading costs nothing when it is wrong.
struct QualifiedQuery: Hashable {
    var name: String
    var qualifiers: [String]

    static func interpretations(of query: String) -> [QualifiedQuery] {
        var readings: [QualifiedQuery] = []
        let parts = query.split(separator: ",").map { SearchKey.fold(String($0)) }.filter { !$0.isEmpty }
        if parts.count >= 2 {
            readings.append(QualifiedQuery(name: parts[0], qualifiers: Array(parts[1...])))
            readings.append(QualifiedQuery(name: parts[parts.count - 1], qualifiers: Array(parts.dropLast())))
        } else if let only = parts.first {
            let words = only.split(separator: " ").map(String.init)
            for take in 1...2 where words.count > take {
                readings.append(
                    QualifiedQuery(
                        name: words.dropLast(take).joined(separator: " "),
                        qualifiers: [words.suffix(take).joined(separator: " ")]))
                readings.append(
                    QualifiedQuery(
                        name: words.dropFirst(take).joined(separator: " "),
                        qualifiers: [words.prefix(take).joined(separator: " ")]))
            }
        }
        var seen = Set<QualifiedQuery>()
        return readings.filter { !$0.name.isEmpty && seen.insert($0).inserted }
    }
}
