/* time-util.c: see time-util.h. */
#include "config.h"

#include <time.h>

#include "time-util.h"

uint64_t time_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

uint64_t time_add_ms(uint64_t at, uint64_t ms)
{
	return ms > UINT64_MAX - at ? UINT64_MAX : at + ms;
}
