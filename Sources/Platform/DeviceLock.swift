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
/// A directory that cannot be written means no lock, as before there was one.
public final class DeviceLock: Sendable {
    private let descriptor: Int32
    private let path: String

    private init(descriptor: Int32, path: String) { (self.descriptor, self.path) = (descriptor, path) }

    deinit {
        unlink(path)
        close(descriptor)
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
            return DeviceLock(descriptor: descriptor, path: path)
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
