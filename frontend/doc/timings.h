/* timings.h: a run's jail.timings (hutch(1), RESULT DOCUMENT): the
 * frontend's own steps, marked as they end, and the helper's record
 * (shared/timings-record.h) when pid 1 sent one. Every step is the time from the
 * end of the one before it, on CLOCK_MONOTONIC, so the steps tile the run
 * from the request to the target's execve: their sum is never more than
 * its wall time. Frontend only. */
#ifndef HUTCH_DOC_TIMINGS_H
#define HUTCH_DOC_TIMINGS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "timings-record.h"

enum timing_front {
	TIMING_REQUEST,		/* the request document read and checked */
	TIMING_POLICY,		/* the policy found, loaded, its digest */
	TIMING_PLAN,		/* the request narrowed into the plan */
	TIMING_PROBE,		/* the probe gate (a cached verdict, or the canary) */
	TIMING_SPEC,		/* cgroup, seccomp program, layout, spec encoded */
	TIMING_SPAWN,		/* to the helper holding the spec: fork, exec, read */
	TIMING_FRONT_MAX
};

struct jail_timings {
	uint64_t last_ns;		/* when the last step ended; 0 before any */
	uint64_t front_ns[TIMING_FRONT_MAX];
	unsigned front_have;		/* 1u << enum timing_front, per step marked */
	struct hutch_timings helper;	/* pid 1's record */
	bool have_helper;
};

uint64_t timings_now_ns(void);

/* Start the clock: the next mark's step starts now. */
void timings_begin(struct jail_timings *t);

/* Step s ended now: charge it the time since the last mark (none before
 * timings_begin: then nothing is charged). */
void timings_mark(struct jail_timings *t, enum timing_front s);

/* pid 1's record, as read off the control socket: checked (size, magic,
 * step count), then the spawn step is charged from our last mark to the
 * helper's start. Returns 0, or -EBADMSG for something else. */
int timings_take_record(struct jail_timings *t, const void *buf, size_t len);

/* Add what src has (the run's) to dst (the command's steps before it). */
void timings_merge(struct jail_timings *dst, const struct jail_timings *src);

/* {"request_us": ..., ..., "exec_us": ...}: the steps there are, in
 * microseconds; NULL when there are none (or no memory). */
struct json_object *timings_json(const struct jail_timings *t);

/* The key of a step, "clone_us", for tests and bench/profile.sh. */
const char *timings_helper_key(unsigned step);

#endif
