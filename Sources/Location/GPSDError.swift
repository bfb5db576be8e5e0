import Geo

/// Why gpsd gave no fix. Each case carries what the user needs to act on it about gpsd
/// itself (the service, `AIRLOC_GPSD`, which every program built on `Configuration`
/// reads); a caller adds its own other ways (the command line: `--lat/--lon`). The text
/// reaches warnings, `--watch` reasons, logger notices and `doctor`, so it is said once here.
public enum GPSDError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No gpsd answered at host:port.
    case notReachable(host: String, port: Int, reason: String)
    /// gpsd answered but reported no valid fix in time; `lastMode` is what it last said.
    case noFix(seconds: Double, lastMode: FixMode)
    /// The connection dropped while waiting (gpsd stopped or restarted).
    case wentAway(host: String, port: Int)
    /// gpsd did not accept the WATCH request.
    case protocolError(String)

    /// What went wrong with gpsd, and what to check.
    public var description: String {
        switch self {
        case .notReachable(let host, let port, let reason):
            return "cannot reach gpsd at \(host):\(port) (\(reason)); is gpsd running? "
                + "Try `systemctl status gpsd` or set AIRLOC_GPSD=host:port"
        case .noFix(let seconds, let lastMode):
            let said = lastMode == .notSeen ? "no position report from the receiver" : "receiver reports \(lastMode)"
            let time = seconds == seconds.rounded() ? "\(Int(seconds))" : "\(seconds)"
            return "no GPS fix within \(time) s (\(said)); move to open sky or wait for the receiver"
        case .wentAway(let host, let port):
            return "gpsd at \(host):\(port) closed the connection (stopped or restarted?)"
        case .protocolError(let what):
            return "gpsd protocol error: \(what)"
        }
    }
}
