// airloc-bench: in-process figures for docs/performance.md. Run through `make bench`,
// which builds it in release mode. Prints each figure with what was measured.
import Collector
import Foundation
import Gazetteer
import Geo
import GeocodeAcceptance

// `airloc-bench acceptance CORPUS_DIR [GAZETTEER]`: the geocoding acceptance report, the
// external suites in CORPUS_DIR and the project's own (Tests/Acceptance, from the project
// root).
if CommandLine.arguments.count >= 3, CommandLine.arguments[1] == "acceptance" {
    let corpus = URL(fileURLWithPath: CommandLine.arguments[2])
    let data = CommandLine.arguments.count > 3 ? CommandLine.arguments[3] : "data/gazetteer.bin"
    let own = URL(fileURLWithPath: "Tests/Acceptance")
    do {
        let report = try AcceptanceReport(
            corpus: corpus, projectSuites: FileManager.default.fileExists(atPath: own.path) ? own : nil,
            gazetteer: try Gazetteer(path: data))
        print(report.text, terminator: "")
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("airloc-bench: \(error)\n".utf8))
        exit(66)
    }
}

// `airloc-bench repeat GAZETTEER QUERY [TIMES]`: one search over and over, for a profiler
// (`perf record`), printing the mean time per search.
if CommandLine.arguments.count >= 4, CommandLine.arguments[1] == "repeat" {
    guard let gazetteer = try? Gazetteer(path: CommandLine.arguments[2]) else {
        FileHandle.standardError.write(Data("airloc-bench: cannot open \(CommandLine.arguments[2])\n".utf8))
        exit(66)
    }
    let query = CommandLine.arguments[3]
    let times = CommandLine.arguments.count > 4 ? max(1, Int(CommandLine.arguments[4]) ?? 10_000) : 10_000
    var found = 0
    let start = DispatchTime.now().uptimeNanoseconds
    for _ in 0..<times { found &+= gazetteer.search(query).count }
    let mean = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e3 / Double(times)
    print(String(format: "search \"%@\" ×%d: %.1f µs each, %d results", query, times, mean, found / times))
    exit(0)
}

/// A fixed-seed generator so every run measures the same points.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

