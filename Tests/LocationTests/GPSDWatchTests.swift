import Foundation
import Geo
import Synchronization
import TestSupport
import Testing

@testable import Location

/// The gpsd watch against a real gpsd: restarts, fix loss, a receiver that never fixes.
@Suite(.enabled(if: ExternalTool.available("gpsfake", "python3")))
struct GPSDWatchTests {
    /// Collects updates until `until` says stop or `seconds` pass.
    func collect(
        _ provider: GPSDProvider, seconds: Double, until: @escaping @Sendable ([LocationUpdate]) -> Bool
    ) async -> [LocationUpdate] {
        let collector = Task {
            var updates: [LocationUpdate] = []
            for await update in provider.updates() {
                updates.append(update)
                if until(updates) { break }
            }
            return updates
        }
        let watchdog = Task {
            try await Task.sleep(for: .seconds(seconds))
            collector.cancel()
        }
        let updates = await collector.value
        watchdog.cancel()
        return updates
    }

    func isFix(_ update: LocationUpdate) -> Bool {
        if case .fix = update { return true }
        return false
    }

    @Test func gpsdRestartedOnTheSamePortIsFollowedAgain() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.file("fix.nmea")
        try await SyntheticTrack.write(kind: "fix", latitude: 52.52, longitude: 13.405, to: log)
        let first = try await GPSFake.start(log: log)
        let port = first.port
        let provider = GPSDProvider(
            options: .init(host: "127.0.0.1", port: port),
            timing: GPSDTiming(firstFix: 60, staleAfter: 60, lostAfter: 120, initialBackoff: 0.2, maximumBackoff: 1))
        // gpsd is restarted when the watch has had its first fix (not after a guessed
        // time), and the test ends at the first fix after the restart; only a hang
        // reaches the cap.
        let watch = Task {
            var seen: [LocationUpdate] = []
            var restarter: Task<GPSFake, any Error>?
            for await update in provider.updates() {
                seen.append(update)
                if restarter == nil, isFix(update) {
                    restarter = Task {
                        first.stop()
                        return try await GPSFake.start(log: log, port: port)
                    }
                }
                let drop = seen.firstIndex { if case .disconnected = $0 { return true } else { return false } }
                if let drop, seen[drop...].contains(where: isFix) { break }
            }
            return (seen, restarter)
        }
        let watchdog = Task {
            try await Task.sleep(for: .seconds(180))
            watch.cancel()
        }
        let (updates, restarter) = await watch.value
        watchdog.cancel()
        let second = try await restarter?.value
        defer { second?.stop() }
        let drop = updates.firstIndex { if case .disconnected = $0 { return true } else { return false } }
        #expect(drop != nil, "the restart was not noticed: \(updates.count) updates")
        guard let drop else { return }
        #expect(updates[..<drop].contains(where: isFix), "no fix before the restart")
        #expect(updates[drop...].contains(.connected), "no reconnect")
        #expect(updates[drop...].contains(where: isFix), "no fix after the restart")
    }

    @Test func aFixThatDropsToNoFixIsStaleThenLost() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let log = directory.file("lost.nmea")
        // 10 s of fix, 10 s with mode 1, then silence (played once at 0.1 s a sentence).
        try await SyntheticTrack.write(kind: "lost", latitude: 52.52, longitude: 13.405, to: log)
        // The watch starts first and connects as soon as gpsd is up: the log is played
        // once, from the moment gpsd starts, and its fix part must not pass unwatched.
        let port = try GPSFake.freePort()
        let provider = GPSDProvider(
            options: .init(host: "127.0.0.1", port: port),
            // Stale at once when the receiver reports mode 1 (the track's second part); a
            // report gap that long during the fix part would take a stalled machine.
            timing: GPSDTiming(firstFix: 60, staleAfter: 8, lostAfter: 9, initialBackoff: 0.2, maximumBackoff: 0.2))
        // gpsfake holds the log back until the watch is connected (gated): under load the
        // watch once connected after the 10 s of fix had passed.
        let connected = ConnectedFlag()
        let collecting = Task {
            await collect(provider, seconds: 240) { updates in
                if updates.last == .connected { connected.set() }
                return updates.contains { if case .lost = $0 { return true } else { return false } }
            }
        }
        let gpsd: GPSFake
        do {
            gpsd = try await GPSFake.start(log: log, loop: false, port: port, gated: true)
            try await Poll.until("the watch to connect to gpsd") { connected.isSet }
        } catch {
            collecting.cancel()
            throw error
        }
        defer { gpsd.stop() }
        gpsd.releaseWholeLog()
        let updates = await collecting.value
        let staleIndex = updates.firstIndex { if case .stale = $0 { return true } else { return false } }
        let lostIndex = updates.firstIndex { if case .lost = $0 { return true } else { return false } }
        #expect(updates.contains(where: isFix))
        let stale = try #require(staleIndex, "no stale: \(updates)")
        let lost = try #require(lostIndex, "no lost")
        #expect(stale < lost)
        if case .stale(let held, let reason) = updates[stale] {
            #expect(abs(held.coordinate.latitude - 52.52) < 1e-6)
            #expect(reason == "the receiver reports no fix")
        }
        if case .lost(let last, _) = updates[lost] { #expect(last != nil) }
        // Exactly one of each: a stream must not repeat itself every report.
        #expect(updates.filter { if case .stale = $0 { return true } else { return false } }.count == 1)
    }

    @Test func aReceiverThatNeverFixesEndsAtTheFirstFixDeadline() async throws {
        let log: URL
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        if let corpus = PackagePaths.corpus {
            log = corpus.appendingPathComponent("nmea/tn200.log")  // a real SiRF II stuck in mode 1
        } else {
            log = directory.file("nofix.nmea")
            try await SyntheticTrack.write(kind: "nofix", latitude: 52.52, longitude: 13.405, to: log)
        }
        let gpsd = try await GPSFake.start(log: log)
        defer { gpsd.stop() }
        let provider = GPSDProvider(options: .init(host: "127.0.0.1", port: gpsd.port))
        await #expect {
            _ = try await provider.currentFix(timeout: .seconds(10))
        } throws: { error in
            guard case .noFix(let seconds, let mode) = error as? GPSDError else { return false }
            return seconds == 10 && mode == .noFix
        }
    }
}

/// Set once by the collector when the watch reports `connected`; read by the test.
final class ConnectedFlag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}
