import Foundation
import Gazetteer
import Geo

/// `airloc-bench fuzz DATA RUNS [SEED]`: a damaged copy of the place data, many times
/// over — random 32-bit words overwritten inside one section per run (every section in
/// turn) — and the lookups every command makes (reverse, search with and without typos,
/// postal codes, place names as `popular` uses them) run against each. A trap (SIGSEGV,
/// SIGILL from a Swift check) ends the process: the test that runs this sees the signal
/// and the last "run" line on stderr names the seed to replay. Prints a summary.
enum Fuzz {
    struct Section {
        var tag: String
        var offset: Int
        var length: Int
    }

    static func run(data: String, runs: Int, seed: UInt64) throws {
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent(
            "airloc-fuzz-\(getpid()).bin")
        try? FileManager.default.removeItem(at: copy)
        try FileManager.default.copyItem(at: URL(fileURLWithPath: data), to: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        let sections = try table(of: copy)
        let handle = try FileHandle(forUpdating: copy)
        defer { try? handle.close() }
        var rejected = 0
        var damaged = 0
        var clean = 0
        for run in 0..<runs {
            let section = sections[run % sections.count]
            var random = SplitMix64(state: seed &+ UInt64(run))
            let words = 1 + Int(random.next() % 512)
            var saved: [(Int, Data)] = []
            for _ in 0..<words where section.length >= 4 {
                let at = section.offset + Int(random.next() % UInt64(section.length / 4)) * 4
                try handle.seek(toOffset: UInt64(at))
                saved.append((at, handle.readData(ofLength: 4)))
                let value: UInt32 =
                    switch random.next() % 4 {
                    case 0: 0xFFFF_FFFF
                    case 1: 0x7FFF_FFFF
                    case 2: UInt32(truncatingIfNeeded: random.next() % 1024)
                    default: UInt32(truncatingIfNeeded: random.next())
                    }
                try handle.seek(toOffset: UInt64(at))
                handle.write(withUnsafeBytes(of: value.littleEndian) { Data($0) })
            }
            FileHandle.standardError.write(Data("run \(run) seed \(seed &+ UInt64(run)) \(section.tag)\n".utf8))
            do {
                let gazetteer = try Gazetteer(path: copy.path)
                exercise(gazetteer, random: &random)
                // `postal --countries` reads every country's format, `data info --verify`
                // every record: now and then, on damaged copies too.
                if run % 8 == 7 {
                    for country in gazetteer.countryCodes { _ = gazetteer.postalFormat(countryCode: country) }
                }
                if run % 400 == 399 { _ = gazetteer.verify() }
                if gazetteer.damageDetected { damaged += 1 } else { clean += 1 }
            } catch {
                rejected += 1
            }
            for (at, bytes) in saved.reversed() {  // an offset hit twice gets its first value back
                try handle.seek(toOffset: UInt64(at))
                handle.write(bytes)
            }
        }
        print(
            "fuzz: \(runs) runs over \(sections.count) sections (seed \(seed)): \(rejected) rejected at load, "
                + "\(damaged) found damaged while answering, \(clean) answered without noticing; no trap")
    }

    /// What every command asks of the data.
    static func exercise(_ gazetteer: Gazetteer, random: inout SplitMix64) {
        for _ in 0..<20 {
            let latitude = Double(random.next() % 18_000) / 100 - 90
            let longitude = Double(random.next() % 36_000) / 100 - 180
            let point = Coordinate(uncheckedLatitude: latitude, longitude: longitude)
            _ = gazetteer.reverse(point)
            _ = gazetteer.nearest(to: point)
        }
        for query in ["Berlin", "Ber", "Mü", "Sao Paulo", "Belri", "Amsterdm", "New York", "Springfield, IL", "東京"] {
            _ = gazetteer.search(query, limit: 10)
        }
        for (country, code) in [("US", "90210"), ("US", "10001"), ("DE", "10115"), ("GB", "SW1A"), ("FR", "75001")] {
            _ = gazetteer.postalPlaces(countryCode: country, code: code)
            _ = gazetteer.postalFormat(countryCode: country)
            _ = gazetteer.countryName(code: country)
            _ = gazetteer.countryISO3(code: country)
        }

        for name in ["Paris", "Tokyo", "New York City", "Berlin, DE", "Portland, Oregon"] {
            _ = gazetteer.place(named: name)
        }
        for text in ["Germany", "US", "DEU", "United Kingdom"] { _ = gazetteer.countryCode(named: text) }
        for _ in 0..<10 { _ = gazetteer.place(id: Int(random.next() % 12_000_000)) }
    }

    /// The section table of a gazetteer.bin (docs/data.md): tag, offset, length.
    static func table(of file: URL) throws -> [Section] {
        let data = try Data(contentsOf: file, options: .alwaysMapped)
        func u32(_ at: Int) -> UInt32 { data[at..<at + 4].enumerated().reduce(0) { $0 | UInt32($1.1) << (8 * $1.0) } }
        let count = Int(u32(12))
        return (0..<count).map { index in
            let entry = 16 + index * 24
            let tag = String(decoding: data[entry..<entry + 4], as: UTF8.self)
            let offset = Int(u32(entry + 8)) | Int(u32(entry + 12)) << 32
            let length = Int(u32(entry + 16)) | Int(u32(entry + 20)) << 32
            return Section(tag: tag, offset: offset, length: length)
        }
    }
}
