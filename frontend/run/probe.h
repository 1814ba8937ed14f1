/* probe.h: what this kernel can enforce, and the canary that proves a
 * policy's jail engages before its first run (cached per digest).
 * Frontend only. */
#ifndef HUTCH_PROBE_H
#define HUTCH_PROBE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#include "doc/policy.h"

/* The Landlock ABI the kernel offers, 0 when none. */
int probe_landlock_abi(void);

/* What the checks below return: 0 when the jail may be trusted, else one
 * of these negative errno values, each with why filled (mechanism, reason
 * and remedy, or the canary's finding). Callers tell the two apart, and
 * nothing else: sandbox_unavailable or sandbox_probe_failed. */
enum probe_result {
	PROBE_OK = 0,
	PROBE_UNAVAILABLE = -EOPNOTSUPP,	/* a mechanism the jail needs is missing */
	PROBE_FAILED = -EPROTO,			/* the jail ran but did not engage as it must,
						 * or the canary could not be run at all */
};

/* Every mechanism the policy requires is there: PROBE_OK, or
 * PROBE_UNAVAILABLE. */
int probe_requirements(const struct policy *pol, char *why, size_t cap);

/* The canary for this digest passed (cached) or passes now: PROBE_OK, else
 * PROBE_UNAVAILABLE or PROBE_FAILED. */
int probe_ensure(const struct policy *pol, const char *digest, char *why, size_t cap);

/* probe_forget, probe_generation: run/probe-verdict.h. */

/* Run the canary now, uncached: as probe_ensure. */
int probe_canary(const struct policy *pol, char *why, size_t cap);

/* The canary in steps, for an event loop (serve) that must not wait on
 * it: probe_cached says whether a verdict is cached (PROBE_OK, else
 * -ENOENT); probe_start starts the canary through fs (or not, NULL)
 * and gives *ret (PROBE_OK), or fails as probe_ensure with why filled;
 * probe_watch is its watch to attach to the loop; once watch_done says
 * so, probe_finish frees *ret and returns the verdict (cached when it
 * passed), with why filled when it did not. */
struct probe_run;
struct forkserver;
struct jail_watch;
int probe_cached(const char *digest);
int probe_start(const struct policy *pol, struct forkserver *fs, struct probe_run **ret,
		char *why, size_t cap);
struct jail_watch *probe_watch(struct probe_run *pr);
int probe_finish(struct probe_run *pr, const char *digest, char *why, size_t cap);

/* One row of `hutch probe`'s report. */
struct probe_mech {
	const char *name;
	bool available;
	char detail[320];
};

/* The kernel mechanisms the report lists, canary excluded. */
#define PROBE_MECHANISMS 7

/* Fill m[0..PROBE_MECHANISMS) with what this kernel offers; returns the
 * count. */
int probe_mechanisms(struct probe_mech *m);

/* probe-overlay.c: --overlay's mechanism, tried in a child: true when it
 * works; detail says what was found. */
bool probe_overlay(char *detail, size_t cap);

#endif
