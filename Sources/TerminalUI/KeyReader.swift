import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What the picker's loop reacts to.
public enum PickerEvent: Sendable {
    case key(TerminalKey)
    case resize
    case onlineAnswered([Picker.PlaceRow], generation: Int)
    case onlineFailed(String, generation: Int)
    /// The terminal went away (hang-up, closed input).
    case inputClosed
}

/// Reads the terminal on a thread of its own and turns bytes into ``PickerEvent``s.
///
/// Contract: blocking reads never run on Swift's cooperative threads (the online search
/// needs them, and a Raspberry Pi may have only one); the thread wakes at least every
/// 100 ms to notice ``stop()`` and SIGWINCH, and reads nothing after ``stop()`` returns
/// plus one poll interval. A lone Esc is reported after 40 ms without a following byte.
public final class KeyReader: @unchecked Sendable {
    private let lock = NSLock()
    private var stopped = false

    private var isStopped: Bool { lock.withLock { stopped } }

    public init() {}

    public func start(_ events: AsyncStream<PickerEvent>.Continuation) {
        let thread = Thread { [self] in self.loop(events) }
        thread.name = "airloc-keys"
        thread.start()
    }

    public func stop() { lock.withLock { stopped = true } }

    private func loop(_ events: AsyncStream<PickerEvent>.Continuation) {
        var decoder = KeyDecoder()
        var buffer = [UInt8](repeating: 0, count: 512)
        while !isStopped {
            var descriptor = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, decoder.isWaiting ? 40 : 100)
            if RawTerminal.takeWindowChange() { events.yield(.resize) }
            guard !isStopped else { return }
            if ready > 0 {
                let count = buffer.withUnsafeMutableBytes { read(STDIN_FILENO, $0.baseAddress, $0.count) }
                if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
                guard count > 0 else {
                    events.yield(.inputClosed)
                    return
                }
                for key in decoder.feed(Array(buffer[0..<count])) { events.yield(.key(key)) }
            } else if ready == 0, decoder.isWaiting {
                for key in decoder.flush() { events.yield(.key(key)) }
            }
        }
    }
}
