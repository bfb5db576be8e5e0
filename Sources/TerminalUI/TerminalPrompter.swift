import Airloc
import Foundation
import Location

/// The permission question on the terminal (stderr, answered on stdin), asked only when
/// a person is there to answer.
public struct TerminalPrompter: AuthorizationPrompter {
    /// Where it asks.
    public var console: Console

    /// A prompter on `console`.
    public init(console: Console) { self.console = console }

    /// Only on a terminal.
    public var canAsk: Bool { console.isInteractive }

    /// Asks for permission, saying `purpose`.
    public func ask(purpose: String) -> LocationAuthorization.Answer {
        console.err(
            """
            airloc wants to use this device's location (\(purpose)).
            It stays on this device; only a rounded coordinate is sent to the air-quality service.
              y = allow while using airloc    a = always (also unattended logging)
              r = allow, approximate only (city level)    n = don't allow
            Allow? [y/a/r/N] 
            """)
        let reply = (readLine() ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        switch reply {
        case "y", "yes": return .allowWhenInUse(.full)
        case "a", "always": return .allowAlways(.full)
        case "r": return .allowWhenInUse(.reduced)
        default: return .deny
        }
    }
}
