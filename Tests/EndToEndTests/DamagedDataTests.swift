import Foundation
import TestSupport
import Testing

/// gazetteer.bin on an SD card that lost a block: never a crash, always a clear error
/// naming the file and the remedy.
@Suite struct DamagedDataTests {
    /// A copy of the shipped data with one section overwritten by 0xFF bytes.
    static func damagedCopy(section tag: String, in directory: TemporaryDirectory) throws -> URL {
        let copy = directory.file("gazetteer.bin")
        try FileManager.default.copyItem(at: PackagePaths.file("data/gazetteer.bin"), to: copy)
        let handle = try FileHandle(forUpdating: copy)
        defer { try? handle.close() }
        let header = try #require(try handle.read(upToCount: 16))
        func u32(_ data: Data, _ at: Int) -> Int {
            (0..<4).reduce(0) { $0 | Int(data[data.startIndex + at + $1]) << (8 * $1) }
        }
        for index in 0..<u32(header, 12) {
            try handle.seek(toOffset: UInt64(16 + index * 24))
            let entry = try #require(try handle.read(upToCount: 24))
            guard String(decoding: entry.prefix(4), as: UTF8.self) == tag else { continue }
            try handle.seek(toOffset: UInt64(u32(entry, 8) | u32(entry, 12) << 32))
            handle.write(Data(repeating: 0xFF, count: u32(entry, 16)))
        }
        return copy
    }

    /// The damage the issue found: PFMT made `airloc postal US 90210 --offline` die with
    /// SIGSEGV.
    @Test func aDamagedSectionIsAClearErrorNotASignal() async throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let copy = try Self.damagedCopy(section: "PFMT", in: home)
        let environment = AirlocBinary.environment(home: home.url, extra: ["AIRLOC_DATA": copy.path])
        let postal = try await AirlocBinary.run(["postal", "US", "90210", "--offline"], environment: environment)
        #expect(postal.status == 65, "\(postal)")
        #expect(postal.stderr.contains("place data \(copy.path) is damaged"), "\(postal)")
        #expect(postal.stderr.contains("airloc data info --verify") && postal.stderr.contains("airloc data import"))
        let verify = try await AirlocBinary.run(["data", "info", "--verify"], environment: environment)
        #expect(verify.status == 65 && verify.stderr.contains("PFMT record 0"), "\(verify)")
    }

    @Test func theShippedDataVerifies() async throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let verify = try await AirlocBinary.run(
            ["data", "info", "--verify"], environment: AirlocBinary.environment(home: home.url))
        #expect(verify.status == 0, "\(verify)")
    }

    /// Thousands of damaged copies — random words overwritten in every section in turn —
    /// each asked what every command asks (reverse, search with typos, postal codes,
    /// place names). A trap ends airloc-bench with a signal; the last "run" line names the
    /// seed to replay with `airloc-bench fuzz data/gazetteer.bin 1 SEED`.
    @Test func thousandsOfDamagedCopiesNeverTrap() async throws {
        let bench = URL(fileURLWithPath: AirlocBinary.path).deletingLastPathComponent()
            .appendingPathComponent("airloc-bench").path
        let result = try await ChildProcess.run(
            bench, ["fuzz", PackagePaths.file("data/gazetteer.bin").path, "2000", "20261130"],
            environment: ProcessInfo.processInfo.environment, timeout: 600)
        let last = result.stderr.split(separator: "\n").last(where: { $0.hasPrefix("run ") }) ?? "none"
        #expect(result.status == 0, "trapped at \(last): \(result.stderr.suffix(2000))")
        #expect(result.stdout.contains("2000 runs over 17 sections") && result.stdout.contains("no trap"))
        print(result.stdout)
    }
}
