/// Why the offline place data could not be used or built. Each case says what file and
/// what is wrong with it; what to do about it is the caller's to say (the command line
/// names its own remedies).
public enum GazetteerError: Error, Sendable, Equatable, CustomStringConvertible {
    case notFound(searched: [String])
    case unreadable(path: String, reason: String)
    case corrupt(path: String, reason: String)
    /// A sound file of another format version (built by an older or newer airloc).
    case otherVersion(path: String, version: UInt32, supported: UInt32)
    case badInput(file: String, line: Int, reason: String)

    /// What is wrong with the place data, naming the file.
    public var description: String {
        switch self {
        case .notFound(let searched):
            return "no place data (gazetteer.bin) found; looked in: \(searched.joined(separator: ", "))"
        case .unreadable(let path, let reason):
            return "cannot read place data \(path): \(reason)"
        case .corrupt(let path, let reason):
            return "place data \(path) is damaged (\(reason))"
        case .otherVersion(let path, let version, let supported):
            return "place data \(path) is in format version \(version); this airloc reads version \(supported)"
        case .badInput(let file, let line, let reason):
            return "\(file):\(line): \(reason)"
        }
    }
}
