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

#endif
