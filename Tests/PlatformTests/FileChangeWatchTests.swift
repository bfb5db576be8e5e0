import Foundation
import Platform
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What the device page's wake-up counts: writes to the logbook's files, and not a
/// reader's opening and closing of them (SQLite readers open the `-wal` for writing),
/// nor `-shm`, nor other files of the directory. Each wait ends on the event it waits for.
@Suite struct FileChangeWatchTests {
    static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("watch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Opens `path` for writing (creating it), writes `bytes` when given, closes it.
    static func touch(_ path: String, writing bytes: String? = nil) {
        let descriptor = open(path, O_RDWR | O_CREAT, 0o600)
        if let bytes { _ = bytes.withCString { write(descriptor, $0, strlen($0)) } }
        close(descriptor)
    }

    @Test func aReadersOpenAndCloseIsNoChangeAndAWriteIsOne() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("log.sqlite").path
        // The files exist before the watch: their creation is not what is counted here.
        Self.touch(database)
        Self.touch(database + "-wal")
        let watch = FileChangeWatch(directory: directory, prefix: "log.sqlite")
        defer { watch.stop() }
        for _ in 0..<5 {
            Self.touch(database + "-wal")  // a reader: opened for writing, closed unwritten
            Self.touch(database + "-shm", writing: "reader marks")  // -shm is the readers' too
            Self.touch(directory.appendingPathComponent("other.json").path, writing: "{}")
        }
        Self.touch(database + "-wal", writing: "a commit")
        // The events come in order: once the write is counted, everything before it was seen.
        let seen = watch.wait(after: 0, seconds: 120)
        #expect(seen == 1, "only the write counts: \(seen)")
        Self.touch(database + "-wal", writing: "another commit")
        #expect(watch.wait(after: 1, seconds: 120) == 2)
    }

    @Test func aLogbookMadeAfterTheWatchStartedIsSeen() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let watch = FileChangeWatch(directory: directory, prefix: "log.sqlite")
        defer { watch.stop() }
        Self.touch(directory.appendingPathComponent("log.sqlite").path)
        #expect(watch.wait(after: 0, seconds: 120) >= 1)
    }
}
