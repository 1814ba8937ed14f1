/* masks.h: masks inside the request's binds, resolved when the jail is
 * planned: the policy's hide and read_only patterns (doc/mask-pattern.h)
 * matched against the bound host trees, walked without following any
 * link and within MASKS_MAX_DEPTH and MASKS_MAX_ENTRIES, and the
 * request's own "hide" paths (--hide). Frontend only. */
#ifndef HUTCH_MASKS_H
#define HUTCH_MASKS_H

#include <stdatomic.h>

#include "doc/plan.h"
#include "doc/policy.h"
#include "doc/request.h"
#include "doc/verror.h"

#define MASKS_MAX 96u		/* spec records: pins, read-only and hidden paths */
#define MASKS_MAX_DEPTH 32u	/* directories below a bind's root */
#define MASKS_MAX_ENTRIES 200000u	/* directory entries looked at, all binds */

/* Fill p->masks and p->masks_report from the request's binds (p->mounts,
 * already checked). -EINVAL with e filled when a "hide" path is not inside
 * a bind or is a link, or when a match is past the count bound (MASKS_MAX,
 * MASKS_MAX_INODES) or when the walk reaches its depth or entries bound
 * or a jail path longer than a mask can name (what lies beyond would not
 * be masked); -ENOMEM. */
int masks_resolve(const struct request *req, const struct policy *pol, struct plan *p,
		  struct verrors *e);
/* The same, stopping with -ECANCELED at the next directory entry once
 * *cancel is set (cancel NULL: never): serve walks on a thread of its own
 * (run/offload.h), with req, pol and p left to it meanwhile. narrow()
 * leaves the walk to the caller when req->origin says masks_later. */
int masks_resolve_cancellable(const struct request *req, const struct policy *pol,
			      struct plan *p, struct verrors *e, const atomic_bool *cancel);

#endif
