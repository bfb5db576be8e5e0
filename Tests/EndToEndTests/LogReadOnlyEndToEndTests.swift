import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A logbook on read-only media (a write-protected SD card, a mounted backup image):
/// `log status` and `log export` read it as it is. The media is a real read-only bind
/// mount in a mount namespace of the command's own (`unshare`).
@Suite(.enabled(if: ExternalTool.available("unshare", "python3")))
struct LogReadOnlyEndToEndTests {
    /// Writes `rows` track points with the bench's writer; `checkpoint` then folds the
    /// write-ahead log into the file, as a clean stop of the logger does.
    static func logbook(in directory: URL, rows: Int, checkpoint: Bool) async throws -> String {
        let database = directory.appendingPathComponent("logbook.sqlite").path
        let bench = URL(fileURLWithPath: AirlocBinary.path).deletingLastPathComponent()
            .appendingPathComponent("airloc-bench").path
        // Its rows are one second apart from now on, into the future: exports read to 2100.
        let written = try await ChildProcess.run(bench, ["logbook-write", database, "\(rows)"], environment: [:])
        guard written.status == 0 else { throw FixtureError("logbook-write: \(written)") }
        if checkpoint {
            let python = try #require(ExternalTool.path(of: "python3"))
            let folded = try await ChildProcess.run(
                python,
                [
                    "-c",
                    "import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute('PRAGMA wal_checkpoint(TRUNCATE)')",
                    database,
                ], environment: [:])
            guard folded.status == 0 else { throw FixtureError("checkpoint: \(folded)") }
        }
        return database
    }

    /// Runs airloc with `directory` mounted read-only over itself.
    static func onReadOnlyMedia(_ directory: URL, database: String, _ arguments: [String]) async throws
        -> ChildProcess.Result
    {
        let unshare = try #require(ExternalTool.path(of: "unshare"))
        let script = """
            mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" || exit 71
            if touch "$1/probe" 2>/dev/null; then echo "the mount is writable" >&2; exit 70; fi
            shift
            exec "$@"
            """
        // As root (CI) a mount namespace is enough; otherwise a user namespace maps us to root in it.
        let namespaces = getuid() == 0 ? ["-m"] : ["-r", "-m"]
        let environment = AirlocBinary.environment(
            home: directory.deletingLastPathComponent(), extra: ["AIRLOC_LOG_DATABASE": database])
        let result = try await ChildProcess.run(
            unshare, namespaces + ["/bin/sh", "-c", script, "sh", directory.path, AirlocBinary.path] + arguments,
            environment: environment)
        guard result.status != 71 && result.status != 70 else { throw FixtureError("no read-only mount: \(result)") }
        return result
    }

    @Test func statusAndExportReadALogbookOnReadOnlyMedia() async throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let media = home.file("media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        let database = try await Self.logbook(in: media, rows: 50, checkpoint: true)
        let status = try await Self.onReadOnlyMedia(media, database: database, ["log", "status", "--json"])
        #expect(status.status == 0, "\(status)")
        let document = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        #expect(document?["track_rows"] as? Int == 50, "\(status)")
        let export = try await Self.onReadOnlyMedia(
            media, database: database, ["log", "export", "--format", "csv", "--until", "2100-01-01"])
        #expect(export.status == 0, "\(export)")
        // CSV lines end in CRLF (RFC 4180), one Character in Swift.
        #expect(export.stdout.split(whereSeparator: \.isNewline).count == 51, "a header and 50 rows: \(export)")
        #expect(!export.stderr.contains("warning"), "nothing is hidden: \(export.stderr)")
    }

    /// A logger that did not stop cleanly left rows in its write-ahead log: on read-only
    /// media they are either shown or said to be missing, never silently left out.
    @Test func rowsOnlyTheWriteAheadLogHoldsAreShownOrSaidToBeMissing() async throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let media = home.file("media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        let database = try await Self.logbook(in: media, rows: 50, checkpoint: false)
        let status = try await Self.onReadOnlyMedia(media, database: database, ["log", "status", "--json"])
        #expect(status.status == 0, "\(status)")
        let document = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        let rows = document?["track_rows"] as? Int ?? -1
        #expect(
            rows == 50 || status.stderr.contains("write-ahead log"),
            "\(rows) of 50 rows shown without a word: \(status)")
    }
}
