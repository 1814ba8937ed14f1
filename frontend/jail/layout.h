/* layout.h: a plan becomes the spec hutch-exec enacts: the filesystem
 * layout (in mount order), namespaces, ids, rlimits, env, argv and the
 * seccomp program. Frontend only. */
#ifndef HUTCH_LAYOUT_H
#define HUTCH_LAYOUT_H

#include <stdbool.h>

#include "hutch-abi.h"
#include "spec.h"
#include "doc/plan.h"

struct layout {
	struct spec sp;
	struct spec_mount mounts[HUTCH_SPEC_MAX_MOUNTS];
	char *strings[2 * HUTCH_SPEC_MAX_MOUNTS + 8];	/* owned, freed by layout_free */
	unsigned n_strings;
	uint8_t *filter;	/* owned once layout_build succeeded */
	bool is_root;		/* the caller is root: --rw binds are idmapped */
	int bind_fds[HUTCH_BIND_FDS_MAX];	/* the HUTCH_MF_FD binds' descriptors,
						 * in mount order (borrowed) */
	size_t n_bind_fds;
	/* The leading mounts that are the policy's, the same for every
	 * request of this policy and plan (the policy's binds, the /usr
	 * links, /etc, /proc, /dev, /tmp, the work dir unless its tmpfs is
	 * sent back): `hutch serve --pool` builds them ahead
	 * (run/forkserver.c, hutch-exec(8) FORKSERVER). Only kinds a jail
	 * can build before its job: no bind of a descriptor, no idmap, no
	 * tmpfs sent on the control socket. */
	uint32_t n_prefix;
};

/* Fill *ret from plan. is_root: the caller's euid is 0. *filter and
 * filter_len: the compiled seccomp program (filter NULL or *filter NULL:
 * none). The filter changes hands only on success: then the layout owns
 * it and *filter is NULL; on failure *filter is untouched and still the
 * caller's, and *ret holds nothing to free. Returns 0, -E2BIG (more than
 * HUTCH_SPEC_MAX_MOUNTS mounts), -ENOMEM. The spec points into the plan:
 * it must outlive the layout. */
int layout_build(const struct plan *plan, bool is_root, uint8_t **filter, size_t filter_len,
		 struct layout *ret);
/* Free what the layout owns (its strings and the filter); idempotent. */
void layout_free(struct layout *l);

#endif
