import Foundation

/// The airloc release, shown by `--version` and sent as the User-Agent product token.
public enum AirlocVersion {
    /// This airloc's version, as the package and the User-Agent say it.
    public static let string = "0.2.0"
    /// The day this release was made (bumped with `string`): no clock that says it is
    /// earlier can be right. 2026-11-30T00:00:00Z.
    public static let date = Date(timeIntervalSince1970: 1_795_996_800)
}
