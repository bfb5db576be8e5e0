import Foundation
import Platform
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Private files and directories as a user (and an attacker on the same machine) sees
/// them: modes, replacement in one step, and failures that leave the old file alone.
@Suite struct AtomicFileTests {
    func mode(_ url: URL) -> mode_t {
        var info = stat()
        _ = stat(url.path, &info)
        return info.st_mode & 0o777
    }

    @Test func aPrivateFileAndItsNewDirectoryAreTheUsersAlone() throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let file = home.url.appendingPathComponent("state/airloc/authorization")
        try AtomicFile.write(Data("status=authorizedAlways\n".utf8), to: file)
        #expect(mode(file) == 0o600)
        #expect(mode(file.deletingLastPathComponent()) == 0o700)
        #expect(try String(contentsOf: file, encoding: .utf8) == "status=authorizedAlways\n")
    }

    @Test func anExistingOpenDirectoryIsTightened() throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let directory = home.url.appendingPathComponent("cache/airloc")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        chmod(directory.path, 0o755)
        try AtomicFile.write(Data("{}".utf8), to: directory.appendingPathComponent("air.json"))
        #expect(mode(directory) == 0o700, "positions in the cache must not be readable by others")
    }

    @Test func aPublicFileGetsExactlyItsModeAndLeavesItsDirectoryAlone() throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        chmod(home.url.path, 0o755)
        let file = home.url.appendingPathComponent("gazetteer.bin")
        try AtomicFile.write([1, 2, 3], to: file, mode: 0o644)
        #expect(mode(file) == 0o644)
        #expect(mode(home.url) == 0o755)
    }

    @Test func aReplacementIsWholeAndLeavesNoTemporaryFile() throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let file = home.url.appendingPathComponent("place")
        try AtomicFile.write(Data("old\n".utf8), to: file)
        try AtomicFile.write(Data("new\n".utf8), to: file)
        #expect(try String(contentsOf: file, encoding: .utf8) == "new\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.url.path) == ["place"])
    }

    @Test func aFailedWriteNamesThePathAndKeepsTheOldContent() throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let file = home.url.appendingPathComponent("place")
        try AtomicFile.write(Data("old\n".utf8), to: file)
        // A directory where the temporary file should go: the write must fail cleanly.
        let blocker = home.url.appendingPathComponent(".place.\(getpid()).tmp")
        try FileManager.default.createDirectory(at: blocker, withIntermediateDirectories: false)
        try FileManager.default.createDirectory(
            at: blocker.appendingPathComponent("inside"), withIntermediateDirectories: false)
        #expect(throws: FileError.self) { try AtomicFile.write(Data("new\n".utf8), to: file) }
        #expect(try String(contentsOf: file, encoding: .utf8) == "old\n")
        do {
            try AtomicFile.write(Data("new\n".utf8), to: file)
        } catch {
            #expect(error.description.hasPrefix("cannot write \(file.path): "), "\(error)")
        }
    }

    @Test func removingAFileThatIsNotThereIsFine() throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        try AtomicFile.remove(home.url.appendingPathComponent("nothing"))
    }

    @Test func xdgPathsFollowTheEnvironmentButNotRelativePaths() {
        let directories = XDGDirectories(environment: [
            "HOME": "/home/pi", "XDG_STATE_HOME": "/var/lib/pi", "XDG_CACHE_HOME": "relative/cache",
        ])
        #expect(directories.state.path == "/var/lib/pi/airloc")
        #expect(directories.cache.path == "/home/pi/.cache/airloc", "a relative XDG path is invalid: ignored")
        #expect(directories.config.path == "/home/pi/.config/airloc")
        #expect(directories.data.path == "/home/pi/.local/share/airloc")
    }

    @Test func aMappedFileShowsItsBytesAndAnEmptyOneNone() throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let file = home.url.appendingPathComponent("data.bin")
        try AtomicFile.write([7, 8, 9], to: file, mode: 0o644)
        let mapped = try MappedFile(path: file.path)
        #expect(Array(mapped.bytes) == [7, 8, 9])
        let empty = home.url.appendingPathComponent("empty.bin")
        try AtomicFile.write([], to: empty, mode: 0o644)
        #expect(try MappedFile(path: empty.path).bytes.isEmpty)
        #expect(throws: FileError.self) { try MappedFile(path: home.url.appendingPathComponent("none").path) }
    }
}
