import Foundation
import TestSupport
import Testing

/// The JSON Schemas and their prose agree: docs/json-schema.md names every key the
/// schemas in docs/schema/ define (the documents themselves are checked in every test
/// that runs the binary, by ``AirlocBinary``).
@Suite(.enabled(if: ExternalTool.available("python3")))
struct JSONSchemaDocumentationTests {
    @Test func theDocsNameEveryKeyOfEverySchema() async throws {
        let result = try await ChildProcess.run(
            try #require(ExternalTool.path(of: "python3")),
            [
                PackagePaths.file("scripts/json-schema-check.py").path, "--docs",
                PackagePaths.file("docs/json-schema.md").path,
            ], environment: ProcessInfo.processInfo.environment)
        #expect(result.status == 0, "\(result)")
    }
}
