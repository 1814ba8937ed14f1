/* probe.h: what this kernel can enforce, and the canary that proves a
 * policy's jail engages before its first run (cached per digest).
 * Frontend only. */
#ifndef HUTCH_PROBE_H
#define HUTCH_PROBE_H

#include <stdbool.h>
#include <stddef.h>

#include "doc/policy.h"

/* The Landlock ABI the kernel offers, 0 when none. */
int probe_landlock_abi(void);

/* Every mechanism the policy requires is there: 0, or -1 with why
 * (mechanism, reason and remedy) filled. */
int probe_requirements(const struct policy *pol, char *why, size_t cap);

/* The canary for this digest passed (cached) or passes now: 0. Else
 * PROBE_UNAVAILABLE when a mechanism the jail needs is missing (why names
 * it and the remedy), or PROBE_FAILED when the jail ran but did not
 * engage as it must. */
#define PROBE_FAILED (-1)
#define PROBE_UNAVAILABLE (-2)
int probe_ensure(const struct policy *pol, const char *digest, char *why, size_t cap);

/* Run the canary now, uncached: 0, PROBE_UNAVAILABLE or PROBE_FAILED,
 * as probe_ensure. */
int probe_canary(const struct policy *pol, char *why, size_t cap);

/* One row of `hutch probe`'s report. */
struct probe_mech {
	const char *name;
	bool available;
	char detail[320];
};

/* The kernel mechanisms the report lists, canary excluded. */
#define PROBE_MECHANISMS 6

/* Fill m[0..PROBE_MECHANISMS) with what this kernel offers; returns the
 * count. */
int probe_mechanisms(struct probe_mech *m);

#endif
