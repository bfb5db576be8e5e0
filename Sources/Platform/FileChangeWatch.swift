import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A wake-up when another process writes a file: inotify on its directory, so a reader
/// (the device page) learns of the logger's commits at once without polling.
///
/// Contract: ``changes`` counts the writes seen to files of the directory whose names
/// begin with `prefix` (a SQLite database, its `-wal` and `-journal`), and their creation,
/// starting at 0; a file opened for writing and closed unwritten is no change (every
/// SQLite reader opens the `-wal` so, and counting it made a reader's own queries look
/// like the logger's commits);
/// ``wait(after:seconds:)`` returns as soon as the count passes the one given, or when the
/// time runs out, or at ``stop()``. A directory that does not exist yet is watched from its
/// parent's side only by its creation: a watch that cannot start counts nothing, and the
/// caller's timeout still ends every wait. Writes made through a memory map (SQLite's
/// `-shm`) are not seen, by design: readers write there too.
public final class FileChangeWatch: Sendable {
    private struct Seen: Sendable {
        var count = 0
        var stopped = false
    }
    private let seen = GuardedState(Seen())
    private let descriptor: Int32
    private let wake: (read: Int32, write: Int32)

    /// Watches `directory` for writes to files named `prefix…`.
    public init(directory: URL, prefix: String) {
        descriptor = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) != 0 { ends = [-1, -1] }
        for end in ends where end >= 0 { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        wake = (ends[0], ends[1])
        let mask = UInt32(IN_MODIFY | IN_CREATE | IN_MOVED_TO)
        guard descriptor >= 0, wake.read >= 0, inotify_add_watch(descriptor, directory.path, mask) >= 0 else { return }
        let thread = Thread { [self] in watch(prefix: prefix) }
        thread.name = "airloc-file-watch"
        thread.start()
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if wake.read >= 0 { close(wake.read) }
        if wake.write >= 0 { close(wake.write) }
    }

    /// The writes seen so far.
    public var changes: Int { seen.withLock { $0.count } }

    /// Waits until ``changes`` exceeds `seen`, up to `seconds`; returns the count then.
    public func wait(after count: Int, seconds: Double) -> Int {
        seen.wait(seconds: seconds) { $0.count > count || $0.stopped ? $0.count : nil } ?? changes
    }

    /// Ends every wait and the watch.
    public func stop() {
        seen.change { $0.stopped = true }
        var one: UInt8 = 1
        if wake.write >= 0 { _ = write(wake.write, &one, 1) }
    }

    private func watch(prefix: String) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var polls = [
            pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0),
        ]
        while true {
            guard poll(&polls, 2, -1) >= 0 || errno == EINTR else { return }
            if polls[1].revents != 0 { return }
            guard polls[0].revents != 0 else { continue }
            let length = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard length > 0 else { continue }
            var written = 0
            var offset = 0
            // Each event: wd, mask, cookie, len (4 bytes each), then len bytes of name.
            while offset + 16 <= length {
                let nameLength = buffer[offset + 12..<offset + 16].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
                let nameBytes = buffer[(offset + 16)..<min(length, offset + 16 + Int(nameLength))]
                let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                if name.hasPrefix(prefix) && !name.hasSuffix("-shm") { written += 1 }
                offset += 16 + Int(nameLength)
            }
            guard written > 0 else { continue }
            seen.change { $0.count += written }
        }
    }
}
