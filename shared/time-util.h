/* time-util.h: the one clock deadlines are measured on. Both binaries
 * may link it; pure apart from clock_gettime. */
#ifndef HUTCH_TIME_UTIL_H
#define HUTCH_TIME_UTIL_H

#include <stdint.h>

/* CLOCK_MONOTONIC in milliseconds: never steps with the wall clock. */
uint64_t time_now_ms(void);

#endif
