import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension Pipe {
    /// A pipe whose two ends are closed in every program started later (`FD_CLOEXEC`),
    /// except where a child is handed an end as its stdin/stdout/stderr.
    ///
    /// Foundation's `Pipe()` leaves both ends open across exec, so every fixture started
    /// meanwhile by a test running in parallel (a gpsfake, the JSON Schema checker, which
    /// lives as long as the test process) kept a copy of the write end: the reader never
    /// saw end-of-file, and a finished command's output was waited for 120 s.
    public static func privateToThisProcess() -> Pipe {
        let pipe = Pipe()
        for descriptor in [pipe.fileHandleForReading.fileDescriptor, pipe.fileHandleForWriting.fileDescriptor] {
            _ = fcntl(descriptor, F_SETFD, fcntl(descriptor, F_GETFD) | FD_CLOEXEC)
        }
        return pipe
    }
}
