import Foundation

/// The rule for tests that need an external program (gpsfake, python3): under
/// `CI=true` a missing tool is a failure, never a silent pass; elsewhere the test is
/// skipped with the reason printed.
public enum ExternalTool {
    public static var isCI: Bool { ProcessInfo.processInfo.environment["CI"] == "true" }

    public static func path(of name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// For `.enabled(if:)`: true when the tools exist or when we are in CI (where the
    /// test must then fail loudly on its own).
    public static func available(_ names: String...) -> Bool {
        if isCI { return true }
        let missing = names.filter { path(of: $0) == nil }
        if !missing.isEmpty {
            print(
                "note: skipping a test that needs \(missing.joined(separator: ", ")) (not installed; run `make test`)")
        }
        return missing.isEmpty
    }
}

/// A failure to start a test fixture (gpsfake, the HTTP double).
public struct FixtureError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Paths inside the package, found from this source file.
public enum PackagePaths {
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    public static func file(_ relative: String) -> URL { root.appendingPathComponent(relative) }

    /// ../shared/corpus beside the project, when present (it must be under CI).
    public static var corpus: URL? {
        let url = root.deletingLastPathComponent().appendingPathComponent("shared/corpus")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }
}

/// A fresh temporary directory, removed by `remove()`.
public struct TemporaryDirectory: Sendable {
    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("airloc-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    public func remove() { try? FileManager.default.removeItem(at: url) }
}
