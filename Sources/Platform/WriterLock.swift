import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One writer of a file at a time: an exclusive `flock` on a lock file beside it
/// (`logbook.sqlite.lock`), held until the process ends or the lock is released.
///
/// Contract:
/// - ``take(beside:)`` returns at once (making the directory, private, if need be): the
///   lock, or ``WriterLockError/held(path:pid:)``
///   naming the process that holds it (its PID is written into the lock file, which is
///   never removed: removing it would let a third writer lock a new file beside the one
///   still held).
/// - The lock is the kernel's: a writer that is killed releases it, so a stale lock file
///   never blocks a start. Readers take no lock and are never held up.
/// - The file locked is not the database: a descriptor of the database itself, closed,
///   would drop SQLite's own locks on it (see ``PrivateFile``).
public final class WriterLock: Sendable {
    /// The lock file.
    public let path: String
    private let descriptor: Int32

    private init(path: String, descriptor: Int32) {
        self.path = path
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }

    /// Who writes a locked file: named in the refusal another writer gets, with the systemd
    /// unit that runs it.
    public enum Writer: String, Sendable, Equatable {
        /// The logger, writing the logbook (`airloc-log`); reading the logbook needs no stop.
        case logger
        /// The collector, writing its status file (`airloc-collect`).
        case collector

        /// The systemd unit that runs it.
        public var unit: String { self == .logger ? "airloc-log" : "airloc-collect" }
    }

    /// Takes the lock beside `url` (see the type's contract) for `writer`.
    public static func take(beside url: URL, writer: Writer = .logger)
        throws(WriterLockError) -> WriterLock
    {
        let path = url.path + ".lock"
        do { try PrivateDirectory.ensure(url.deletingLastPathComponent()) } catch { throw .file(error) }
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .file(FileError.fromErrno("open", path: path)) }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            let holder = Self.pid(in: descriptor)
            close(descriptor)
            if code == EWOULDBLOCK { throw .held(path: url.path, pid: holder, writer: writer) }
            errno = code
            throw .file(FileError.fromErrno("lock", path: path))
        }
        let text = Array("\(getpid())\n".utf8)
        if ftruncate(descriptor, 0) == 0 {
            _ = text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        }
        return WriterLock(path: path, descriptor: descriptor)
    }

    /// The process holding the lock beside `url`, or nil when no writer runs. Read from
    /// the kernel's `/proc/locks`, never by trying the lock: a reader that held it for an
    /// instant would turn away a writer starting at that instant.
    public static func holder(beside url: URL) -> Int32? {
        var info = stat()
        guard stat(url.path + ".lock", &info) == 0,
            let table = try? String(contentsOfFile: "/proc/locks", encoding: .utf8)
        else { return nil }
        // "1: FLOCK  ADVISORY  WRITE 30846 08:01:1234 0 EOF": the device as hex major:minor.
        let device = String(format: "%02x:%02x:%llu", major(info.st_dev), minor(info.st_dev), UInt64(info.st_ino))
        for line in table.split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count >= 6, fields[1] == "FLOCK", fields[3] == "WRITE", fields[5] == device else { continue }
            return Int32(fields[4])
        }
        return nil
    }

    private static func major(_ device: dev_t) -> UInt32 {
        UInt32((device >> 8) & 0xfff) | UInt32((device >> 32) & ~0xfff)
    }
    private static func minor(_ device: dev_t) -> UInt32 { UInt32(device & 0xff) | UInt32((device >> 12) & ~0xff) }

    private static func pid(in descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        return Int32(
            String(decoding: buffer.prefix(count), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

/// Why ``WriterLock/take(beside:)`` gave no lock.
public enum WriterLockError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Another process writes the file: its PID when the lock file names it, and what it is.
    case held(path: String, pid: Int32?, writer: WriterLock.Writer)
    /// The lock file could not be made or locked.
    case file(FileError)

    /// Another process holds the lock (try again once it stopped: exit 75).
    public var isHeld: Bool {
        if case .held = self { return true }
        return false
    }

    /// What an operator reads.
    public var description: String {
        switch self {
        case .held(let path, let pid, let writer):
            let holder = pid.map { "process \($0)" } ?? "another process"
            let reading = writer == .logger ? "; reading it (`airloc log status`, export) needs no stop" : ""
            return
                "another \(writer.rawValue) (\(holder)) is writing \(path): stop it first (`systemctl stop \(writer.unit)`, or "
                + "`kill \(pid.map(String.init) ?? "PID")`)\(reading)"
        case .file(let error): return error.description
        }
    }
}
