import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Whether this user may open a device file (a serial GPS receiver), and if not, which
/// group would let them.
public struct DeviceAccess: Sendable, Equatable {
    /// The device node (/dev/ttyUSB0).
    public var path: String
    /// True when this user may read and write it.
    public var isOpenable: Bool
    /// The file's group ("dialout"), or "?" when it cannot be told.
    public var group: String
    /// The file's permission bits (0o660), nil when it cannot be told.
    public var mode: UInt32?
    /// True for a character device (a serial port is one; a regular file is not).
    public var isCharacterDevice: Bool

    /// What this user may do with the device at `path`.
    public init(path: String) {
        self.path = path
        isOpenable = access(path, R_OK | W_OK) == 0
        var info = stat()
        if stat(path, &info) == 0 {
            mode = UInt32(info.st_mode) & 0o7777
            isCharacterDevice = UInt32(info.st_mode) & UInt32(S_IFMT) == UInt32(S_IFCHR)
            group = getgrgid(info.st_gid).map { String(cString: $0.pointee.gr_name) } ?? "?"
        } else {
            (mode, isCharacterDevice, group) = (nil, false, "?")
        }
    }

    /// The one thing that lets this user open the device, in words: joining its group only
    /// where that helps (not for group root, nor a mode that gives the group nothing).
    public var remedy: String {
        Self.remedy(path: path, mode: mode, isCharacterDevice: isCharacterDevice, group: group)
    }

    /// Whether joining `group` is what lets a user open a node of `mode`: the mode gives
    /// the group read and write, and the group is a known one other than root.
    public static func joiningHelps(group: String, mode: UInt32) -> Bool {
        mode & 0o060 == 0o060 && group != "root" && group != "?"
    }

    /// ``remedy`` of a device with these facts.
    public static func remedy(path: String, mode: UInt32?, isCharacterDevice: Bool, group: String) -> String {
        guard let mode else { return "check that \(path) exists" }
        if !isCharacterDevice {
            return "\(path) is not a device node: set the device to the adapter's (/dev/ttyUSB0, or the name a udev "
                + "rule gives it)"
        }
        let modeText = String(format: "%04o", mode & 0o7777)
        if mode & 0o060 != 0o060 {
            return "its mode (\(modeText)) lets no group read and write it: a udev rule with GROUP=\"dialout\", "
                + "MODE=\"0660\" fixes that (docs/sensors.md)"
        }
        if !joiningHelps(group: group, mode: mode) {
            return "it belongs to group \(group): give it group dialout with a udev rule (GROUP=\"dialout\", "
                + "MODE=\"0660\"; docs/sensors.md) rather than joining \(group)"
        }
        // The user by name: "$USER" pasted by the administrator for a service's account
        // (`sudo -u airloc airloc doctor`) would name the administrator.
        let user = ProcessUser.name
        if ProcessUser.isSystemAccount {
            return "`sudo usermod -aG \(group) \(user)`, then restart what runs as \(user) "
                + "(`sudo systemctl restart airloc-log`)"
        }
        return "`sudo usermod -aG \(group) \(user)`, then log in again"
    }
}

/// Who this process runs as.
public enum ProcessUser {
    /// True for root (effective user id 0): only root may point airloc at another
    /// system configuration, since that file holds the administrator's policy.
    public static var isRoot: Bool { geteuid() == 0 }

    /// This user's name (its number when it has none).
    public static var name: String {
        getpwuid(geteuid()).map { String(cString: $0.pointee.pw_name) } ?? "\(geteuid())"
    }

    /// True for a system account (a service's user, such as airloc: uid 1-999 on Debian).
    public static var isSystemAccount: Bool { (1..<1000).contains(geteuid()) }
}
