import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A serial device held by one program for as long as it runs (the logger's sensor), so
/// that `sense` and `doctor` beside it never write to the port, and a second logger cannot
/// split the frames with the first. TIOCEXCL alone does not do it: root may open an
/// exclusive port anyway, and the logger closes the port between readings.
///
/// Contract: the lock is a UUCP-style file `LCK..<name>` (the PID in ten columns) in
/// `/run/lock` (`AIRLOC_LOCK_DIR` for tests), named after the device's real node, so
/// `/dev/airloc-pm` and the `ttyUSB0` it points at are one lock. It is held with `flock`,
/// so a holder that died (SIGKILL, power) holds nothing; a file left behind is taken over.
/// It follows the device: a reading calls ``follow(_:)`` before it opens the port, so after
/// a replug onto another node the lock is on that node, and the old node's is let go.
/// A directory that cannot be written means no lock, as before there was one.
public final class DeviceLock: Sendable {
    /// The device as configured (a udev link, say), whose real node the lock is named after.
    private let device: String
    private let directory: String
    /// The lock file held and its descriptor: it moves with the node (``follow()``).
    private let held: Lock<(descriptor: Int32, path: String)>

    private init(device: String, directory: String, descriptor: Int32, path: String) {
        (self.device, self.directory) = (device, directory)
        held = Lock((descriptor, path))
    }

    deinit {
        let (descriptor, path) = held.withLock { $0 }
        unlink(path)
        close(descriptor)
        // Unless another lock of this process took its place meanwhile.
        Self.holding.withLock { if $0[device]?.lock == nil { $0[device] = nil } }
    }

    /// Where the locks live.
    public static var directory: String { ProcessInfo.processInfo.environment["AIRLOC_LOCK_DIR"] ?? "/run/lock" }

    /// The lock file of `device`.
    public static func path(for device: String, in directory: String = directory) -> String {
        let real = URL(fileURLWithPath: device).resolvingSymlinksInPath().path
        return directory + "/LCK.." + (real as NSString).lastPathComponent
    }

    /// Takes the lock on `device` for this process (nil when no lock can be made here);
    /// throws the holder's PID when another live process holds it.
    public static func acquire(_ device: String, in directory: String = directory) throws(Held) -> DeviceLock? {
        let path = path(for: device, in: directory)
        guard let descriptor = try take(path, device: device, in: directory) else { return nil }
        let lock = DeviceLock(device: device, directory: directory, descriptor: descriptor, path: path)
        holding.withLock { $0[device] = Reference(lock) }
        return lock
    }

    /// The locks this process holds, by the device as configured (``follow(_:)``).
    private static let holding = Lock<[String: Reference]>([:])

    /// A lock of this process, not kept alive by the list of them.
    private final class Reference: Sendable {
        weak let lock: DeviceLock?
        init(_ lock: DeviceLock) { self.lock = lock }
    }

    /// After a replug the configured device (a udev link) may point at another node: the
    /// lock moves to that node's name, and the old node's is let go (another device may get
    /// its number). Nothing changes while the node is the same, or when the new node is
    /// another program's.
    public func follow() {
        let wanted = Self.path(for: device, in: directory)
        held.withLock { current in
            guard current.path != wanted,
                let descriptor = try? Self.take(wanted, device: device, in: directory)
            else { return }
            unlink(current.path)
            close(current.descriptor)
            current = (descriptor, wanted)
        }
    }

    /// ``follow()`` for the lock this process holds on `device`, if any: a reading calls it
    /// before it opens the port, so the lock is on the node it opens.
    public static func follow(_ device: String) {
        holding.withLock { $0[device]?.lock }?.follow()
    }

    /// The lock file at `path`, locked (its descriptor); nil when none can be made.
    private static func take(_ path: String, device: String, in directory: String) throws(Held) -> Int32? {
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for _ in 0..<3 {
            let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { return nil }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                let pid = readPID(descriptor)
                close(descriptor)
                throw Held(pid: pid ?? 0, device: device)
            }
            // The holder before us may have removed the file between our open and our lock:
            // a lock on a file no longer at `path` holds nothing.
            var held = stat()
            var named = stat()
            guard fstat(descriptor, &held) == 0, stat(path, &named) == 0, held.st_ino == named.st_ino else {
                close(descriptor)
                continue
            }
            let text = String(format: "%10d\n", getpid())
            _ = ftruncate(descriptor, 0)
            _ = text.withCString { pwrite(descriptor, $0, strlen($0), 0) }
            return descriptor
        }
        return nil
    }

    /// The PID of another process that holds `device`, or nil (free, or held by this one).
    public static func holder(of device: String, in directory: String = directory) -> Int32? {
        let descriptor = open(path(for: device, in: directory), O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        // A shared lock is refused while anyone holds the exclusive one (this process too:
        // flock locks belong to the open file, not the process).
        if flock(descriptor, LOCK_SH | LOCK_NB) == 0 { return nil }
        guard let pid = readPID(descriptor), pid != getpid() else { return nil }
        return pid
    }

    private static func readPID(_ descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        return Int32(String(decoding: buffer[..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Another process holds the device.
    public struct Held: Error, Sendable, CustomStringConvertible {
        /// The holder (0 when its lock file does not say).
        public var pid: Int32
        /// The device.
        public var device: String

        /// What to tell the user.
        public var description: String {
            "\(device) is held by another airloc (PID \(pid), the logger?)"
        }
    }
}
