import Foundation

/// One parser of bytes from outside, as `make fuzz` drives it under libFuzzer and as the
/// corpus replay test runs it (Tests/FuzzTargetsTests).
///
/// Contract: ``run`` takes any bytes and returns. A refusal is a value (nil, a thrown
/// error, a refused frame), never a crash or a hang; what must also hold (values in
/// their ranges, a message that decodes encodes back to itself, a stream decoded the
/// same however it is cut) is checked with `precondition`, so a broken promise is a
/// crash the fuzzer keeps as a reproducer. Each target's seed corpus is
/// `Fuzz/corpus/<name>/` (docs/testing.md).
public struct FuzzTarget: Sendable {
    /// The name `make fuzz-list` prints and `FUZZ_TARGETS` picks.
    public let name: String
    /// What it feeds, in a line.
    public let summary: String
    /// Feeds one input.
    public let run: @Sendable ([UInt8]) -> Void

    /// A target.
    public init(_ name: String, _ summary: String, run: @escaping @Sendable ([UInt8]) -> Void) {
        self.name = name
        self.summary = summary
        self.run = run
    }

    /// Every target, in the order `make fuzz` runs them.
    public static let all: [FuzzTarget] =
        LocationFuzzing.targets + WireFuzzing.targets + ServeFuzzing.targets + ConfigurationFuzzing.targets
        + SensorFuzzing.targets + FileFuzzing.targets + AnswerFuzzing.targets

    /// The target called `name`.
    public static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}

/// The small helpers every target uses to cut one input into the parts it feeds.
enum FuzzInput {
    /// The bytes as text, as a reader that decodes UTF-8 leniently sees them.
    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// The input cut at its first newline: a first line (a topic, a path) and the rest.
    static func head(_ bytes: [UInt8]) -> (head: String, rest: [UInt8]) {
        guard let newline = bytes.firstIndex(of: 0x0A) else { return (text(bytes), []) }
        return (text(Array(bytes[..<newline])), Array(bytes[(newline + 1)...]))
    }

    /// The input cut into parts at every `separator` byte (at most `limit` parts).
    static func parts(_ bytes: [UInt8], separator: UInt8 = 0x0A, limit: Int = 16) -> [[UInt8]] {
        bytes.split(separator: separator, maxSplits: limit - 1, omittingEmptySubsequences: false).map(Array.init)
    }

    /// A scratch directory of this process, made once.
    static let scratch: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "airloc-fuzz-\(getpid())", isDirectory: true)
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    /// Writes `bytes` to `name` in the scratch directory.
    static func file(_ name: String, _ bytes: [UInt8]) -> URL {
        let url = scratch.appendingPathComponent(name)
        _ = FileManager.default.createFile(atPath: url.path, contents: Data(bytes))
        return url
    }

    /// Whether `value` is a number a reader may be shown.
    static func finite(_ value: Double?) -> Bool { value.map(\.isFinite) ?? true }
}
