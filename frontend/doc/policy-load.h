/* policy-load.h: a policy by name or by path, with the parents it
 * extends. The one place policy files are found and opened: the search
 * directories (policy.h), a regular file of at most POLICY_MAX_BYTES,
 * then policy-extends.h's resolution. Frontend only. */
#ifndef HUTCH_POLICY_LOAD_H
#define HUTCH_POLICY_LOAD_H

#include "doc/policy.h"
#include "doc/verror.h"

/* By name (searching the admin then the shipped directory, or
 * $HUTCH_POLICY_PATH) or by path (anything with a '/'). A file that says
 * "extends" is resolved with its parents (policy-extends.h). -ENOENT when
 * no such policy; -EINVAL with e filled when it is invalid. */
int policy_load(const char *name_or_path, struct policy *ret, struct verrors *e);

/* Parsed policies kept by the identity of their file (jail/policy-cache.c
 * keeps them where no jail can write). get: 0 and *ret when there is one
 * for this name, this file and st (device, inode, size, mtime and ctime,
 * compared in full); put: keep p. Only files without "extends" go
 * through it: a parent's change would not show in the child's identity. */
struct stat;
struct policy_cache {
	int (*get)(void *ctx, const char *name, const char *file, const struct stat *st,
		   struct policy *ret);
	void (*put)(void *ctx, const char *name, const char *file, const struct stat *st,
		    const struct policy *p);
	void *ctx;
};

/* policy_load, through cache when it is not NULL. */
int policy_load_cached(const char *name_or_path, const struct policy_cache *cache,
		       struct policy *ret, struct verrors *e);

#endif
