import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// This boot and the time since it began: what lets a logger re-stamp rows it logged
/// while the system clock was wrong (a Raspberry Pi has no real-time clock) once GPS
/// time is trusted.
///
/// Contract: `seconds` is `CLOCK_BOOTTIME` (monotonic, counts suspend, unaffected by
/// clock steps); `bootID` is the kernel's random id of this boot, nil where the system
/// has none.
public enum BootClock {
    /// Seconds since this boot (CLOCK_BOOTTIME: it counts suspended time too).
    public static var seconds: Double {
        var spec = timespec()
        clock_gettime(CLOCK_BOOTTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// This boot's id (/proc/sys/kernel/random/boot_id), nil where there is none.
    public static var bootID: String? {
        guard let text = try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8) else {
            return nil
        }
        let id = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return id.isEmpty ? nil : id
    }
}
