import Foundation

/// Where airloc keeps its files for the current user, by the XDG Base Directory rules.
///
/// Contract: `$XDG_CONFIG_HOME`, `$XDG_STATE_HOME`, `$XDG_CACHE_HOME` and
/// `$XDG_DATA_HOME` are honoured when they hold absolute paths (the specification says a
/// relative one is invalid and must be ignored); otherwise `~/.config`, `~/.local/state`,
/// `~/.cache` and `~/.local/share`, each with an `airloc` folder. Everything comes from the
/// environment passed in, so tests isolate all state in a temporary home.
public struct XDGDirectories: Sendable, Equatable {
    public var config: URL
    public var state: URL
    public var cache: URL
    public var data: URL

    public init(environment: [String: String]) {
        let home =
            environment["HOME"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser
        func base(_ variable: String, _ fallback: String) -> URL {
            if let value = environment[variable], value.hasPrefix("/") { return URL(fileURLWithPath: value) }
            return home.appendingPathComponent(fallback)
        }
        config = base("XDG_CONFIG_HOME", ".config").appendingPathComponent("airloc")
        state = base("XDG_STATE_HOME", ".local/state").appendingPathComponent("airloc")
        cache = base("XDG_CACHE_HOME", ".cache").appendingPathComponent("airloc")
        data = base("XDG_DATA_HOME", ".local/share").appendingPathComponent("airloc")
    }
}
