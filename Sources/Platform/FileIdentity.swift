import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Whether two paths name one file: the same device and inode, through any symbolic
/// links, `..` or a directory named twice.
///
/// Contract: false when either path does not exist or cannot be looked at; never throws.
public enum FileIdentity {
    /// True when `first` and `second` are the same existing file.
    public static func same(_ first: String, _ second: String) -> Bool {
        var a = stat()
        var b = stat()
        guard stat(first, &a) == 0, stat(second, &b) == 0 else { return false }
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino
    }
}
