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
    private var process: Process?
    private var writer: FileHandle?
    private var reader: FileHandle?
    private var pending = Data()

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
            writer!.write(Data((document + "\n").utf8))
            answers.append(try readLine())
        }
        return answers
    }

    private func start() throws {
        let script = PackagePaths.file("scripts/json-schema-check.py").path
        guard let python = ExternalTool.path(of: "python3") else {
            throw FixtureError("the JSON Schema check needs python3 (with jsonschema; `make test` installs both)")
        }
        let child = Process()
        child.executableURL = URL(fileURLWithPath: python)
        child.arguments = [script, "--serve"]
        let input = Pipe.privateToThisProcess()
        let output = Pipe.privateToThisProcess()
        child.standardInput = input
        child.standardOutput = output
        child.standardError = FileHandle.nullDevice
        try child.run()
        (process, writer, reader) = (child, input.fileHandleForWriting, output.fileHandleForReading)
        let greeting = try readLine()
        guard greeting == "ready" else {
            process = nil
            throw FixtureError("the JSON Schema check did not start (\(script) said \(String(reflecting: greeting)))")
        }
    }

    /// One line of the checker's answer; "" when it went away (then the check fails).
    private func readLine() throws -> String {
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                pending = Data(pending[(newline + 1)...])
                return line
            }
            let chunk = reader!.availableData
            if chunk.isEmpty {
                process = nil
                throw FixtureError("the JSON Schema checker (scripts/json-schema-check.py) exited")
            }
            pending.append(chunk)
        }
    }
}
