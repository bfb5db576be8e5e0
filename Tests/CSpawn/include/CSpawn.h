// The two GNU extensions the test harness's spawner needs, which Swift's Glibc module
// does not show (it is built without _GNU_SOURCE): closing every descriptor from one on
// in the child, and a pipe made close-on-exec in one step.
#ifndef AIRLOC_CSPAWN_H
#define AIRLOC_CSPAWN_H

#include <spawn.h>

int airloc_spawn_addclosefrom(posix_spawn_file_actions_t *actions, int from);
int airloc_pipe_cloexec(int ends[2]);

#endif
