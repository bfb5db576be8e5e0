import Foundation
import TestSupport
import Testing

/// `airloc use`: the chosen place is saved, read back by the manual provider and by
/// search's location bias, and refused when the name is ambiguous outside a terminal.
@Suite(.enabled(if: ExternalTool.available("python3")), .serialized)
struct UseEndToEndTests {
    @Test func aChosenPlaceBecomesTheManualLocationAndTheSearchBias() async throws {
        let double = try await HTTPDouble.start()
        defer { double.stop() }
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let environment = AirlocBinary.environment(home: home.url, servicesAt: double)
        func run(_ arguments: [String]) async throws -> ChildProcess.Result {
            try await AirlocBinary.run(arguments, environment: environment, stdin: "")
        }
        let none = try await run(["use"])
        #expect(none.status == 0 && none.stdout.hasPrefix("No place chosen"))
        // Before: Birmingham, England comes first; after choosing a place in Alabama, Alabama's.
        #expect(try await run(["search", "Birmingham", "--limit", "1"]).stdout.contains("England"))
        let saved = try await run(["use", "Hoover, Alabama"])
        #expect(saved.status == 0 && saved.stdout.hasPrefix("Chosen: Hoover, Alabama, United States"), "\(saved)")
        #expect(try await run(["search", "Birmingham", "--limit", "1"]).stdout.contains("Alabama"))
        let now = try await run(["now", "--provider", "manual", "--format", "line", "--no-climate"])
        #expect(now.status == 0 && now.stdout.hasPrefix("Hoover 41 Good"), "\(now)")
        let query = try #require(double.requests().first { $0.path == "/v1/air-quality" }?.query)
        #expect(query.hasPrefix("latitude=33.41&longitude=-86.81&"), "the chosen point, rounded: \(query)")
        let json = try await run(["use", "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["schema"] as? String == "airloc.use/1" && object["action"] as? String == "shown")
        #expect((object["place"] as? [String: Any])?["timezone"] as? String == "America/Chicago")
        // --lat/--lon on the command still win over the chosen place.
        let given = try await run(["now", "--lat", "52.52", "--lon", "13.40", "--format", "line", "--no-climate"])
        #expect(given.stdout.hasPrefix("Berlin"), "\(given)")
        #expect(try await run(["use", "--clear"]).status == 0)
        #expect(try await run(["use"]).stdout.hasPrefix("No place chosen"))
    }

    @Test func anAmbiguousNameIsRefusedOutsideATerminalUnlessFirst() async throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let environment = AirlocBinary.environment(home: home.url)
        let ambiguous = try await AirlocBinary.run(["use", "Springfield"], environment: environment, stdin: "")
        #expect(ambiguous.status == 65)
        #expect(ambiguous.stderr.contains("names several places") && ambiguous.stderr.contains("Springfield, Illinois"))
        #expect(!FileManager.default.fileExists(atPath: home.file("state/airloc/place").path))
        let first = try await AirlocBinary.run(["use", "Springfield", "--first"], environment: environment, stdin: "")
        #expect(first.status == 0 && first.stdout.contains("Springfield, Missouri"), "\(first)")
        let paris = try await AirlocBinary.run(["use", "Paris"], environment: environment, stdin: "")
        #expect(paris.status == 0 && paris.stdout.contains("Paris, Île-de-France, France"), "one Paris is much bigger")
        let unknown = try await AirlocBinary.run(["use", "Qxqxqxqx"], environment: environment, stdin: "")
        #expect(unknown.status == 65)
        let both = try await AirlocBinary.run(["use", "Paris", "--clear"], environment: environment, stdin: "")
        #expect(both.status == 64)
    }
}
