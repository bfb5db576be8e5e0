import Platform

/// A service's notice as the journal shows it (stderr under systemd): one line, the part
/// that speaks or the level first, and what can help in the command line's words.
///
/// Contract: the line ends in a newline and holds no more than the notice does (no
/// position, no secret: ``ServiceNotice``'s contract); a remedy the command line does not
/// know adds nothing. It is one line whatever the notice holds: a line break or control
/// character in it (from a message's text) is escaped, so no notice forges another line.
public enum NoticeText {
    /// "airloc: mqtt: connected to the broker…
    /// ".
    public static func line(_ notice: ServiceNotice) -> String {
        "airloc: \(TerminalText.oneLine(notice.description))\(remedy(notice.remedy))\n"
    }

    static func remedy(_ remedy: ServiceNotice.Remedy?) -> String {
        switch remedy {
        case .checkGPSD?: return " (`airloc doctor` checks gpsd and the receiver)"
        case .checkSensor?:
            return " (with the logger stopped, `airloc doctor` checks the sensor; `airloc sense` reads it once)"
        default: return ""
        }
    }
}
