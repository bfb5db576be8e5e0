import Foundation
import Gazetteer
import Platform

/// Finds the offline place data, `gazetteer.bin`, without relying on the build folder.
///
/// Search order: `$AIRLOC_DATA` (a file, or a directory holding it), the user's own
/// import (`$XDG_DATA_HOME/airloc/`), `<exe>/../share/
/// airloc/` (what `make install` lays out), the executable's own directory, then the
/// source tree this binary was built from (development builds). A missing file is a
/// clear error listing where it looked — never a crash.
public enum PlaceData {
    /// The place data's file name.
    public static let fileName = "gazetteer.bin"

    /// Where the place data is looked for, in order.
    public static func candidates(environment: [String: String]) -> [String] {
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
        // Sources/Airloc/PlaceData.swift → <package>/data/gazetteer.bin
        let sourceRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        paths.append(sourceRoot.appendingPathComponent("data/\(fileName)").path)
        var seen = Set<String>()
        return paths.filter { seen.insert($0).inserted }
    }

    /// `$XDG_DATA_HOME/airloc/gazetteer.bin`: where `airloc data import` writes by default.
    public static func userDataFile(environment: [String: String]) -> URL {
        XDGDirectories(environment: environment).data.appendingPathComponent(fileName)
    }

    /// The gazetteer from the first candidate that exists; a missing or broken file is
    /// a ``GazetteerError`` saying where airloc looked or what is wrong.
    public static func load(environment: [String: String]) throws(GazetteerError) -> Gazetteer {
        let paths = candidates(environment: environment)
        guard let path = paths.first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw .notFound(searched: paths)
        }
        return try Gazetteer(path: path)
    }
}
