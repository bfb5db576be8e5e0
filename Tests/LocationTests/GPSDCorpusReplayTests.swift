import Foundation
import Geo
import Synchronization
import TestSupport
import Testing

@testable import Location

/// Real receivers' captures (gpsd's regression logs in ../shared/corpus/nmea) replayed
/// through a real gpsd: every fix airloc reports must be one gpsd itself expects in the
/// log's `.chk` file (lat/lon within 1e-6°, same mode), and logs without a fix must give
/// none. Runs whenever the corpus is present, and must under CI.
@Suite(.enabled(if: ExternalTool.available("gpsfake")))
struct GPSDCorpusReplayTests {
    static let logs: [String] = {
        guard let corpus = PackagePaths.corpus?.appendingPathComponent("nmea"),
            let names = try? FileManager.default.contentsOfDirectory(atPath: corpus.path)
        else {
            print("note: ../shared/corpus/nmea not found; the corpus replay runs only where it exists (and in CI)")
            return ExternalTool.isCI ? ["(corpus missing)"] : []
        }
        return names.filter { $0.hasSuffix(".log") }.sorted()
    }()

    /// gpsd's expected TPV reports: (lat, lon, mode) of those with a position.
    static func expectedFixes(_ chk: URL) throws -> [(latitude: Double, longitude: Double, mode: Int)] {
        let text = try String(contentsOf: chk, encoding: .utf8)
        return text.split(whereSeparator: \.isNewline).compactMap { line in
            guard line.hasPrefix("{\"class\":\"TPV\""),
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let mode = object["mode"] as? Int, mode >= 2,
                let latitude = object["lat"] as? Double, let longitude = object["lon"] as? Double
            else { return nil }
            return (latitude, longitude, mode)
        }
    }

    /// One NMEA sentence with its checksum and line end.
    static func sentence(_ body: String) -> String {
        let checksum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
        return "$\(body)*\(String(format: "%02X", checksum))\r\n"
    }

    /// Seconds per sentence in the replay.
    static let cycle = 0.05
    /// Only a hang reaches this cap.
    static let watchFor = 120.0
    /// A replay gives its first fix (at the latest the trailer's) within about 20 s; one
    /// with no fix at all by this time is gpsfake delivering nothing (see below), and is
    /// given up at once instead of after `watchFor` (it cost a clean-clone CI run two
    /// minutes).
    static let firstFixWithin = 45.0

    /// Set once the watch connected and once the replay gave a fix: read by the test and
    /// its watchdog, written by the collector.
    final class Progress: Sendable {
        private let fixed = Mutex(false)
        private let connected = Mutex(false)
        func sawFix() { fixed.withLock { $0 = true } }
        var hasFix: Bool { fixed.withLock { $0 } }
        func sawConnection() { connected.withLock { $0 = true } }
        var isConnected: Bool { connected.withLock { $0 } }
    }

    /// Replays `replay` through a fresh gpsfake and collects the fixes until the trailer.
    static func replay(_ replay: URL) async throws -> (fixes: [Fix], sawEnd: Bool, events: [String]) {
        // The watch starts first, on a port gpsd does not listen on yet, and connects as
        // soon as gpsd is up (it retries every 0.2 s): so it is watching long before the
        // lead-in ends even when the machine is too busy to schedule the test promptly.
        let port = try GPSFake.freePort()
        let provider = GPSDProvider(
            options: .init(host: "127.0.0.1", port: port),
            timing: GPSDTiming(firstFix: 60, staleAfter: 60, lostAfter: 120, initialBackoff: 0.2, maximumBackoff: 0.2))
        let started = Date()
        let progress = Progress()
        let collector = Task {
            var collected: [Fix] = []
            var events: [String] = []
            for await update in provider.updates() {
                if case .connected = update { progress.sawConnection() }
                guard case .fix(let fix) = update else {
                    events.append(
                        String(format: "%.1fs %@", Date().timeIntervalSince(started), "\(update)".prefix(40) as CVarArg)
                    )
                    continue
                }
                progress.sawFix()
                if Self.isTrailer(fix) { return (collected, true, events) }
                collected.append(fix)
            }
            return (collected, false, events)
        }
        let gpsd: GPSFake
        do {
            gpsd = try await GPSFake.start(log: replay, loop: false, cycle: cycle, port: port, gated: true)
            try await Poll.until("the watch to connect to gpsd") { progress.isConnected }
        } catch {
            collector.cancel()
            throw error
        }
        defer { gpsd.stop() }
        gpsd.releaseWholeLog()
        let watchdog = Task {
            try await Task.sleep(for: .seconds(Self.firstFixWithin))
            if !progress.hasFix {
                collector.cancel()
                return
            }
            try await Task.sleep(for: .seconds(Self.watchFor - Self.firstFixWithin))
            collector.cancel()
        }
        let result = await collector.value
        watchdog.cancel()
        return result
    }

