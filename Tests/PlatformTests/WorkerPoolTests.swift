import Foundation
import Platform
import Synchronization
import Testing

/// Blocking work runs on kept workers: a call after another finds the worker idle (no
/// thread per call, which made thousands while the collector drained a backlog), and calls
/// that wait on each other each get a worker (no deadlock).
@Suite struct WorkerPoolTests {
    @Test func callsOneAfterAnotherReuseOneWorker() async {
        let pool = WorkerPool()
        for _ in 0..<200 {
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                pool.run("airloc-test") { done.resume() }
            }
        }
        // The worker makes itself idle again just after resuming the caller: a call may
        // find it not yet idle and a second one start (3 in one run), never one per call.
        #expect(pool.started <= 10, "\(pool.started) workers for 200 calls one after another")
    }

    @Test func callsThatWaitOnEachOtherEachGetAWorker() async {
        let pool = WorkerPool()
        final class Count: Sendable { let value = Mutex(0) }
        let arrived = Count()
        let all = DispatchSemaphore(value: 0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                        pool.run("airloc-test") {
                            // Each waits until all eight have arrived: one worker each, or none ends.
                            if arrived.value.withLock({
                                $0 += 1; return $0
                            }) == 8 {
                                for _ in 0..<8 { all.signal() }
                            }
                            all.wait()
                            done.resume()
                        }
                    }
                }
            }
        }
        #expect(pool.started == 8)
    }

    @Test func blockingWorkRunsOnTheSharedPool() async {
        let before = WorkerPool.shared.started
        for number in 0..<100 {
            let result = await BlockingWork.run("airloc-test") { _ in number * 2 }
            #expect(result == number * 2)
        }
        // Other tests use the shared pool meanwhile (33 workers started during these 100
        // calls in one run of the whole suite): never one per call.
        #expect(WorkerPool.shared.started - before < 100, "\(WorkerPool.shared.started - before) workers")
    }
}
