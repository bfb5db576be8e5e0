import Foundation
import Settings

@testable import Collector

extension CollectorMachine {
    /// A machine of `settings` started at `date`, its database and broker connected at
    /// `start`: where most tests of the machine begin.
    static func running(
        _ settings: CollectSettings = CollectSettings(), at start: ContinuousClock.Instant, date: Date
    ) -> CollectorMachine {
        var machine = CollectorMachine(settings: settings)
        _ = machine.started(at: date)
        _ = machine.databaseConnected(serverVersion: 150_000, at: start, date: date)
        _ = machine.brokerConnected(generation: 1, at: start, date: date)
        return machine
    }
}
