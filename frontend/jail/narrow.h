/* narrow.h: a request under a policy becomes a plan. A request can only
 * narrow: a limit above the policy's maximum, a mount or network mode or
 * variable the policy does not allow is policy_violation naming the field.
 * Frontend only. */
#ifndef HUTCH_NARROW_H
#define HUTCH_NARROW_H

#include "doc/plan.h"
#include "doc/policy.h"
#include "doc/request.h"
#include "doc/verror.h"

/* Takes what it needs from req (which stays the caller's). Writes *ret
 * only on success; -EINVAL with e filled otherwise. */
int narrow(const struct request *req, const struct policy *pol, struct plan *ret,
	   struct verrors *e);

/* Is target a place a request bind may go? Not "/", not in /proc, /dev,
 * /etc or a policy bind, not the work dir or /tmp themselves. */
bool narrow_target_ok(const struct policy *pol, const char *target);

#endif
