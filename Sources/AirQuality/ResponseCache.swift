import Foundation
import Platform

/// Answers kept on disk between runs (`$XDG_CACHE_HOME/airloc`), so that scripts calling
/// airloc every minute neither wait for nor hammer the services, and a report survives a
/// network outage.
///
/// Contract: one file per key, written to a temporary file and renamed into place, so a
/// power cut leaves the old entry or the new one, never half of one. A file that cannot
/// be read or decoded is deleted and reported as absent — a corrupt cache costs one
/// refetch, never a failure. The directory is created private (0700) because keys hold
/// the (rounded) coordinates sent. Failing to write is silent: the cache is an
/// optimisation.
public struct ResponseCache: Sendable {
    /// The cache directory (0700).
    public let directory: URL

    /// A cache in `directory`.
    public init(directory: URL) { self.directory = directory }

    /// One stored answer.
    public struct Entry: Codable, Sendable, Equatable {
        /// When it was fetched.
        public var storedAt: Date
        /// Until when it is current; after that it is stale (still usable offline).
        public var validUntil: Date
        /// The answer body, as received (or as airloc derived it).
        public var body: Data

        /// An answer kept at `storedAt`, current until `validUntil`.
        public init(storedAt: Date, validUntil: Date, body: Data) {
            self.storedAt = storedAt
            self.validUntil = validUntil
            self.body = body
        }

        /// True while the answer is current (and not from a clock that went backwards).
        public func isFresh(at now: Date) -> Bool { now < validUntil && now >= storedAt.addingTimeInterval(-300) }
        /// How old it is.
        public func age(at now: Date) -> TimeInterval { max(0, now.timeIntervalSince(storedAt)) }
    }

    func file(_ key: String) -> URL {
        // Keys are built by airloc from numbers and fixed words; anything else is dropped
        // so no key can name a path outside the directory.
        let safe = String(
            key.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || "-_.,".contains(Character($0)) })
        return directory.appendingPathComponent(safe + ".json")
    }

    /// The answer kept under `key`, if any.
    public func read(_ key: String) -> Entry? {
        let url = file(key)
        guard let data = try? Data(contentsOf: url) else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        guard let entry = try? decoder.decode(Entry.self, from: data) else {
            try? FileManager.default.removeItem(at: url)
            return nil
        }
        return entry
    }

    /// Keeps `entry` under `key` (atomically, 0600; a failure is not an error).
    public func write(_ key: String, _ entry: Entry) {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        guard let data = try? encoder.encode(entry) else { return }
        // Best effort: a cache that cannot be written costs a request next time, nothing more.
        try? AtomicFile.write(data, to: file(key))
    }

    /// Forgets `key`.
    public func remove(_ key: String) { try? FileManager.default.removeItem(at: file(key)) }
}
