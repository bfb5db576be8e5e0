import Foundation

/// The airloc release, shown by `--version` and sent as the User-Agent product token.
public enum AirlocVersion {
    /// This airloc's version, as the package and the User-Agent say it.
    public static let string = "0.3.0"
    /// A day this release certainly postdates (0.2.0's, 2026-11-30T00:00:00Z): no clock that
    /// says it is earlier can be right. Moved forward only with the tests' fixed dates.
    public static let date = Date(timeIntervalSince1970: 1_795_996_800)
}
