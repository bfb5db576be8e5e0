import Location

/// Who is asked when airloc wants to sense the location and nobody has decided yet —
/// the equivalent of iOS's permission alert.
///
/// Contract: `canAsk` is true only when a person can answer now (a command at a
/// terminal); `ask` is called only then, at most once per session, and returns the
/// person's answer. A daemon or a script passes ``NeverPrompt``: sensing then needs a
/// decision made beforehand (`airloc auth grant`), and its absence is an error that
/// says so.
public protocol AuthorizationPrompter: Sendable {
    var canAsk: Bool { get }
    /// Asks whether airloc may use the location for `purpose` ("gpsd at localhost:2947").
    func ask(purpose: String) -> LocationAuthorization.Answer
}

/// For unattended use: never asks.
public struct NeverPrompt: AuthorizationPrompter {
    /// A prompter that never asks.
    public init() {}
    /// It cannot ask: an unattended program.
    public var canAsk: Bool { false }
    /// Denied, were it asked.
    public func ask(purpose: String) -> LocationAuthorization.Answer { .deny }
}
