/* time-util.h: the one clock deadlines are measured on. Both binaries
 * may link it; pure apart from clock_gettime. */
#ifndef HUTCH_TIME_UTIL_H
#define HUTCH_TIME_UTIL_H

#include <stdint.h>

/* CLOCK_MONOTONIC in milliseconds: never steps with the wall clock. */
uint64_t time_now_ms(void);

/* at + ms, saturating at UINT64_MAX ("never"): every duration added to
 * a clock goes through here, so a huge one (--lifetime 2^64-1) means
 * never, not a deadline that wrapped into the past. */
uint64_t time_add_ms(uint64_t at, uint64_t ms);

#endif
