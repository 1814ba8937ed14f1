/* policy-review.h: the grants of a valid policy a security reviewer would
 * want flagged (`hutch policy check` prints them as warnings). Frontend
 * only; pure. */
#ifndef HUTCH_POLICY_REVIEW_H
#define HUTCH_POLICY_REVIEW_H

#include <stddef.h>

#include "doc/policy.h"

#define POLICY_REVIEW_MAX 32

struct policy_warning {
	char pointer[96];	/* the member that grants it: "/mounts/0" */
	char words[224];	/* what it grants, and why that matters */
};

/* Fill w (at most cap) with p's flagged grants, in the policy's order:
 * a request bind writable at or below /, /etc, /home or /root; the host
 * network allowed; env.allow_any; executables from writable places
 * (writable_exec, or request_exec with a writable bind rule); seccomp not
 * among the requirements (the jail may then run unfiltered). Returns how
 * many there are (more than cap when some were left out). */
size_t policy_review(const struct policy *p, struct policy_warning *w, size_t cap);

#endif
