import FleetWire
import Foundation
import MQTT
import Platform

/// The ``Collector``'s loop body: hands each input to ``CollectorMachine`` and performs
/// what it returns — the database's work through ``BlockingWork`` (libpq blocks), the
/// broker's through the client, the timers through the mailbox — until the stop.
struct CollectorDriver {
    let collector: Collector
    let context: ServiceContext
    let inbox: Mailbox<Collector.Input>
    private(set) var machine: CollectorMachine
    private var store: any CollectorStore { collector.store }
    /// The earliest timer asked for and not gone off yet (one at a time is enough: every
    /// wake makes the machine look at everything that is due).
    private var wakeAt: ContinuousClock.Instant?
    private var wakeTimer: Mailbox<Collector.Input>.Timer?
    /// The status file is replaced at most this often (the changes of a busy spell are
    /// written together).
    static let statusEvery = Duration.seconds(2)
    /// The status last written, without its time: a status that has not changed is not
    /// written again, so an idle collector never wakes for it.
    private var statusWritten: CollectorState?
    /// When the status file's next write is due (its timer is set); nil: none is.
    private var statusDueAt: ContinuousClock.Instant?
    /// When the status file was last replaced.
    private var statusWrittenAt: ContinuousClock.Instant?

    init(collector: Collector, context: ServiceContext, inbox: Mailbox<Collector.Input>) {
        self.collector = collector
        self.context = context
        self.inbox = inbox
        machine = CollectorMachine(settings: collector.plan.settings, window: collector.window)
    }

    private var plan: CollectorPlan { collector.plan }
    private var time: any TimeSource { context.time }

    enum Next { case goOn, done }

    mutating func begin() async throws(ServiceFailure) {
        if let file = plan.statusFile {
            do { try PrivateDirectory.ensure(file.deletingLastPathComponent()) } catch {
                context.notify(.warning("cannot keep \(file.path) for collect status: \(error)", from: .collector))
            }
        }
        try await perform(machine.started(at: time.date))
        collector.current.set(machine.status(at: time.date))
        writeStatus()
    }

    mutating func handle(_ input: Collector.Input) async throws(ServiceFailure) -> Next {
        defer {
            collector.current.set(machine.status(at: time.date))
            statusChanged()
        }
        let (now, date) = (time.now, time.date)
        switch input {
        case .mqtt(.connected(let generation)):
            try await perform(machine.brokerConnected(generation: generation, at: now, date: date))
        case .mqtt(.disconnected(let problem)):
            try await perform(machine.brokerDown(problem, at: now))
        case .mqtt(.failed(let problem)):
            try await perform(machine.brokerDown(problem, at: now))
        case .mqtt(.message(let topic, let payload, let retained)):
            try await perform(machine.received(topic: topic, payload: payload, retained: retained, at: now, date: date))
        case .mqtt(.unreadable(let topic, let problem)):
            try await perform(machine.unreadable(topic: topic, problem: problem, at: now))
        case .mqtt(.acknowledged):
            break
        case .wake:
            wakeAt = nil
            wakeTimer = nil
            try await perform(machine.woke(at: now, date: date))
        case .writeStatus:
            // Its only work is to wake the loop: the write that is due is done by
            // statusChanged(), as after every input (the message may also come late or stale).
            break
        case .stop:
            try await perform(machine.stopping(at: now, date: date))
            try await perform(machine.finishing(at: time.now, date: time.date))
            await store.close()
            writeStatus()
            return .done
        }
        return .goOn
    }

    /// Does what the machine said, and what its answers to that say, in order.
    private mutating func perform(_ first: [CollectorMachine.Action]) async throws(ServiceFailure) {
        var queue = first[...]
        while let action = queue.popFirst() {
            switch action {
            case .connectDatabase:
                switch await store.open() {
                case .success(let opened):
                    queue += machine.databaseConnected(
                        serverVersion: opened.serverVersion, registered: opened.registered, at: time.now,
                        date: time.date)
                case .failure(let error):
                    queue += machine.databaseFailed(error, at: time.now)
                }
                for notice in store.takeNotices() { context.notify(notice) }
            case .store(let batch):
                let started = ContinuousClock.now
                switch await store.write(batch) {
                case .success(let outcome):
                    queue += machine.stored(
                        batch, outcome: outcome, took: ContinuousClock.now - started, at: time.now, date: time.date)
                case .failure(let error):
                    queue += machine.storeFailed(batch, error: error, broken: error.isBroken, at: time.now)
                }
                for notice in store.takeNotices() { context.notify(notice) }
            case .readRegistered:
                // Kept as it was when the database cannot say: the next read may.
                if case .success(let devices) = await store.registered() {
                    queue += machine.registeredRead(devices, at: time.now)
                }
            case .subscribe(let topics):
                for topic in topics { try? collector.client.subscribe(topic) }
            case .publish(let topic, let payload, let retain):
                _ = try? collector.client.publish(topic, payload, retain: retain)
            case .pauseBroker:
                collector.client.pause()
            case .resumeBroker:
                collector.client.resume()
            case .say(let notice):
                context.notify(notice)
            case .wake(let pause):
                schedule(time.now + pause)
            case .fail(let failure):
                throw failure
            case .releaseMemory:
                MemoryRelease.trim()
            }
        }
    }

    private mutating func schedule(_ instant: ContinuousClock.Instant) {
        if let wakeAt, wakeAt <= instant { return }
        wakeTimer?.cancel()
        wakeAt = instant
        wakeTimer = inbox.wake(after: max(instant - time.now, .zero), on: time, with: .wake)
    }

    /// Writes the status file when the status changed since it was written, at most every
    /// 2 s: at once when the last write is older, else by a timer (or at once when the
    /// timer's time has come but its message waits in the queue).
    private mutating func statusChanged() {
        guard plan.statusFile != nil else { return }
        if let due = statusDueAt {
            if time.now >= due {
                statusDueAt = nil
                writeStatus()
            }
            return
        }
        guard Self.timeless(machine.status(at: time.date)) != statusWritten else { return }
        // A change after a quiet spell is written at once (a fault's end shows when it
        // ends); changes in a busy spell wait for the 2 s since the last write.
        guard let written = statusWrittenAt, time.now - written < Self.statusEvery else {
            writeStatus()
            return
        }
        let due = written + Self.statusEvery
        statusDueAt = due
        inbox.wake(after: due - time.now, on: time, with: .writeStatus)
    }

    /// Replaces the status file when the status changed since it was last written.
    private mutating func writeStatus() {
        guard let file = plan.statusFile else { return }
        let status = machine.status(at: time.date)
        guard Self.timeless(status) != statusWritten else { return }
        if (try? status.json.write(to: file, atomically: true, encoding: .utf8)) != nil {
            statusWritten = Self.timeless(status)
            statusWrittenAt = time.now
        }
    }

    /// `status` without the moment it was made, for comparing two.
    private static func timeless(_ status: CollectorState) -> CollectorState {
        var status = status
        status.written = nil
        return status
    }
}
