import Foundation
import TestSupport
import Testing

/// data/gazetteer.bin is what data/gazetteer.manifest says it is: the file's SHA-256 and
/// size are the ones `make data` recorded, and the wheels it was built from are the ones
/// scripts/data-requirements.txt pins. A hand-edited, truncated or stale data file, or a
/// rebuild whose manifest was not committed with it, fails here.
@Suite struct ShippedDataManifestTests {
    struct Manifest {
        var inputs: [String: String] = [:]  // wheel file name → sha256
        var output: (sha256: String, bytes: Int)?
        var sourceDateEpoch: Int?
    }

    static func manifest() throws -> Manifest {
        let text = try String(contentsOf: PackagePaths.file("data/gazetteer.manifest"), encoding: .utf8)
        var manifest = Manifest()
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let words = line.split(separator: " ").map(String.init)
            switch words.first {
            case "source_date_epoch": manifest.sourceDateEpoch = words.count == 2 ? Int(words[1]) : nil
            case "input" where words.count == 3 && words[2].hasPrefix("sha256:"):
                manifest.inputs[words[1]] = String(words[2].dropFirst(7))
            case "output" where words.count == 4 && words[1] == "gazetteer.bin":
                let sha = words[2].hasPrefix("sha256:") ? String(words[2].dropFirst(7)) : ""
                let bytes = words[3].hasPrefix("bytes:") ? Int(words[3].dropFirst(6)) : nil
                if let bytes, sha.count == 64 { manifest.output = (sha, bytes) }
            default: Issue.record("data/gazetteer.manifest: a line it does not define: \(line)")
            }
        }
        return manifest
    }

    @Test func theCommittedFileIsTheOneTheManifestNames() async throws {
        let manifest = try Self.manifest()
        let output = try #require(manifest.output, "the manifest names the output's sha256 and size")
        let data = PackagePaths.file("data/gazetteer.bin")
        let size = try FileManager.default.attributesOfItem(atPath: data.path)[.size] as? Int
        #expect(size == output.bytes)
        let sha256sum = try #require(ExternalTool.path(of: "sha256sum"), "coreutils' sha256sum")
        let sum = try await ChildProcess.run(sha256sum, [data.path], environment: [:])
        #expect(sum.status == 0, "\(sum)")
        #expect(sum.stdout.split(separator: " ").first.map(String.init) == output.sha256)
        #expect(manifest.sourceDateEpoch != nil, "the build date is pinned (SOURCE_DATE_EPOCH)")
    }

    @Test func itsInputsAreThePinnedWheels() throws {
        let manifest = try Self.manifest()
        let pins = try String(contentsOf: PackagePaths.file("scripts/data-requirements.txt"), encoding: .utf8)
        let pinned = Set(
            pins.split(separator: "\n").compactMap { line -> String? in
                guard let hash = line.range(of: "--hash=sha256:") else { return nil }
                return String(line[hash.upperBound...].prefix(64))
            })
        #expect(!pinned.isEmpty)
        #expect(Set(manifest.inputs.values) == pinned, "\(manifest.inputs)")
        // The wheel names say which version was used; each pinned version appears.
        for line in pins.split(separator: "\n") where line.contains("==") {
            let package = line.prefix { $0 != "=" }.replacingOccurrences(of: "-", with: "_")
            let version = line.split(separator: " ")[0].components(separatedBy: "==")[1]
            #expect(manifest.inputs.keys.contains { $0.hasPrefix("\(package)-\(version)-") }, "\(line)")
        }
    }
}
