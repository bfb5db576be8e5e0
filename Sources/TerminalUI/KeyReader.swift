import Foundation
import Platform

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
/// needs them, and a Raspberry Pi may have only one: ``BlockingWork``); ``stop()`` wakes
/// the reader at once, and it reads nothing after; it looks for SIGWINCH every 100 ms. A
/// lone Esc is reported after 40 ms without a following byte.
public final class KeyReader: Sendable {
    private let stopping = StopSignal()

    /// A reader not started.
    public init() {}

    /// Reads the terminal into `events` until ``stop()``.
    public func start(_ events: AsyncStream<PickerEvent>.Continuation) {
        Task { await BlockingWork.run("airloc-keys") { _ in self.loop(events) } }
    }

    /// Ends the reading at once.
    public func stop() { stopping.set() }

    private func loop(_ events: AsyncStream<PickerEvent>.Continuation) {
        var decoder = KeyDecoder()
        var buffer = [UInt8](repeating: 0, count: 512)
        while !stopping.isSet {
            var descriptors = [
                pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
                pollfd(fd: stopping.descriptor, events: Int16(POLLIN), revents: 0),
            ]
            // A window change is a signal, seen through a flag: looked at every 100 ms.
            let ready = poll(&descriptors, 2, decoder.isWaiting ? 40 : 100)
            if RawTerminal.takeWindowChange() { events.yield(.resize) }
            guard descriptors[1].revents == 0 else { return }
            if ready > 0 && descriptors[0].revents != 0 {
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
