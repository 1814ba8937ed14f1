/* policy-extends.h: policies that build on each other ("extends", see
 * hutch-policy(5)). A JSON-level pass before policy.c's validator: it
 * loads the chain of parents (by name from the search directories, or by
 * a path with a slash), merges it member by member, and validates each
 * level from the base down, so every parent is a valid policy on its own
 * and every error names the file and the pointer in that file that
 * supplied the member. Frontend only. */
#ifndef HUTCH_POLICY_EXTENDS_H
#define HUTCH_POLICY_EXTENDS_H

#include <stddef.h>
#include <sys/types.h>

#include "doc/policy.h"
#include "doc/verror.h"

/* Policy files in one chain, counting the policy itself. */
#define POLICY_CHAIN_MAX 8

/* Where a policy file's text came from. */
struct policy_source {
	const char *shown;	/* its path, as messages name it (absolute) */
	dev_t dev;		/* identity, for cycles */
	ino_t ino;
	int dir_index;		/* the search directory it was found in; -1: by path */
};

/* Parse a policy file's text, resolving "extends". A file without it is
 * exactly policy_parse(). Errors carry the file (verror.file) and the
 * pointer in that file. 0, or -EINVAL with e filled. */
int policy_resolve(const char *text, size_t len, const char *name,
		   const struct policy_source *src, struct policy *ret, struct verrors *e);

/* Why name_or_path was not found, as one line for a message: a name and
 * the directories searched, or that a path does not exist. Never the
 * text of an argument that is not a valid policy name or a path. */
const char *policy_missing_reason(const char *name_or_path);

#endif
