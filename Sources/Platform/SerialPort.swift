import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A serial device (a particulate sensor on a USB-serial adapter), opened for this process
/// alone in raw mode: the one file that sets up termios for serial ports.
///
/// Contract: opened with `O_NOCTTY` (a sensor never becomes the controlling terminal) and
/// `TIOCEXCL` (a second opener, gpsd probing devices, is refused); raw 8N1 at the given
/// baud, no flow control. Every read waits through `poll` with a deadline and returns
/// what arrived by then (possibly nothing); nothing blocks past it. Failures are typed:
/// a missing node, a refused permission (the `dialout` group), a device in use, and a
/// device that went away (EIO, ENXIO, end of file: an adapter pulled out).
public final class SerialPort {
    /// Why the port cannot be used, in the words a person needs.
    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case missing(String)
        case permission(String)
        case busy(String)
        /// The device went away (unplugged) or reported an I/O error.
        case gone(String, reason: String)
        case other(String, reason: String)

        /// What is wrong with the port and why.
        public var description: String {
            switch self {
            case .missing(let path): return "\(path) does not exist"
            case .permission(let path): return "no permission to open \(path)"
            case .busy(let path): return "\(path) is in use by another program"
            case .gone(let path, let reason): return "\(path) went away (\(reason))"
            case .other(let path, let reason): return "\(path): \(reason)"
            }
        }

        static func fromErrno(_ path: String) -> Failure {
            let code = errno
            let reason = String(cString: strerror(code))
            switch code {
            case ENOENT, ENODEV: return .missing(path)
            case EACCES, EPERM: return .permission(path)
            case EBUSY: return .busy(path)
            case EIO, ENXIO, EBADF: return .gone(path, reason: reason)
            // A regular file, or a device that is no terminal: "Inappropriate ioctl" says nothing.
            case ENOTTY: return .other(path, reason: "not a serial device")
            default: return .other(path, reason: reason)
            }
        }
    }

    /// The device node opened.
    public let path: String
    private var descriptor: Int32

    /// Opens `path` at `baud` (9600, 115200, ...).
    public init(path: String, baud: Int) throws(Failure) {
        self.path = path
        descriptor = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { throw .fromErrno(path) }
        do throws(Failure) { try configure(baud: baud) } catch {
            close(descriptor)
            throw error
        }
    }

    private func configure(baud: Int) throws(Failure) {
        guard ioctl(descriptor, UInt(TIOCEXCL)) == 0 else { throw .fromErrno(path) }
        var settings = termios()
        guard tcgetattr(descriptor, &settings) == 0 else { throw .fromErrno(path) }
        cfmakeraw(&settings)
        let speed: speed_t
        switch baud {
        case 9600: speed = speed_t(B9600)
        case 19200: speed = speed_t(B19200)
        case 38400: speed = speed_t(B38400)
        case 57600: speed = speed_t(B57600)
        case 115200: speed = speed_t(B115200)
        default: throw .other(path, reason: "unsupported baud rate \(baud)")
        }
        cfsetispeed(&settings, speed)
        cfsetospeed(&settings, speed)
        // 8N1, receiver on, modem lines ignored, no hardware flow control.
        settings.c_cflag |= tcflag_t(CLOCAL | CREAD)
        settings.c_cflag &= ~(tcflag_t(CSTOPB) | tcflag_t(CRTSCTS))
        guard tcsetattr(descriptor, TCSANOW, &settings) == 0 else { throw .fromErrno(path) }
        // What a sensor sent before we listened belongs to no command of ours.
        tcflush(descriptor, TCIOFLUSH)
    }

    /// Writes all of `bytes` (a command frame), waiting at most until `deadline` for the
    /// device to take them.
    public func write(_ bytes: [UInt8], deadline: ContinuousClock.Instant) throws(Failure) {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, $0.count - written) }
            if count > 0 {
                written += count
                continue
            }
            if count < 0 && errno == EINTR { continue }
            guard count < 0 && errno == EAGAIN else { throw .fromErrno(path) }
            guard try wait(for: Int16(POLLOUT), until: deadline) else {
                throw .other(path, reason: "the device took no data")
            }
        }
    }

    /// The bytes that arrive until `deadline` once some have arrived (the rest of a burst
    /// is read at once), or none when the deadline passes first — or `stop` is set (the
    /// reading was cancelled: the caller looks at it, at once).
    public func read(until deadline: ContinuousClock.Instant, stop: StopSignal? = nil) throws(Failure) -> [UInt8] {
        guard try wait(for: Int16(POLLIN), until: deadline, stop: stop) else { return [] }
        var buffer = [UInt8](repeating: 0, count: 512)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 { return Array(buffer.prefix(count)) }
            if count == 0 { throw .gone(path, reason: "end of file") }
            if errno == EINTR { continue }
            if errno == EAGAIN { return [] }
            throw .fromErrno(path)
        }
    }

    /// True when the descriptor is ready for `events` before `deadline`.
    private func wait(for events: Int16, until deadline: ContinuousClock.Instant, stop: StopSignal? = nil)
        throws(Failure) -> Bool
    {
        while true {
            let left = deadline - ContinuousClock.now
            let milliseconds =
                left <= .zero
                ? 0
                : Int32(
                    min(
                        left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1, 60_000
                    ))
            var entries = [
                pollfd(fd: descriptor, events: events, revents: 0),
                pollfd(fd: stop?.descriptor ?? -1, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&entries, 2, milliseconds)
            let entry = entries[0]
            if entries[1].revents & Int16(POLLIN) != 0 { return false }
            if ready < 0 {
                if errno == EINTR { continue }
                throw .fromErrno(path)
            }
            if ready == 0 {
                if ContinuousClock.now >= deadline { return false }
                continue
            }
            // A hang-up with nothing left to read: the other end (an adapter, a pty) is gone.
            if entry.revents & Int16(POLLNVAL) != 0 { throw .gone(path, reason: "closed") }
            if entry.revents & events != 0 { return true }
            if entry.revents & Int16(POLLHUP | POLLERR) != 0 { throw .gone(path, reason: "hung up") }
        }
    }

    deinit {
        // Exclusive use ends with us: the next reading (or gpsd) may open it again even
        // while another descriptor (a test double's) keeps the terminal alive.
        _ = ioctl(descriptor, UInt(TIOCNXCL))
        close(descriptor)
    }
}
