import Foundation

/// Every JSON document the built binary prints, checked against its JSON Schema in
/// docs/schema/ (scripts/json-schema-check.py, Python's `jsonschema`), so that a key the
/// schemas and docs do not know, a missing key or a wrong type fails the test that saw it.
///
/// Contract: one checker process per test process, started on first use and fed one
/// document per line (tests run in parallel; the lock keeps question and answer paired).
/// A checker that cannot start is an error, never a silent pass. Output that is not JSON
/// (text mode) is not checked; output that starts like JSON must be valid JSON.
public final class JSONSchemaCheck: @unchecked Sendable {
    public static let shared = JSONSchemaCheck()

    private let lock = NSLock()
    private var process: ChildProcess?
    /// How many answer lines have been read from the checker.
    private var answered = 0

    public struct Violation: Error, CustomStringConvertible {
        public var description: String
    }

    /// The documents in a command's stdout: one pretty-printed document, or one compact
    /// document per line (`locate --watch`), each as one line for the checker.
    public static func documents(in stdout: String) -> [String] {
        let text = stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("{") else { return [] }
        // A pretty document's strings hold no raw line breaks (JSON escapes them).
        if text.hasPrefix("{\n") { return [text.replacingOccurrences(of: "\n", with: " ")] }
        return text.split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    /// Checks every document in `stdout`; throws ``Violation`` naming the command.
    public func check(stdout: String, command: [String]) async throws {
        let documents = Self.documents(in: stdout)
        guard !documents.isEmpty else { return }
        let verdicts = try await offPool { try self.verdicts(documents) }
        let bad = verdicts.filter { $0 != "ok" }
        if !bad.isEmpty {
            throw Violation(
                description: "airloc \(command.joined(separator: " ")) printed JSON its schema does not allow: "
                    + bad.joined(separator: "; ") + "\n--- stdout\n\(stdout)")
        }
    }

    private func verdicts(_ documents: [String]) throws -> [String] {
        lock.lock()
        defer { lock.unlock() }
        if process == nil { try start() }
        var answers: [String] = []
        for document in documents {
            process!.write(Data((document + "\n").utf8))
            answers.append(try readLine())
        }
        return answers
    }

    private func start() throws {
        let script = PackagePaths.file("scripts/json-schema-check.py").path
        guard let python = ExternalTool.path(of: "python3") else {
            throw FixtureError("the JSON Schema check needs python3 (with jsonschema; `make test` installs both)")
        }
        let child = try ChildProcess(
            python, [script, "--serve"], environment: ProcessInfo.processInfo.environment, input: .pipe)
        (process, answered) = (child, 0)
        let greeting = try readLine()
        guard greeting == "ready" else {
            process = nil
            throw FixtureError("the JSON Schema check did not start (\(script) said \(String(reflecting: greeting)))")
        }
    }

    /// The checker's next answer line; a checker that went away or stopped answering is
    /// an error (then the check fails, naming it).
    private func readLine() throws -> String {
        guard let process else { throw FixtureError("the JSON Schema checker is not running") }
        let wanted = answered + 1
        do {
            try process.waitForOutputBlocking("answer \(wanted)", timeout: 120) {
                $0.reduce(0) { $1 == "\n" ? $0 + 1 : $0 } >= wanted
            }
        } catch {
            self.process = nil
            throw FixtureError("the JSON Schema checker (scripts/json-schema-check.py) did not answer: \(error)")
        }
        answered = wanted
        return String(process.output.split(separator: "\n", omittingEmptySubsequences: false)[wanted - 1])
    }
}
