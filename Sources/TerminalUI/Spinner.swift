import Foundation
import Platform

/// The seed's `isLoading` for a terminal: a spinner on stderr while a fetch is slow.
///
/// Contract: nothing is drawn for the first 300 ms (a fast answer never flickers);
/// after that one line is redrawn every 100 ms; ``stop()`` waits for the drawing task and
/// erases the line, so the report starts on a clean line. Callers create one only when
/// stderr is a terminal and the output is not JSON.
public final class Spinner: Sendable {
    private let task: Task<Bool, Never>

    /// A spinner saying `message`, shown after `delay` (a quick answer shows none).
    public init(message: String, delay: Duration = .milliseconds(300)) {
        task = Task {
            do { try await Task.sleep(for: delay) } catch { return false }
            let frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
            var frame = 0
            while !Task.isCancelled {
                StandardStream.write("\r\(frames[frame % frames.count]) \(message)", to: StandardStream.error)
                frame += 1
                try? await Task.sleep(for: .milliseconds(100))
            }
            return true
        }
    }

    /// Stops it and clears its line.
    public func stop() async {
        task.cancel()
        if await task.value { StandardStream.write("\r\u{1B}[K", to: StandardStream.error) }
    }
}
