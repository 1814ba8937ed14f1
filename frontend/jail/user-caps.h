/* user-caps.h: the per-user kernel counts one jail may take (spec.h,
 * enum hutch_user_cap), sized so that every jail the caller may run at
 * once leaves the caller at least half of its own quota (hutch(1),
 * "Per-user counts"). Frontend only. */
#ifndef HUTCH_USER_CAPS_H
#define HUTCH_USER_CAPS_H

#include <stdbool.h>
#include <stdint.h>

#include "spec.h"

/* How many jails of one caller hutch sizes for when nothing says more:
 * concurrent `hutch run` invocations of one user (hutch(1)). */
#define USER_CAPS_CLI_CONCURRENCY 4u

/* The most a jail gets, whatever the quota: 32 inotify instances, 16384
 * watches, 64 KiB of message queues, 1024 pending signals. */
extern const uint64_t user_caps_ceiling[HUTCH_UCAP_COUNT];

/* Pure: each cap is min(ceiling, quota / (2 * concurrency)); a quota of
 * UINT64_MAX is unlimited. concurrency 0 counts as 1. */
void user_caps_from_quota(const uint64_t quota[HUTCH_UCAP_COUNT], unsigned concurrency,
			  uint64_t ret[HUTCH_UCAP_COUNT]);

/* The inotify quotas as last read, for a caller that sizes many jails
 * (serve): read again once they are USER_CAPS_MEMO_MS old. Zeroed: none
 * read yet. */
#define USER_CAPS_MEMO_MS 1000u
struct user_caps_memo {
	uint64_t read_ms;	/* time_now_ms() of the read; 0: never */
	uint64_t inotify[2];	/* instances, watches */
};

/* For this caller: a root caller's jail runs as host ids of its own
 * (host-ids.h), whose quota no other jail shares: the ceilings. Anyone
 * else's jails share the caller's quota, read from /proc/sys and our
 * rlimits (one unreadable counts as 0: no share); memo NULL reads the
 * /proc/sys quotas now, else at most once in USER_CAPS_MEMO_MS. */
void user_caps_size(bool own_host_ids, unsigned concurrency, struct user_caps_memo *memo,
		    uint64_t ret[HUTCH_UCAP_COUNT]);

#endif
