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
/// ``limitArenas(_:)`` keeps glibc from giving each of a service's many short threads
/// (``BlockingWork``: one per blocking call) an arena of its own, whose free memory no other
/// thread reuses: a service's resident size then follows what it holds.
public enum MemoryRelease {
    /// At most `count` malloc arenas for the whole process (`mallopt(M_ARENA_MAX)`), called
    /// once at a service's start, before its threads allocate.
    public static func limitArenas(_ count: Int32 = 2) {
        #if canImport(Glibc)
            guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
            let mallopt = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
            // M_ARENA_MAX (malloc.h).
            _ = mallopt(-8, count)
        #endif
    }

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
