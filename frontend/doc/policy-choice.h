/* policy-choice.h: which policy a run gets. The caller decides: --policy
 * (a name or a file) and --allow-policies (the names a request document
 * may pick). A request's own "policy" is only ever a name, and without
 * --allow-policies it may name the caller's --policy or, when the caller
 * gave none, only "default": a document someone else wrote never picks a
 * wider policy than the caller chose. Frontend only. */
#ifndef HUTCH_POLICY_CHOICE_H
#define HUTCH_POLICY_CHOICE_H

#include "doc/policy.h"
#include "doc/policy-load.h"
#include "doc/verror.h"

struct policy_choice {
	const char *cli;	/* --policy NAME|FILE, or NULL */
	const char *allowed;	/* --allow-policies NAME[,NAME...], or NULL */
	const struct policy_cache *cache;	/* parsed policies kept, or NULL */
};

/* 0 when every name in the list is valid (and there is one at least),
 * else -EINVAL. */
int policy_choice_check_list(const char *allowed);

/* Load the policy for a request that named req_name (NULL: it named
 * none). Errors go to e with the pointer "/policy". */
int policy_choose(const struct policy_choice *c, const char *req_name, struct policy *ret,
		  struct verrors *e);

#endif
