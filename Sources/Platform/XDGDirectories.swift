import Foundation

/// Where airloc keeps its files for the current user, by the XDG Base Directory rules.
///
/// Contract: `$XDG_CONFIG_HOME`, `$XDG_STATE_HOME`, `$XDG_CACHE_HOME` and
/// `$XDG_DATA_HOME` are honoured when they hold absolute paths (the specification says a
/// relative one is invalid and must be ignored); otherwise `~/.config`, `~/.local/state`,
/// `~/.cache` and `~/.local/share`, each with an `airloc` folder. Everything comes from the
/// environment passed in, so tests isolate all state in a temporary home.
public struct XDGDirectories: Sendable, Equatable {
    /// $XDG_CONFIG_HOME/airloc (~/.config/airloc): airloc.conf.
    public var config: URL
    /// $XDG_STATE_HOME/airloc (~/.local/state/airloc): the logbook, authorization, chosen place.
    public var state: URL
    /// $XDG_CACHE_HOME/airloc (~/.cache/airloc): cached answers.
    public var cache: URL
    /// $XDG_DATA_HOME/airloc (~/.local/share/airloc): a gazetteer.bin of the user's own.
    public var data: URL

    /// The directories as `environment` (HOME, XDG_*) says.
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
