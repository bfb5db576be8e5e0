import Foundation
import Platform
import Synchronization
import TestSupport
import Testing

/// The runtime under `log run`, `collect` and `serve`: services started together, stopped
/// one at a time in the group's order, a failure stopping the rest, a stuck one cancelled.
@Suite struct ServiceGroupTests {
    /// What the services did, in order, across tasks.
    final class Journal: Sendable {
        private let lines = Mutex<[String]>([])
        func add(_ line: String) { lines.withLock { $0.append(line) } }
        var all: [String] { lines.withLock { $0 } }
    }

    /// A service that runs until asked to stop, then takes `finishing` of the clock to wrap
    /// up (the publisher's drain), or fails at once.
    struct Recorder: Service {
        let name: ServiceName
        let journal: Journal
        var finishing: Duration = .zero
        var failure: ServiceFailure?
        var ignoresStop = false

        func run(_ context: ServiceContext) async throws(ServiceFailure) {
            journal.add("\(name) started")
            if let failure { throw failure }
            if ignoresStop {
                while !Task.isCancelled { try? await context.time.sleep(for: .seconds(3600)) }
                journal.add("\(name) cancelled")
                return
            }
            await context.stopRequested()
            journal.add("\(name) asked to stop")
            if finishing > .zero { try? await context.time.sleep(for: finishing) }
            journal.add("\(name) stopped")
        }
    }

    @Test func servicesStopOneAtATimeInTheGroupsOrder() async throws {
        let journal = Journal()
        let time = ManualTime(sleepers: .waitForAdvance)
        let group = ServiceGroup(
            [
                Recorder(name: .logger, journal: journal),
                Recorder(name: .publisher, journal: journal, finishing: .seconds(3)),
                Recorder(name: .mqtt, journal: journal),
            ], time: time)
        let run = Task { await group.run() }
        try await Poll.until("every service started") { journal.all.count == 3 }
        run.cancel()
        // The publisher drains on the clock (beside the group's own stop timer): the MQTT
        // connection is not asked meanwhile.
        await time.waitForSleepers(2)
        #expect(!journal.all.contains("mqtt asked to stop"), "\(journal.all)")
        time.advance(by: .seconds(3))
        let outcome = await run.value
        #expect(outcome.failures.isEmpty && outcome.cancelled.isEmpty)
        #expect(
            journal.all.suffix(6) == [
                "logger asked to stop", "logger stopped", "publisher asked to stop", "publisher stopped",
                "mqtt asked to stop", "mqtt stopped",
            ])
    }

    @Test func aFailureStopsTheOthersAndIsTheOutcome() async {
        let journal = Journal()
        let refused = ServiceFailure(service: .mqtt, kind: .configuration, message: "bad credentials")
        let group = ServiceGroup(
            [
                Recorder(name: .logger, journal: journal),
                Recorder(name: .mqtt, journal: journal, failure: refused),
            ], time: ManualTime(sleepers: .waitForAdvance))
        let outcome = await group.run()
        #expect(outcome.failures == [refused])
        #expect(journal.all.contains("logger stopped"))
    }

    @Test func aServiceThatDoesNotStopIsCancelledAfterTheTimeout() async throws {
        let journal = Journal()
        let time = ManualTime(sleepers: .waitForAdvance)
        var group = ServiceGroup(
            [
                Recorder(name: .other("stuck"), journal: journal, ignoresStop: true),
                Recorder(name: .mqtt, journal: journal),
            ],
            time: time)
        group.stopTimeout = .seconds(30)
        let run = Task { await group.run() }
        try await Poll.until("both started") { journal.all.count == 2 }
        run.cancel()
        // The stuck one sleeps for an hour; the group's own timer waits its 30 s.
        await time.waitForSleepers(2)
        time.advance(by: .seconds(30))
        let outcome = await run.value
        #expect(outcome.cancelled == [.other("stuck")])
        #expect(journal.all.contains("stuck cancelled") && journal.all.last == "mqtt stopped", "\(journal.all)")
    }

    @Test func servicesThatEndOnTheirOwnEndTheGroup() async {
        struct Once: Service {
            let name = ServiceName.other("once")
            func run(_ context: ServiceContext) async throws(ServiceFailure) {}
        }
        let outcome = await ServiceGroup([Once(), Once()]).run()
        #expect(outcome.failures.isEmpty && outcome.cancelled.isEmpty)
    }
}
