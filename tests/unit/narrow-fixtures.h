/* narrow-fixtures.h: what the narrowing unit tests (test-narrow.c,
 * test-narrow-mounts.c) share: a policy whose limits sit near their floor,
 * a request narrowed under it, and the check of a refusal
 * (narrow-fixtures.c). Helpers assert with CUnit; include after
 * cunit-main.h. */
#ifndef HUTCH_NARROW_FIXTURES_H
#define HUTCH_NARROW_FIXTURES_H

#include <stdint.h>

#include "errors.h"
#include "jail/narrow.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define VIOLATION HUTCH_ERR_POLICY_VIOLATION
#define INV HUTCH_ERR_INVALID_REQUEST

/* A request: what every one needs, then more members. */
#define R(members) "{\"version\":1,\"argv\":[\"/bin/true\"]" members "}"

/* ---- the policy under test ---- */

/* Each limit's default and maximum: near its floor, so max + 1 is still
 * a value any request may name. */
uint64_t lim_def(int i);
uint64_t lim_max(int i);

/* A policy with the given request mount rules (a JSON array). */
void make_policy(const char *mount_rules, struct policy *ret);

/* ---- running narrow ---- */

/* Parse a request (it must be valid), narrow it: the return code. */
int narrow_fmt(const struct policy *pol, struct plan *plan, struct verrors *e, const char *fmt,
	       ...) __attribute__((format(printf, 4, 5)));

/* Narrowing refused with exactly one error, code at pointer, and left the
 * plan alone; what names the case on stderr when it did not. */
void expect_fail(int rc, const struct plan *plan, const struct verrors *e, enum hutch_err code,
		 const char *pointer, const char *what);

#endif
