import FleetWire
import Foundation
import Platform

/// Why `[collect]` cannot work as written: facts, for the program to turn into advice.
public enum CollectorSetupError: Error, Sendable, Equatable, CustomStringConvertible {
    case missing(String)
    case passwordFile(key: String, path: String, reason: String)
    case broker(String)

    /// What is wrong with `[collect]`.
    public var description: String {
        switch self {
        case .missing(let key): return "[collect] \(key) is not set (or AIRLOC_COLLECT_\(key.uppercased()))"
        case .passwordFile(let key, let path, let reason): return "[collect] \(key) \(path): \(reason)"
        case .broker(let reason): return "[collect] broker: \(reason)"
        }
    }
}

/// How the collector's database is reached and named: what `[collect]`'s database keys
/// become, for the collector and for the fleet's page alike.
///
/// Contract: a password file must be a regular file only its owner may read (0600): one
/// others can read is refused, never used; the password is in no description. A database's
/// name as people see it holds no password.
public enum DatabaseAccess {
    /// The first line of `path`, which only its owner may read.
    public static func secret(_ path: String, key: String) throws(CollectorSetupError) -> String {
        do { return try SecretFile.read(path) } catch {
            if case .readableByOthers = error {
                throw .passwordFile(key: key, path: path, reason: "\(error): chmod 600 \(path)")
            }
            throw .passwordFile(key: key, path: path, reason: error.description)
        }
    }

    /// `conninfo` without any password in it (``CredentialText``).
    public static func safeName(_ conninfo: String) -> String {
        // postgresql://user:secret@host/db → postgresql://user@host/db
        var text = conninfo
        if let scheme = text.range(of: "://"), let at = text[scheme.upperBound...].firstIndex(of: "@") {
            let credentials = text[scheme.upperBound..<at]
            if let colon = credentials.firstIndex(of: ":") { text.removeSubrange(colon..<at) }
        }
        // key=value form: password=... goes.
        let words = text.split(separator: " ").filter { !$0.lowercased().hasPrefix("password=") }
        return CredentialText.masked(words.joined(separator: " "))
    }
}
