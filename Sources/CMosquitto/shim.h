#ifndef AIRLOC_CMOSQUITTO_SHIM_H
#define AIRLOC_CMOSQUITTO_SHIM_H
#include <mosquitto.h>
#endif
