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

    /// What this user may do with the device at `path`.
    public init(path: String) {
        self.path = path
        isOpenable = access(path, R_OK | W_OK) == 0
        var info = stat()
        if stat(path, &info) == 0, let entry = getgrgid(info.st_gid) {
            group = String(cString: entry.pointee.gr_name)
        } else {
            group = "?"
        }
    }
}

/// Who this process runs as.
public enum ProcessUser {
    /// True for root (effective user id 0): only root may point airloc at another
    /// system configuration, since that file holds the administrator's policy.
    public static var isRoot: Bool { geteuid() == 0 }
}
