#define _GNU_SOURCE
#include "CSpawn.h"

#include <fcntl.h>
#include <unistd.h>

int airloc_spawn_addclosefrom(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

int airloc_pipe_cloexec(int ends[2]) { return pipe2(ends, O_CLOEXEC); }
