/* probe.h: what this kernel can enforce, and the canary that proves a
 * policy's jail engages before its first run (cached per digest).
 * Frontend only. */
#ifndef HUTCH_PROBE_H
#define HUTCH_PROBE_H

#include <stddef.h>

#include "policy.h"

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

/* `hutch probe [--policy NAME] [--json]` */
int cmd_probe(int argc, char **argv);

#endif
