import Foundation
import TestSupport

@testable import Gazetteer

/// Builds the small test gazetteers from GeoNames-format files the tests write.
enum TestGazetteer {
    /// The builder for the dump files in `directory`, with coarse nearest-place seeds:
    /// the answers are the same, the build far cheaper in a debug build.
    static func builder(in directory: TemporaryDirectory) throws -> GazetteerBuilder {
        var builder = try GazetteerBuilder.fromDumps(
            in: directory.url, source: "test", builtAt: Date(timeIntervalSince1970: 0))
        builder.seedCellsPerDegree = 1
        return builder
    }

    /// Writes `gazetteer.bin` into `directory` and opens it.
    static func build(in directory: TemporaryDirectory) throws -> Gazetteer {
        try builder(in: directory).write(to: directory.file("gazetteer.bin"))
        return try Gazetteer(path: directory.file("gazetteer.bin").path)
    }
}
