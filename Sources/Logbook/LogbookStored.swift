import Foundation

/// The collector's side of the outbox (`[mqtt] end-to-end = collector`): which published
/// rows the collector said it stored, and making the others unsent again so that they
/// are published once more.
///
/// Contract:
/// - A row is unstored from the moment it is written while ``Logbook/collector`` is on,
///   and again whenever its content changes, until an acknowledgement covers it: its id
///   at or below the kind's `through` when its revision is 0, or its key listed in
///   `revised` at its revision or a newer one. No other event marks a row stored.
/// - ``requeueUnstored()`` and ``replay(kind:from:)`` only ever turn published rows
///   back to unsent; what the collector stored is never sent again by them.
/// - Kinds are named as the export names them: `track`, `air`, `sensor`.
extension Logbook {
    static let storedTables = ["track": "track", "air": "air", "sensor": "sensor"]
    static let letters: [Character: String] = ["t": "track", "a": "air", "s": "sensor"]

    /// Marks what an acknowledgement covers stored, in one transaction; returns how many
    /// rows it newly covered.
    @discardableResult
    public func markStored(through: [String: Int64], revised: [String: Int64]) throws(LogbookError) -> Int {
        do {
            var covered = 0
            try database.transaction { () throws(SQLiteError) in
                for (kind, id) in through.sorted(by: { $0.key < $1.key }) {
                    guard let table = Self.storedTables[kind] else { continue }
                    let update = try statement(
                        "UPDATE \(table) SET stored = 1 WHERE stored = 0 AND id <= ? AND revision = 0")
                    try update.run([.integer(id)])
                    covered += database.changes
                }
                for (key, revision) in revised {
                    guard let letter = key.first, let table = Self.letters[letter], let id = Int64(key.dropFirst())
                    else { continue }
                    let update = try statement(
                        "UPDATE \(table) SET stored = 1 WHERE stored = 0 AND id = ? AND revision <= ? AND revision > 0")
                    try update.run([.integer(id), .integer(revision)])
                    covered += database.changes
                }
            }
            return covered
        } catch { throw .database(url.path, error) }
    }

    /// Makes every published but unstored row unsent again; returns how many.
    @discardableResult
    public func requeueUnstored() throws(LogbookError) -> Int {
        do {
            var requeued = 0
            try database.transaction { () throws(SQLiteError) in
                for table in ["track", "air", "sensor"] {
                    try statement("UPDATE \(table) SET sent = 0 WHERE stored = 0 AND sent = 1").run([])
                    requeued += database.changes
                }
            }
            return requeued
        } catch { throw .database(url.path, error) }
    }

    /// Makes the published but unstored rows of `kind` from id `from` on unsent again, as
    /// the collector asked; returns how many.
    @discardableResult
    public func replay(kind: String, from: Int64) throws(LogbookError) -> Int {
        guard let table = Self.storedTables[kind] else { return 0 }
        try run("UPDATE \(table) SET sent = 0 WHERE stored = 0 AND sent = 1 AND id >= ?", [.integer(from)])
        return database.changes
    }

    /// Rows published (or still to be) that the collector has not said it stored.
    public func unstoredCount() throws(LogbookError) -> Int {
        do {
            var count: Int64 = 0
            for table in ["track", "air", "sensor"] {
                count += try database.integer("SELECT count(*) FROM \(table) WHERE stored = 0") ?? 0
            }
            return Int(count)
        } catch { throw .database(url.path, error) }
    }

    /// Per kind, the lowest id not yet stored (the first the device still delivers), or
    /// one past the highest id when every row is stored.
    public func firstUnstored() throws(LogbookError) -> [String: Int64] {
        do {
            var first: [String: Int64] = [:]
            for table in ["track", "air", "sensor"] {
                if let lowest = try database.integer("SELECT min(id) FROM \(table) WHERE stored = 0") {
                    first[table] = lowest
                } else {
                    first[table] = (try database.integer("SELECT max(id) FROM \(table)") ?? 0) + 1
                }
            }
            return first
        } catch { throw .database(url.path, error) }
    }

    /// The meta key of the collector's last acknowledgement, as it came.
    public static let lastAckKey = "collector_ack"
}