    static func isTrailer(_ fix: Fix) -> Bool {
        abs(fix.coordinate.latitude - 0.5) < 1e-6 && abs(fix.coordinate.longitude - 0.5) < 1e-6
    }

    @Test(arguments: logs)
    func fixesMatchWhatGPSDExpects(log: String) async throws {
        let directory = try #require(PackagePaths.corpus?.appendingPathComponent("nmea"), "corpus missing under CI")
        let logURL = directory.appendingPathComponent(log)
        let expected = try Self.expectedFixes(directory.appendingPathComponent(log + ".chk"))
        // gpsfake holds the log back until the watch is connected (it is started gated),
        // and the log is played once behind a lead-in of NMEA text sentences (which make
        // no fix) that covers gpsd acting on the watch's WATCH, already in its socket: every
        // real sentence is then seen from a clean receiver state, as gpsd's own
        // regression run sees it. A trailer of fixes at 0.5°N 0.5°E, a point no log
        // visits, marks the end: the watch stops at the first of them (gpsfake does not
        // always stop its gpsd after the log, so its exit is no signal).
        let leadIn = 40
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let original = try Data(contentsOf: logURL)
        let padding = String(repeating: Self.sentence("GPTXT,01,01,02,airloc replay lead-in"), count: leadIn)
        // One report cycle per second (GGA, RMC, GLL with a new time each), because gpsd
        // ends a cycle on the sentence it learned ends one (GLL for u-blox) or on a new time.
        let trailer = (50..<60).map { second in
            Self.sentence("GPGGA,2359\(second).00,0030.0000,N,00030.0000,E,1,08,0.9,10.0,M,0.0,M,,")
                + Self.sentence("GPRMC,2359\(second).00,A,0030.0000,N,00030.0000,E,0.0,0.0,010130,,,A")
                + Self.sentence("GPGLL,0030.0000,N,00030.0000,E,2359\(second).00,A,A")
        }.joined()
        let replay = scratch.file(log)
        try (Data(padding.utf8) + original + Data(("\r\n" + trailer).utf8)).write(to: replay)
        // No retry: the log is held back until the watch is connected, so an empty replay
        // is a failure to look at, not a race to hide.
        let (fixes, sawEnd, events) = try await Self.replay(replay)
        #expect(
            sawEnd,
            "\(log): the end of the log was not reported within \(Self.watchFor) s; other events: \(events.prefix(8))")

        if expected.isEmpty {
            #expect(fixes.count == 0, "\(log): gpsd expects no fix, airloc reported \(fixes.count)")
            return
        }
        #expect(fixes.count > 0, "\(log): gpsd expects \(expected.count) fixes, airloc reported none")
        // One fix per receiver epoch: gpsd may send several TPVs for one (one per sentence
        // until it learns the cycle); airloc joins them, so no time comes twice.
        let times = fixes.compactMap(\.time)
        #expect(Set(times).count == times.count, "\(log): \(times.count - Set(times).count) epochs reported twice")
        // And a joined epoch does not lose what an earlier sentence of it said: no field
        // flickers from a value to null and back between one fix and the next.
        let flickering = zip(zip(fixes, fixes.dropFirst()), fixes.dropFirst(2)).filter { pair, third in
            let (first, second) = pair
            func flickers(_ value: (Fix) -> Double?) -> Bool {
                value(first) != nil && value(second) == nil && value(third) != nil
            }
            return flickers(\.horizontalAccuracy) || flickers(\.track) || flickers(\.altitudeMSL)
        }
        #expect(flickering.isEmpty, "\(log): \(flickering.count) fixes lose a field their neighbours have")
        let unmatched = fixes.filter { fix in
            !expected.contains { candidate in
                abs(candidate.latitude - fix.coordinate.latitude) <= 1e-6
                    && abs(candidate.longitude - fix.coordinate.longitude) <= 1e-6
                    && candidate.mode == fix.mode?.rawValue
            }
        }
        let shown = unmatched.prefix(3).map {
            "\($0.coordinate.latitude),\($0.coordinate.longitude) mode \($0.mode?.rawValue ?? -1)"
        }
        #expect(unmatched.isEmpty, "\(log): \(unmatched.count) of \(fixes.count) fixes not in the .chk: \(shown)")
    }
}
