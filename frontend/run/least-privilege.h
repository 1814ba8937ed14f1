/* least-privilege.h: what the frontend keeps of its capabilities once the
 * helper (or serve's forkserver) runs, and the dropping of the rest with
 * libcap-ng. Everything that needs privilege (namespaces, id maps,
 * idmapped mounts, the jail user's ids) is the helper's, done in its own
 * process; after it starts, a frontend run as root only parses, watches
 * and collects, and keeps only what that needs (least_privilege_kept, the
 * one list hutch probe and hutch(1) show). The helper never links
 * libcap-ng: it empties its sets with capset(2) itself. Frontend only. */
#ifndef HUTCH_LEAST_PRIVILEGE_H
#define HUTCH_LEAST_PRIVILEGE_H

#include <stddef.h>

struct kept_cap {
	unsigned cap;		/* CAP_... */
	const char *name;	/* "cap_sys_ptrace" */
	const char *why;	/* what the frontend does with it */
};

/* The kept capabilities; their number. */
size_t least_privilege_kept(const struct kept_cap **ret);

/* Drop every capability but the kept ones from the effective, permitted,
 * inheritable and ambient sets, and from the bounding set too when we
 * may (CAP_SETPCAP: root), so that no later exec regains them. 0 when
 * done or when there was nothing to drop (an unprivileged caller), else
 * -errno: the caller fails closed. */
int least_privilege_drop(void);

#endif
