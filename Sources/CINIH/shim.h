#ifndef AIRLOC_CINIH_SHIM_H
#define AIRLOC_CINIH_SHIM_H
#include <ini.h>
#endif
