#ifndef AIRLOC_CSQLITE_SHIM_H
#define AIRLOC_CSQLITE_SHIM_H
#include <sqlite3.h>
#endif
