/* policy-internal.h: what policy.c, policy-sections.c and
 * policy-canonical.c share, internal to doc/'s policy files: the words of
 * a policy's enums (defined in policy.c), read by the parsers and written
 * by the canonical form, and the parse of its sections (policy-sections.c).
 * A header of its own, so that neither .c's module includes the other's.
 * Frontend only. */
#ifndef HUTCH_POLICY_INTERNAL_H
#define HUTCH_POLICY_INTERNAL_H

#include "doc/plan.h"
#include "doc/verror.h"

struct json_object;
struct policy;

/* By enum value (policy.c). A definition's count must match these, or
 * its type conflicts with this declaration. */
#define N_REQUIREMENTS 6
extern const char *const policy_net_names[NET_MODES];
extern const char *const policy_seccomp_names[2];
extern const char *const policy_landlock_names[3];
extern const char *const policy_requirement_names[N_REQUIREMENTS]; /* by enum requirement bit */

/* A policy being parsed and where its problems go. */
struct policy_ctx {
	struct verrors *e;
	struct policy *p;
};

/* Every section after version and description, in the order of
 * hutch-policy(5), each problem added to c->e (policy-sections.c). */
void policy_parse_sections(struct policy_ctx *c, struct json_object *root);

#endif