func seconds(_ body: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

/// This machine's speed right now: the time of a fixed amount of arithmetic, and of
/// dependent reads scattered over 32 MB (what a lookup in the mapped data waits for).
/// The machines these figures come from are shared, and their speed drifts by half
/// within minutes; printed at the start and the end, it says which figures came from a
/// slow spell.
func speedCheck() -> String {
    var generator = SplitMix64(state: 1)
    var sum: UInt64 = 0
    let arithmetic = seconds {
        for _ in 0..<50_000_000 { sum &+= generator.next() }
    }
    // A single random cycle through 8M slots (Sattolo's shuffle), followed for 2M steps:
    // each read depends on the one before, so the time is memory latency.
    let slots = 8 << 20
    var next = [UInt32](unsafeUninitializedCapacity: slots) { buffer, count in
        for i in 0..<slots { buffer[i] = UInt32(i) }
        count = slots
    }
    for i in stride(from: slots - 1, to: 0, by: -1) {
        next.swapAt(i, Int(generator.next() % UInt64(i)))
    }
    var position = 0
    let memory = seconds {
        for _ in 0..<2_000_000 { position = Int(next[position]) }
    }
    return String(
        format: "speed check: 50M SplitMix64 steps in %.0f ms; 2M dependent reads over 32 MB in %.0f ms (%llu)",
        arithmetic * 1000, memory * 1000, (sum &+ UInt64(position)) % 1000)
}

// `airloc-bench speed`: the speed check alone, in a process of its own so that its 32 MB
// stay out of the peak memory measured of the lookups.
if CommandLine.arguments.count >= 4, CommandLine.arguments[1] == "fuzz" {
    let seed = CommandLine.arguments.count >= 5 ? UInt64(CommandLine.arguments[4]) ?? 1 : 1
    do { try Fuzz.run(data: CommandLine.arguments[2], runs: Int(CommandLine.arguments[3]) ?? 100, seed: seed) } catch {
        FileHandle.standardError.write(Data("fuzz: \(error)\n".utf8))
        exit(1)
    }
    exit(0)
}

// `airloc-bench logbook-write FILE COUNT` (the crash test's writer) and
// `airloc-bench logbook DIR [ROWS]` (bytes per row, export speed and memory).
if CommandLine.arguments.count >= 4, CommandLine.arguments[1] == "logbook-write" {
    do {
        try LogbookBench.writeLoop(path: CommandLine.arguments[2], count: Int(CommandLine.arguments[3]) ?? 1000)
    } catch {
        FileHandle.standardError.write(Data("logbook-write: \(error)\n".utf8))
        exit(74)
    }
    exit(0)
}
if CommandLine.arguments.count >= 4, CommandLine.arguments[1] == "backlog-write" {
    do {
        try LogbookBench.writeBacklog(path: CommandLine.arguments[2], rows: Int(CommandLine.arguments[3]) ?? 10_000)
    } catch {
        FileHandle.standardError.write(Data("backlog-write: \(error)\n".utf8))
        exit(74)
    }
    exit(0)
}
if CommandLine.arguments.count >= 3, CommandLine.arguments[1] == "day-write" {
    let start = CommandLine.arguments.count > 3 ? Double(CommandLine.arguments[3]) : nil
    do {
        try LogbookBench.writeDay(
            path: CommandLine.arguments[2],
            start: start.map(Date.init(timeIntervalSince1970:)) ?? Date(timeIntervalSince1970: 1_796_025_600))
    } catch {
        FileHandle.standardError.write(Data("day-write: \(error)\n".utf8))
        exit(74)
    }
    exit(0)
}
if CommandLine.arguments.count >= 2, CommandLine.arguments[1] == "sensor-decode" {
    SensorBench.run()
    exit(0)
}
// `airloc-bench sensor-write FILE MINUTES:PM2.5 ...`: measured rows that many minutes
// ago (the NowCast tests' seeded logbook).
if CommandLine.arguments.count >= 4, CommandLine.arguments[1] == "sensor-write" {
    do {
        try LogbookBench.writeSensorRows(path: CommandLine.arguments[2], Array(CommandLine.arguments.dropFirst(3)))
    } catch {
        FileHandle.standardError.write(Data("sensor-write: \(error)\n".utf8))
        exit(74)
    }
    exit(0)
}
if CommandLine.arguments.count >= 3, CommandLine.arguments[1] == "logbook" {
    let rows = CommandLine.arguments.count > 3 ? Int(CommandLine.arguments[3]) ?? 1_000_000 : 1_000_000
    do { try LogbookBench.figures(directory: CommandLine.arguments[2], rows: rows) } catch {
        FileHandle.standardError.write(Data("logbook: \(error)\n".utf8))
        exit(74)
    }
    exit(0)
}

// `airloc-bench mqtt-drain DIR URL [ROWS]` and `airloc-bench mqtt-load URL [DEVICES]
// [RATE] [SECONDS]` (docs/scaling.md): against a running broker.
if CommandLine.arguments.count >= 4, CommandLine.arguments[1] == "mqtt-drain" {
    let arguments = CommandLine.arguments
    do {
        try FleetBench.drain(
            directory: arguments[2], url: arguments[3], rows: arguments.count > 4 ? Int(arguments[4]) ?? 10_000 : 10_000
        )
    } catch {
        FileHandle.standardError.write(Data("mqtt-drain: \(error)\n".utf8))
        exit(1)
    }
    exit(0)
}
if CommandLine.arguments.count >= 3, CommandLine.arguments[1] == "mqtt-load" {
    let numbers = CommandLine.arguments.dropFirst(3).map { Int($0) }
    do {
        try FleetBench.load(
            url: CommandLine.arguments[2], devices: (numbers.first ?? nil) ?? 200,
            rate: (numbers.dropFirst().first ?? nil) ?? 10, seconds: (numbers.dropFirst(2).first ?? nil) ?? 30)
    } catch {
        FileHandle.standardError.write(Data("mqtt-load: \(error)\n".utf8))
        exit(1)
    }
    exit(0)
}

if CommandLine.arguments.count >= 2, CommandLine.arguments[1] == "row-read" {
    // How long the collector takes to read and check one published track row, against
    // Foundation's parser reading the same line (what it used before), over 200,000 rows.
    let line =
        #"{"schema":"airloc.log/1","device":"bench-1","revision":0,"id":"t42","kind":"track","time":"2026-11-18T10:00:05.250Z","latitude":52.52,"longitude":13.405,"time_source":"gps","altitude_m":35,"speed_ms":0,"course_deg":null,"accuracy_m":1,"mode":"3d","satellites":9,"provider":"gpsd","segment":1}"#
    let now = Date(timeIntervalSince1970: 1_795_000_000)
    let count = 200_000
    func time(_ body: () -> Int) -> Double {
        let start = ContinuousClock.now
        let kept = body()
        let elapsed = ContinuousClock.now - start
        precondition(kept == count)
        return Double(elapsed.components.seconds) * 1e6 / Double(count)
            + Double(elapsed.components.attoseconds) / 1e12 / Double(count)
    }
    let read = time {
        (0..<count).reduce(0) { kept, _ in
            kept + ((try? DeviceRow(device: "bench-1", payload: line, now: now)) == nil ? 0 : 1)
        }
    }
    let foundation = time {
        (0..<count).reduce(0) { kept, _ in
            kept + ((try? JSONSerialization.jsonObject(with: Data(line.utf8))) is [String: Any] ? 1 : 0)
        }
    }
    print(
        String(
            format: "row-read: %d track rows of %d bytes: DeviceRow (read and checked) %.2f µs a row; "
                + "JSONSerialization.jsonObject alone %.2f µs a row", count, line.utf8.count, read, foundation))
    exit(0)
}

if CommandLine.arguments.count >= 6, CommandLine.arguments[1] == "collect-burst-publish" {
    let arguments = CommandLine.arguments
    do {
        try CollectBurst.publish(
            url: arguments[2], run: arguments[3], devices: Int(arguments[4]) ?? 200, rows: Int(arguments[5]) ?? 100_000,
            kind: arguments.count > 6 ? arguments[6] : "track")
    } catch {
        FileHandle.standardError.write(Data("collect-burst-publish: \(error)\n".utf8))
        exit(1)
    }
    exit(0)
}

if CommandLine.arguments.count >= 3, CommandLine.arguments[1] == "retention-drop" {
    let arguments = CommandLine.arguments
    do {
        try RetentionBench.run(
            conninfo: arguments[2], devices: arguments.count > 3 ? Int(arguments[3]) ?? 200 : 200,
            spacing: arguments.count > 4 ? Int(arguments[4]) ?? 60 : 60)
    } catch {
        FileHandle.standardError.write(Data("retention-drop: \(error)\n".utf8))
        exit(1)
    }
    exit(0)
}

if CommandLine.arguments.count >= 6, CommandLine.arguments[1] == "collect-burst-drain" {
    let arguments = CommandLine.arguments
    do {
        try CollectBurst.drain(
            conninfo: arguments[2], run: arguments[3], rows: Int(arguments[4]) ?? 100_000,
            collectors: arguments[5].split(separator: ",").compactMap { Int32($0) },
            started: arguments.count > 6 ? Double(arguments[6]) : nil,
            kind: arguments.count > 7 ? arguments[7] : "track")
    } catch {
        FileHandle.standardError.write(Data("collect-burst-drain: \(error)\n".utf8))
        exit(1)
    }
    exit(0)
}

if CommandLine.arguments.count >= 5, CommandLine.arguments[1] == "collect-load" {
    let arguments = CommandLine.arguments
    let numbers = arguments.dropFirst(5).map { Int($0) }
    do {
        try CollectBench.run(
            url: arguments[2], conninfo: arguments[3],
            collectors: arguments[4].split(separator: ",").compactMap { Int32($0) },
            devices: (numbers.first ?? nil) ?? 200, rate: (numbers.dropFirst().first ?? nil) ?? 1,
            seconds: (numbers.dropFirst(2).first ?? nil) ?? 600)
    } catch {
        FileHandle.standardError.write(Data("collect-load: \(error)\n".utf8))
        exit(1)
    }
    exit(0)
}

if CommandLine.arguments.count >= 4, CommandLine.arguments[1] == "upload-drain" {
    let arguments = CommandLine.arguments
    do {
        try await UploadBench.run(
            directory: arguments[2], base: arguments[3], rows: arguments.count > 4 ? Int(arguments[4]) ?? 2000 : 2000)
    } catch {
        FileHandle.standardError.write(Data("upload-drain: \(error)\n".utf8))
        exit(1)
    }
    exit(0)
}

if CommandLine.arguments.dropFirst().first == "speed" {
    print(speedCheck())
    exit(0)
}

let path = CommandLine.arguments.dropFirst().first ?? "data/gazetteer.bin"
var loaded: Gazetteer?
let loadTime = seconds { loaded = try? Gazetteer(path: path) }
guard let gazetteer = loaded else {
    print("cannot load \(path)")
    exit(66)
}
print("gazetteer: \(gazetteer.count) places from \(path)")
print(String(format: "load (mmap + validate): %.2f ms", loadTime * 1000))

var generator = SplitMix64(state: 42)
let worldPoints = (0..<200_000).map { _ in
    Coordinate(
        uncheckedLatitude: Double.random(in: -60...75, using: &generator),
        longitude: Double.random(in: -180...180, using: &generator))
}
// Points where people live: jittered around real places (the common case on a device).
let populatedPoints = (0..<200_000).map { _ -> Coordinate in
    let place = gazetteer.place(at: Int.random(in: 0..<gazetteer.count, using: &generator))
    return Coordinate(
        uncheckedLatitude: max(
            -90, min(90, place.coordinate.latitude + Double.random(in: -0.05...0.05, using: &generator))),
        longitude: max(-180, min(180, place.coordinate.longitude + Double.random(in: -0.05...0.05, using: &generator))))
}

func rate(_ name: String, _ points: [Coordinate], _ lookup: (Coordinate) -> NearestPlace?) {
    var checksum = 0
    // Three rounds; report the best, the usual way to see through scheduler noise.
    var best = Double.infinity
    for _ in 0..<3 {
        let time = seconds {
            for point in points { checksum &+= lookup(point)?.place.id ?? 0 }
        }
        best = min(best, time)
    }
    let perSecond = Double(points.count) / best
    print(
        String(
            format: "%@: %.0f lookups/s (%.2f µs each, %d points, checksum %d)", name, perSecond,
            best / Double(points.count) * 1e6, points.count, checksum & 0xFFFF))
}

func indexRate(_ name: String, _ points: [Coordinate]) {
    var checksum = 0
    var best = Double.infinity
    for _ in 0..<3 {
        best = min(best, seconds { for point in points { checksum &+= gazetteer.nearestIndex(to: point) ?? 0 } })
    }
    print(
        String(
            format: "%@: %.0f lookups/s (%.2f µs each, %d points)", name, Double(points.count) / best,
            best / Double(points.count) * 1e6, points.count))
}

// The build-time seeds and decided cells must change nothing: every answer agrees with
// a plain tree search.
let disagreeing = worldPoints.filter { gazetteer.nearestIndex(to: $0) != gazetteer.nearestIndexWithoutSeeds(to: $0) }
print(
    "seeds and decided cells, random land/sea points: \(disagreeing.count) of \(worldPoints.count) answers differ from an unseeded search"
)
indexRate("nearestIndex (no Place built), random land/sea points", worldPoints)
indexRate("nearestIndex (no Place built), points near places", populatedPoints)
rate("nearest, random land/sea points", worldPoints) { gazetteer.nearest(to: $0) }
rate("nearest, points near places", populatedPoints) { gazetteer.nearest(to: $0) }
rate("locality, points near places", populatedPoints) { gazetteer.locality(for: $0) }

// Issue 17: the reverse answer (locality) stays in the country and region the point is
// in, as far as the nearest place tells: how often they agree.
do {
    var sameCountry = 0
    var sameRegion = 0
    for point in populatedPoints {
        guard let nearest = gazetteer.nearest(to: point)?.place, let answer = gazetteer.locality(for: point)?.place
        else { continue }
        if answer.countryCode == nearest.countryCode { sameCountry += 1 }
        if answer.countryCode == nearest.countryCode && answer.admin1 == nearest.admin1 { sameRegion += 1 }
    }
    let total = Double(populatedPoints.count)
    print(
        String(
            format:
                "reverse (locality) agrees with the nearest place, points near places: country %.2f%%, admin-1 %.2f%% (%d points)",
            Double(sameCountry) / total * 100, Double(sameRegion) / total * 100, populatedPoints.count))
}

// Postal codes: random five-digit strings (about 41,000 of the 100,000 are US ZIP codes),
// looked up offline; the figure includes building each answer.
do {
    var generator = SplitMix64(state: 7)
    let codes = (0..<200_000).map { _ in String(format: "%05d", Int.random(in: 0..<100_000, using: &generator)) }
    var found = 0
    var best = Double.infinity
    for _ in 0..<3 {
        found = 0
        best = min(
            best, seconds { for code in codes { found += gazetteer.postalPlaces(countryCode: "US", code: code).count } }
        )
    }
    print(
        String(
            format: "postal, US codes offline: %.0f lookups/s (%.2f µs each, %d codes, %d places found)",
            Double(codes.count) / best, best / Double(codes.count) * 1e6, codes.count, found))
}

// Search: every query of scripts/bench-queries.py (KIND<TAB>QUERY: keystrokes of 50
// names, of the same names with a typo, and of names in their own script), each timed
// alone; a query's figure is the median of 7 rounds; percentiles are over queries, per
// kind and overall.
if let queryFile = CommandLine.arguments.dropFirst(2).first,
    let text = try? String(contentsOfFile: queryFile, encoding: .utf8)
{
    let lines = text.split(whereSeparator: \.isNewline).map { $0.split(separator: "\t", maxSplits: 1) }
    let queries = lines.compactMap { $0.count == 2 ? (kind: String($0[0]), query: String($0[1])) : nil }
    var samples = [[Double]](repeating: [], count: queries.count)
    var found = 0
    for round in 0..<7 {
        for (index, entry) in queries.enumerated() {
            var results: [SearchResult] = []
            let time = seconds { results = gazetteer.search(entry.query) }
            samples[index].append(time)
            if round == 0 && !results.isEmpty { found += 1 }
        }
    }
    let medians = samples.map { $0.sorted()[$0.count / 2] }
    func summary(_ label: String, _ values: [Double]) {
        let sorted = values.sorted()
        func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] * 1e6 }
        print(
            String(
                format: "search, %@ (%d queries): p50 %.1f µs, p90 %.1f µs, p99 %.1f µs, max %.1f µs", label,
                sorted.count, percentile(0.5), percentile(0.9), percentile(0.99), sorted.last! * 1e6))
    }
    let kinds = ["name", "typo", "script"]  // scripts/bench-queries.py's
    for kind in kinds {
        summary("\(kind) keystrokes", zip(queries, medians).filter { $0.0.kind == kind }.map(\.1))
    }
    summary("all, \(found) with results", medians)
    for kind in kinds {
        let slowest = zip(queries, medians).filter { $0.0.kind == kind }.sorted { $0.1 > $1.1 }.prefix(6)
        print(
            "slowest \(kind) keystrokes: "
                + slowest.map { String(format: "\"%@\" %.0f µs", $0.0.query, $0.1 * 1e6) }.joined(separator: ", "))
    }
}

// What this process holds now that every lookup and search above has run: private
// memory (its own arrays, heap) apart from mapped files (the binary and the data file,
// pages the kernel shares with its cache and can drop at any time).
if let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) {
    let fields = status.split(separator: "\n").filter { $0.hasPrefix("RssAnon") || $0.hasPrefix("RssFile") }
    let values = fields.map { $0.split(whereSeparator: \.isWhitespace).dropFirst().first.flatMap { Int($0) } ?? 0 }
    if values.count == 2 {
        print(
            String(
                format: "memory now: %.1f MB private (heap, test points), %.1f MB of mapped files (binary, data)",
                Double(values[0]) / 1024, Double(values[1]) / 1024))
    }
}
