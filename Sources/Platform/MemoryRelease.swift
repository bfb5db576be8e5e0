#if canImport(Glibc)
    import Glibc
#endif

/// Memory a long-running service freed, given back to the system.
///
/// Why: glibc's allocator keeps freed memory for the process (above all what many small
/// allocations left between live ones), so a service that once held many things (a burst
/// of made-up device ids at the collector) would keep its peak resident size for good.
/// ``trim()`` asks it to return what it can (`malloc_trim(0)`); it costs a walk of the heap,
/// so it is called when a service has just forgotten a lot, not on a timer.
public enum MemoryRelease {
    /// Returns the allocator's free memory to the system where it can.
    public static func trim() {
        #if canImport(Glibc)
            // Not in the Glibc module's headers: found in the C library already loaded.
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
            let mallocTrim = unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
            _ = mallocTrim(0)
        #endif
    }
}
