#ifndef AIRLOC_CTHREADSANITIZER_H
#define AIRLOC_CTHREADSANITIZER_H

/* Tells ThreadSanitizer, when the program runs under it, that a lock was taken or let go
 * at `address`; does nothing otherwise (see ThreadSanitizer.c). */
void airloc_tsan_acquire(const void *address);
void airloc_tsan_release(const void *address);

#endif
