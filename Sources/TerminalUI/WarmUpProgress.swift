import Foundation
import Platform
import Readings
import Sensors

/// What a terminal shows while a command waits out its sensors' warm-up before they are
/// read ("MH-Z19 warming up: 2:40 left"): the MH-Z19's 3 minutes, a particulate sensor's
/// 30 s, otherwise silent time.
///
/// Contract: one line on stderr, rewritten in place every second, cleared when the
/// reading is done; only on a terminal (``Console/stderrIsTTY``), never into a pipe or a
/// journal. A sensor the logger holds is not warmed up here (its latest row is shown), so
/// it is not counted.
public struct WarmUpProgress: Sendable {
    /// Each sensor waited for: its name for people and its warm-up in seconds.
    public let sensors: [(name: String, seconds: Double)]

    /// The warm-ups of the sensors `sense` reads; nil when none lasts a second.
    public init?(particulate: SensorCycle.Plan?, climate: [ClimateReading]) {
        var sensors: [(String, Double)] = []
        if let plan = particulate, DeviceLock.holder(of: plan.device) == nil {
            sensors.append((plan.model.displayName, Self.seconds(plan.warmUp)))
        }
        for reading in climate {
            guard case .serial(let plan) = reading, DeviceLock.holder(of: plan.device) == nil else { continue }
            sensors.append((plan.model.displayName, Self.seconds(plan.warmUp)))
        }
        self.sensors = sensors.filter { $0.1 >= 1 }
        if self.sensors.isEmpty { return nil }
    }

    /// The line after `elapsed` seconds: the longest warm-up still running, the others
    /// named beside it; nil once every one is over (the sample window follows).
    public func line(after elapsed: Double) -> String? {
        let running = sensors.filter { $0.seconds > elapsed }.sorted { $0.seconds > $1.seconds }
        guard let longest = running.first else { return nil }
        let left = Int((longest.seconds - elapsed).rounded(.up))
        let names = running.map(\.name).joined(separator: ", ")
        return "\(names) warming up: \(left / 60):\(String(format: "%02d", left % 60)) left"
    }

    /// Shows the line on `console` every second until the task is cancelled.
    public func show(on console: Console) async {
        guard console.stderrIsTTY else { return }
        let started = ContinuousClock.now
        var shown = false
        while !Task.isCancelled {
            let elapsed = Self.seconds(ContinuousClock.now - started)
            guard let text = line(after: elapsed) else { break }
            // Written as is: the carriage return and the erase are this line's own, and the
            // text holds only model names (console.err would remove both controls).
            StandardStream.write("\r\u{1B}[K" + text, to: StandardStream.error)
            shown = true
            try? await Task.sleep(for: .seconds(1))
        }
        if shown { StandardStream.write("\r\u{1B}[K", to: StandardStream.error) }
    }

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
