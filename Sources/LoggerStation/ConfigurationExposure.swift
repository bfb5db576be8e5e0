import Foundation
import Settings

/// Whether the logger's configuration files may be trusted with what they hold: the
/// logger runs unattended and publishes with the secrets they name.
///
/// Contract: a configuration file others may write is refused (anyone could point the
/// logger elsewhere, or widen what leaves the device); one others may read is refused
/// while it holds a secret inline (`[mqtt] password = …`: put it in `password-file`, mode
/// 0600), as a readable `password-file` is. The reason names the file and the fix, never
/// the secret. Files that cannot be looked at are left to the reader that opens them.
public enum ConfigurationExposure {
    /// Why `settings`' files cannot be used as they are, or nil.
    public static func problem(_ settings: Settings) -> String? {
        func mode(_ path: String) -> Int? {
            (try? FileManager.default.attributesOfItem(atPath: path))?[.posixPermissions] as? Int
        }
        for path in settings.sources {
            if let mode = mode(path), mode & 0o002 != 0 {
                return "\(path): others may write it (mode \(String(mode & 0o777, radix: 8))): `chmod o-w \(path)`"
            }
        }
        for source in settings.secretSources {
            let path = String(source[..<(source.lastIndex(of: ":") ?? source.endIndex)])
            if let mode = mode(path), mode & 0o004 != 0 {
                return "\(source): a secret in a file others may read (mode \(String(mode & 0o777, radix: 8))): "
                    + "`chmod o-r \(path)` (for the service: `sudo chown root:airloc \(path)` and mode 0640), "
                    + "or a broker password in [mqtt] password-file (mode 0600)"
            }
        }
        return nil
    }
}
