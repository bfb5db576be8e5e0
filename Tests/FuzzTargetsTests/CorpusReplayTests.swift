import Foundation
import FuzzTargets
import TestSupport
import Testing

/// Every fuzz target's seeds and the reproducers of what fuzzing found, replayed through
/// the targets as the fuzzer runs them (without the sanitizers): a parser that crashes on
/// one, or breaks a promise its target checks, fails the suite, so a crash once found
/// stays fixed.
@Suite struct CorpusReplayTests {
    static let corpus = PackagePaths.file("Fuzz/corpus")

    static func inputs(_ target: String) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(
            at: corpus.appendingPathComponent(target), includingPropertiesForKeys: nil
        ).sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    @Test func everyParserOfOutsideBytesHasATargetWithSeeds() throws {
        let names = FuzzTarget.all.map(\.name)
        #expect(names.count >= 10 && Set(names).count == names.count, "\(names)")
        for name in names { #expect(try !Self.inputs(name).isEmpty, "\(name) has no seed in Fuzz/corpus") }
        let directories = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path)
        #expect(Set(directories) == Set(names), "a corpus directory without its target, or the reverse")
    }

    @Test(arguments: FuzzTarget.all.map(\.name))
    func everySeedAndReproducerIsReadWithoutACrash(target name: String) throws {
        setenv("AIRLOC_FUZZ_GAZETTEER", PackagePaths.file("data/gazetteer.bin").path, 1)
        let target = try #require(FuzzTarget.named(name))
        let inputs = try Self.inputs(name)
        for input in inputs { target.run(Array(try Data(contentsOf: input))) }
        // Cut short and spoiled, every seed is still only refused: the fuzzer's first moves.
        for input in inputs {
            let bytes = Array(try Data(contentsOf: input))
            target.run(Array(bytes.prefix(bytes.count / 2)))
            target.run(bytes.enumerated().map { $0.offset % 7 == 3 ? $0.element ^ 0x5A : $0.element })
        }
    }
}
