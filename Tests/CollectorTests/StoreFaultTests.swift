import FleetWire
import Foundation
import Settings
import Testing

@testable import Collector
@testable import FleetStore

/// A database that takes connections but refuses the rows (a disk full, read only, a
/// privilege taken away), as the collector's machine lives it on a clock of the test's:
/// back-off to a minute, one line when it begins and one when it ends, the broker left
/// once the buffer is full, the health signals honest all along.
@Suite struct StoreFaultTests {
    static let date = Date(timeIntervalSince1970: 1_796_000_000)
    static let diskFull = DatabaseError.command(
        state: "53100", message: "ERROR: could not extend file: No space left on device")

    /// The machine, its clock, and what it did: every store tried, every line said.
    struct Run {
        var machine: CollectorMachine
        var now: ContinuousClock.Instant
        var wakeAt: ContinuousClock.Instant?
        var attempts: [ContinuousClock.Instant] = []
        var said: [String] = []
        var paused = false
        var resumed = false
        var stored = 0
        /// Whether a store works at the moment it is tried.
        var works: (ContinuousClock.Instant) -> Bool

        init(batch: Int, works: @escaping (ContinuousClock.Instant) -> Bool) {
            var settings = CollectSettings()
            settings.batch = batch
            machine = CollectorMachine(settings: settings)
            now = .now
            self.works = works
            perform(machine.started(at: date))
            perform(machine.databaseConnected(serverVersion: 150_000, at: now, date: date))
            perform(machine.brokerConnected(generation: 1, at: now, date: date))
        }

        mutating func perform(_ actions: [CollectorMachine.Action]) {
            var queue = actions[...]
            while let action = queue.popFirst() {
                switch action {
                case .store(let batch):
                    attempts.append(now)
                    if works(now) {
                        stored += batch.rows.count
                        queue += machine.stored(batch, at: now, date: date)
                    } else {
                        queue += machine.storeFailed(batch, error: StoreFaultTests.diskFull, broken: false, at: now)
                    }
                case .say(let notice): said.append(notice.message)
                case .wake(let pause): wakeAt = min(wakeAt ?? now + pause, now + pause)
                case .pauseBroker: paused = true
                case .resumeBroker:
                    resumed = true
                    paused = false
                default: break
                }
            }
        }

        /// The clock moved to `instant`, the machine's timers going off on the way.
        mutating func advance(to instant: ContinuousClock.Instant) {
            while let wake = wakeAt, wake <= instant {
                now = wake
                wakeAt = nil
                perform(machine.woke(at: now, date: date))
            }
            now = instant
        }

        mutating func row(_ id: Int) {
            let payload = #"{"schema":"airloc.log/1","id":"t\#(id)","kind":"track","time":"2026-11-18T10:00:00Z"}"#
            perform(machine.received(topic: "airloc/pi/history", payload: payload, at: now, date: date))
        }
    }

    @Test func aDiskFullIsSaidOnceBackedOffToAMinuteAndEndsOnce() throws {
        let start = ContinuousClock.now
        // The disk is full from the start for ten minutes.
        var run = Run(batch: 5) { $0 >= start + .seconds(600) }
        var id = 0
        // A row a second while the broker is not left; ten minutes and a half of it.
        for second in 1...630 {
            run.advance(to: start + .seconds(second))
            if !run.paused {
                id += 1
                run.row(id)
            }
            if second == 300 {
                let state = run.machine.status(at: Self.date)
                #expect(state.database == .down && state.databaseError?.contains("53100") == true, "\(state)")
                #expect(state.databaseFault == "disk_full")
                #expect(state.buffered <= run.machine.bufferLimit, "held within four batches: \(state.buffered)")
                #expect(state.oldestWaiting != nil)
            }
        }
        run.advance(to: start + .seconds(635))
        let during = run.attempts.filter { $0 < start + .seconds(600) }
        // 1 + 2 + 4 + … + 32, then a minute apart: a dozen tries in ten minutes, not 600.
        #expect(during.count <= 16, "\(during.count) tries in ten minutes")
        let gaps = zip(during.dropFirst(), during).map { $0 - $1 }
        #expect(gaps.max() == .seconds(60), "the pause grows to a minute: \(gaps)")
        let warnings = run.said.filter { $0.hasPrefix("cannot store rows") }
        #expect(warnings.count == 1, "\(run.said)")
        #expect(warnings.first?.contains("No space left on device") == true)
        #expect(run.said.filter { $0.hasPrefix("pausing") }.count == 1, "the broker left once: \(run.said)")
        // Back: every row held is stored, the broker taken up again, and the end said once.
        let (resumed, stored) = (run.resumed, run.stored)
        #expect(resumed)
        #expect(stored == id, "\(stored) of \(id) rows stored")
        #expect(run.said.filter { $0.hasPrefix("storing again after 10 min") }.count == 1, "\(run.said)")
        let state = run.machine.status(at: Self.date)
        #expect(state.database == .connected && state.databaseError == nil && state.databaseFault == nil)
        #expect(state.oldestWaiting == nil && state.buffered == 0)
    }

    /// A fault that changes its kind is said again, once; the same kind never.
    @Test func aFaultOfAnotherKindIsSaidOnce() {
        var fault = StoreFault()
        let start = ContinuousClock.now
        let begun = fault.happened(Self.diskFull, retryIn: .seconds(1), at: start)
        let same = fault.happened(Self.diskFull, retryIn: .seconds(2), at: start + .seconds(1))
        #expect(begun?.hasPrefix("cannot store rows:") == true && same == nil)
        let readOnly = DatabaseError.command(state: "25006", message: "read-only transaction")
        let changed = fault.happened(readOnly, retryIn: .seconds(4), at: start + .seconds(3))
        #expect(changed?.contains("now:") == true)
        let ended = fault.ended(at: start + .seconds(200))
        let again = fault.ended(at: start + .seconds(201))
        #expect(ended == "storing again after 3 min 20 s (\(readOnly))" && again == nil)
        #expect(StoreFault.label("53100") == "disk_full" && StoreFault.label("connect") == "unreachable")
    }

    /// A transaction lost to a deadlock (another member's, a reader making a partition) is
    /// tried again at once, said nothing of; one that keeps being lost becomes a fault.
    @Test func aDeadlockIsTriedAgainAtOnceWithoutAWord() {
        var settings = CollectSettings()
        settings.batch = 1
        let now = ContinuousClock.now
        var machine = CollectorMachine.running(settings, at: now, date: Self.date)
        let row = #"{"schema":"airloc.log/1","id":"t1","kind":"track","time":"2026-11-18T10:00:00Z"}"#
        let deadlock = DatabaseError.command(state: "40P01", message: "ERROR: deadlock detected")
        var actions = machine.received(topic: "airloc/pi/history", payload: row, at: now, date: Self.date)
        var tries = 0
        var said: [String] = []
        while let batch = actions.lazy.compactMap({ if case .store(let batch) = $0 { batch } else { nil } }).first {
            tries += 1
            said += actions.compactMap { if case .say(let notice) = $0 { notice.message } else { nil } }
            actions = machine.storeFailed(batch, error: deadlock, broken: false, at: now)
            if tries > 10 { break }
        }
        said += actions.compactMap { if case .say(let notice) = $0 { notice.message } else { nil } }
        #expect(tries == StoreLink.transientLimit + 1, "tried again at once, then a fault")
        #expect(said.filter { $0.hasPrefix("cannot store rows") }.count == 1, "\(said)")
    }
}
