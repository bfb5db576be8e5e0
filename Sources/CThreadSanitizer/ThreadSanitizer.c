/* ThreadSanitizer's annotations for the house lock (Platform's Lock): Swift's
 * Synchronization.Mutex waits on a futex on Linux, which ThreadSanitizer does not see, so
 * under `make test-tsan` every access made under it read as a race. Lock tells it the
 * acquire and release itself. The runtime's functions are weak: in a build without the
 * sanitizer they are absent and these calls do nothing. */
#include "CThreadSanitizer.h"

extern void __tsan_acquire(void *address) __attribute__((weak));
extern void __tsan_release(void *address) __attribute__((weak));

void airloc_tsan_acquire(const void *address) {
    if (__tsan_acquire) __tsan_acquire((void *)address);
}

void airloc_tsan_release(const void *address) {
    if (__tsan_release) __tsan_release((void *)address);
}
