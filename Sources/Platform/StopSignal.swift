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
///   never read), so a loop that `poll()`s its socket wakes for the stop too, without a timeout
///   to look again. It is made on first use: a signal nobody polls (one per web request)
///   costs no descriptor.
/// - Without a descriptor to be had (the process is out of them) the signal still works
///   for ``isSet`` and ``wait(seconds:)``, which then waits on the flag itself.
public final class StopSignal: Sendable {
    private struct State {
        var isSet = false
        /// The pipe's read end; -1: not made yet; -2: could not be made.
        var descriptor: Int32 = -1
        var writeEnd: Int32 = -1
    }
    private let state = GuardedState(State())

    /// A signal not set yet.
    public init() {}

    deinit {
        let (descriptor, writeEnd) = state.withLock { ($0.descriptor, $0.writeEnd) }
        if descriptor >= 0 { close(descriptor) }
        if writeEnd >= 0 { close(writeEnd) }
    }

    /// Readable, and for good, once the signal is set; -1 when the process has no
    /// descriptor to spare (`poll` then ignores it).
    public var descriptor: Int32 {
        state.withLock { state in
            if state.descriptor == -1 {
                var ends: [Int32] = [-1, -1]
                if pipe(&ends) == 0 {
                    // Non-blocking: a write to a full pipe never blocks set().
                    for end in ends {
                        _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                        _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
                    }
                    (state.descriptor, state.writeEnd) = (ends[0], ends[1])
                    if state.isSet { Self.ring(state.writeEnd) }
                } else {
                    state.descriptor = -2
                }
            }
            return max(state.descriptor, -1)
        }
    }

    /// Asks the loop to stop.
    public func set() {
        // A change wakes the waiters that have no descriptor (see ``wait(seconds:)``).
        state.change { state in
            guard !state.isSet else { return }
            state.isSet = true
            if state.writeEnd >= 0 { Self.ring(state.writeEnd) }
        }
    }

    private static func ring(_ descriptor: Int32) {
        var one: UInt8 = 1
        _ = write(descriptor, &one, 1)
    }

    /// True once ``set()`` was called.
    public var isSet: Bool { state.withLock { $0.isSet } }

    /// Waits up to `seconds` (0: only looks); true when the signal is set.
    @discardableResult
    public func wait(seconds: Double) -> Bool {
        if isSet { return true }
        guard seconds > 0 else { return false }
        let descriptor = self.descriptor
        guard descriptor >= 0 else { return waitWithoutDescriptor(seconds: seconds) }
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let milliseconds = Int32(min(seconds * 1000, Double(Int32.max)).rounded(.up))
        while true {
            let ready = poll(&entry, 1, milliseconds)
            if ready >= 0 { return ready > 0 && entry.revents & Int16(POLLIN) != 0 }
            // A signal interrupted the wait: the rest of it is not worth a clock read.
            if errno != EINTR { return isSet }
        }
    }

    private func waitWithoutDescriptor(seconds: Double) -> Bool {
        state.wait(seconds: seconds) { $0.isSet ? true : nil } ?? false
    }
}
