import Foundation
import HTTPService
import Platform

/// The one thread that draws the day's figures, at a lower CPU priority (nice +10) than
/// the page's connections: a figure costs about half a second of CPU, and on two cores two
/// drawn at once beside the logger left a normal client's `/api/now` waiting over a second
/// (128 clients of 8 addresses asking `/day.svg`, on a busy machine).
///
/// Contract: ``make(_:)`` hands the drawing to the worker and waits for its figure (on the
/// connection's own thread, never on Swift's executor); one figure is drawn at a time, in
/// the order asked; the worker lives as long as the server. ``FigureCache`` keeps what is
/// drawn and bounds how many wait.
final class FigureWorker: Sendable {
    private struct Jobs: Sendable {
        var waiting: [Job] = []
    }
    private final class Job: Sendable {
        let draw: @Sendable () -> ServedReply
        let done = GuardedState<ServedReply?>(nil)
        init(_ draw: @escaping @Sendable () -> ServedReply) { self.draw = draw }
    }
    private let jobs = GuardedState(Jobs())

    /// How much lower the worker's priority is (Linux: per thread).
    static let niceness: Int32 = 10

    init() {
        let jobs = self.jobs
        let thread = Thread {
            // Raising one's own niceness needs no privilege; on Linux a nice value is a
            // thread's, and `who` 0 is the calling thread.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Self.niceness)
            while true {
                let job = jobs.wait { jobs in jobs.waiting.isEmpty ? nil : jobs.waiting.removeFirst() }
                guard let job else { continue }
                let figure = job.draw()
                job.done.change { $0 = figure }
            }
        }
        thread.name = "airloc-figures"
        thread.start()
    }

    /// The figure `draw` makes, drawn on the worker.
    func make(_ draw: @escaping @Sendable () -> ServedReply) -> ServedReply {
        let job = Job(draw)
        jobs.change { $0.waiting.append(job) }
        return job.done.wait { $0 } ?? ServedReply(status: 500, text: "the figure was not drawn\n")
    }
}
