#ifndef AIRLOC_CGPS_SHIM_H
#define AIRLOC_CGPS_SHIM_H
#include <gps.h>
#include <errno.h>

// gps_send is variadic, which Swift cannot call: send one preformatted command.
static inline int airloc_gps_send(struct gps_data_t *data, const char *command) {
    return gps_send(data, "%s", command);
}

// errno is a macro on glibc; Swift sees it only through a function.
static inline int airloc_errno(void) { return errno; }
static inline void airloc_clear_errno(void) { errno = 0; }

#endif
