import Foundation
import Platform
import Synchronization
import TestSupport
import Testing

/// The bridge from a blocking C call to async code: the result comes back, a cancellation
/// reaches the blocking loop, and a stuck call cannot hold its caller past the deadline.
@Suite struct BlockingWorkTests {
    /// More blocked bodies than the cooperative pool has threads (two on this machine), each
    /// waiting for all the others: on the pool they would wait for ever.
    @Test func blockedBodiesHoldNoCooperativeThread() async {
        final class Count: Sendable {
            let value = Mutex(0)
        }
        let arrived = Count()
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    await BlockingWork.run("airloc-test") { _ in
                        arrived.value.withLock { $0 += 1 }
                        let end = Date().addingTimeInterval(120)
                        while arrived.value.withLock({ $0 }) < 8 && Date() < end { usleep(1000) }
                        return arrived.value.withLock { $0 } == 8
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results == Array(repeating: true, count: 8))
    }

    @Test func cancellingTheCallerSetsTheStopSignalTheLoopWaitsOn() async {
        let task = Task {
            await BlockingWork.run("airloc-test") { stop in
                // A loop backing off for an hour: the stop ends the pause at once.
                stop.wait(seconds: 3600) ? "stopped" : "waited an hour"
            }
        }
        task.cancel()
        #expect(await task.value == "stopped")
    }

    @Test func aStuckBodyReleasesItsCallerAtTheDeadline() async {
        let stuck = DispatchSemaphore(value: 0)
        let outcome = await BlockingWork.run("airloc-test", deadline: .milliseconds(50), late: { "late" }) { _ in
            // What nothing can interrupt (a connect() in libgps): released by the test only.
            stuck.wait()
            return "done"
        }
        #expect(outcome == "late")
        stuck.signal()
    }

    @Test func aStreamEndsWhenItsBodyDoesAndStopsWhenItsConsumerDoes() async {
        let counted = BlockingWork.stream("airloc-test") { (_, yield: (Int) -> Void) in
            for number in 1...3 { yield(number) }
        }
        var numbers: [Int] = []
        for await number in counted { numbers.append(number) }
        #expect(numbers == [1, 2, 3])
        let endless = BlockingWork.stream("airloc-test") { (stop, yield: (Int) -> Void) in
            while !stop.wait(seconds: 0.01) { yield(0) }
            yield(-1)
        }
        for await _ in endless { break }
    }

    @Test func aStopSignalIsReadableOnceSet() {
        let stop = StopSignal()
        #expect(!stop.isSet && !stop.wait(seconds: 0.01))
        stop.set()
        stop.set()
        #expect(stop.isSet && stop.wait(seconds: 3600))
        // Set before anyone asked for its descriptor: the descriptor is readable at once.
        let early = StopSignal()
        early.set()
        var entry = pollfd(fd: early.descriptor, events: Int16(POLLIN), revents: 0)
        #expect(early.descriptor >= 0 && poll(&entry, 1, 0) == 1)
    }

    /// A drain of a week's backlog is thousands of requests, each a body with a 15 s
    /// deadline: what each one holds is let go when it ends. (It once held a pipe until its
    /// deadline passed: a few hundred requests a second ran the process out of descriptors,
    /// and libdispatch traps when it cannot open one.)
    @Test func finishedBodiesHoldNoDescriptor() async {
        func openDescriptors() -> Int {
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
        }
        let before = openDescriptors()
        for index in 0..<3000 {
            let result = await BlockingWork.run("airloc-test", deadline: .seconds(60), late: { -1 }) { _ in index }
            #expect(result == index)
        }
        // Other tests run beside this one and open their own: a margin, far below 3000.
        #expect(openDescriptors() - before < 500)
    }
}
