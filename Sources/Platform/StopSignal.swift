import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A request to stop that one side makes and a loop on another thread looks at, waits
/// on, or polls beside its own descriptors: how a blocking C loop (libgps, libmosquitto,
/// a serial port) learns that its caller went away.
///
/// Contract:
/// - ``set()`` may be called any number of times from any thread; once set it stays set.
/// - ``wait(seconds:)`` is a pause that ends early, at once, when the signal is set: a
///   loop backing off never holds up a stop.
/// - ``descriptor`` becomes readable when the signal is set (a pipe's read end that is
///   never read), so a loop that `poll()`s its socket wakes for the stop too, without a
///   timeout to look again.
public final class StopSignal: Sendable {
    /// Readable, and for good, once the signal is set.
    public let descriptor: Int32
    private let writeEnd: Int32

    public init() {
        var ends: [Int32] = [-1, -1]
        // Non-blocking: a second set() never blocks on a full pipe (it holds one byte).
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            }
        } else {
            ends = [-1, -1]
        }
        descriptor = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
        if writeEnd >= 0 { close(writeEnd) }
    }

    /// Asks the loop to stop.
    public func set() {
        guard writeEnd >= 0 else { return }
        var one: UInt8 = 1
        _ = write(writeEnd, &one, 1)
    }

    /// True once ``set()`` was called.
    public var isSet: Bool { wait(seconds: 0) }

    /// Waits up to `seconds` (0: only looks); true when the signal is set.
    @discardableResult
    public func wait(seconds: Double) -> Bool {
        guard descriptor >= 0 else { return false }
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(min(max(seconds, 0) * 1000, Double(Int32.max)).rounded(.up))
        while true {
            let ready = poll(&entry, 1, milliseconds)
            if ready >= 0 { return ready > 0 && entry.revents & Int16(POLLIN) != 0 }
            // A signal interrupted the wait: the rest of it is not worth a clock read.
            if errno != EINTR { return false }
        }
    }
}
