/* policy-accepts.h: what a policy accepts, in words for a refusal's
 * "accepted" list (doc/verror.h), and which shipped policies would accept
 * what one refused. Frontend only. */
#ifndef HUTCH_POLICY_ACCEPTS_H
#define HUTCH_POLICY_ACCEPTS_H

#include "doc/policy.h"
#include "doc/request.h"
#include "doc/verror.h"

/* On the error added last: the network modes pol allows ("loopback"),
 * its request mount prefixes with their modes ("/srv (ro, rw)"), the
 * variables and prefixes a request may set ("LANG", "LC_*"). */
void policy_accept_network(struct verrors *e, const struct policy *pol);
void policy_accept_mounts(struct verrors *e, const struct policy *pol);
void policy_accept_env(struct verrors *e, const struct policy *pol);

/* May a request set the variable name under pol (env.allow, its
 * prefixes, allow_any)? narrow.c's rule, and --tty's for TERM. */
bool policy_env_allowed(const struct policy *pol, const char *name);

/* Does a request mount rule of pol allow m (its mode) from the canonical
 * source real? The one rule narrow.c applies, and the one used to name
 * the shipped policies that would take a refused bind. */
bool policy_takes_mount(const struct policy *pol, const char *real, const struct req_mount *m);

/* The shipped policies, by name: what `--policy NAME` can pick when the
 * policy in force refuses something. */
extern const char *const policy_shipped_names[];

/* When e's first error is a network mode or a request bind the policy
 * `current` refused (narrow's "not allowed by the policy" at /network or
 * /mounts/N), name on it each other shipped policy found by name that
 * would accept it (verror_allowed_by). Reads policy files; a policy that
 * cannot be loaded is left out. Nothing for any other error. */
void policy_accepts_elsewhere(struct verrors *e, const struct request *req, const char *current);

#endif
