import Foundation
import Gazetteer
import Platform

/// Finds `gazetteer.bin` without relying on the build folder.
///
/// Search order: `$AIRLOC_DATA` (a file, or a directory holding it), the user's own
/// import (`$XDG_DATA_HOME/airloc/`), `<exe>/../share/
/// airloc/` (what `make install` lays out), the executable's own directory, then the
/// source tree this binary was built from (development builds). A missing file is a
/// clear error listing where it looked — never a crash.
enum DataLocator {
    static let fileName = "gazetteer.bin"

    static func candidates(environment: [String: String]) -> [String] {
        var paths: [String] = []
        if let data = environment["AIRLOC_DATA"], !data.isEmpty {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: data, isDirectory: &isDirectory), isDirectory.boolValue {
                paths.append((data as NSString).appendingPathComponent(fileName))
            } else {
                paths.append(data)
            }
            return paths
        }
        paths.append(userDataFile(environment: environment).path)
        let executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        let exeDirectory = executable.deletingLastPathComponent()
        let linkPath = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        for directory in [linkPath, exeDirectory] {
            paths.append(directory.deletingLastPathComponent().appendingPathComponent("share/airloc/\(fileName)").path)
            paths.append(directory.appendingPathComponent(fileName).path)
        }
        // Sources/AirlocCLI/DataLocator.swift → <package>/data/gazetteer.bin
        let sourceRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        paths.append(sourceRoot.appendingPathComponent("data/\(fileName)").path)
        var seen = Set<String>()
        return paths.filter { seen.insert($0).inserted }
    }

    /// `$XDG_DATA_HOME/airloc/gazetteer.bin`: where `airloc data import` writes by default.
    static func userDataFile(environment: [String: String]) -> URL {
        XDGDirectories(environment: environment).data.appendingPathComponent(fileName)
    }

    static func loadGazetteer(environment: [String: String]) throws(CLIError) -> Gazetteer {
        let paths = candidates(environment: environment)
        guard let path = paths.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw CLIError(code: .osFile, message: GazetteerError.notFound(searched: paths).description)
        }
        do {
            return try Gazetteer(path: path)
        } catch {
            throw CLIError(code: .osFile, message: error.description)
        }
    }
}
