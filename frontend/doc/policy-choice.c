/* policy-choice.c: see policy-choice.h. Frontend only. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "doc/policy-choice.h"
#include "doc/policy-extends.h"
#include "doc/policy-load.h"

#define VIOLATION HUTCH_ERR_POLICY_VIOLATION

/* The i-th name of a comma-separated list into buf (empty when too long);
 * false past the end. */
static bool list_item(const char *list, size_t i, char buf[POLICY_NAME_MAX + 1])
{
	const char *p = list;
	size_t n;

	for (; i > 0; i--) {
		if (!(p = strchr(p, ',')))
			return false;
		p++;
	}
	n = strcspn(p, ",");
	if (n > POLICY_NAME_MAX)
		n = 0;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return true;
}

int policy_choice_check_list(const char *allowed)
{
	char name[POLICY_NAME_MAX + 1];
	size_t i = 0;

	for (; list_item(allowed, i, name); i++)
		if (!policy_name_valid(name))
			return -EINVAL;
	return i > 0 ? 0 : -EINVAL;
}

static bool in_list(const char *list, const char *name)
{
	char item[POLICY_NAME_MAX + 1];

	for (size_t i = 0; list_item(list, i, item); i++)
		if (strcmp(item, name) == 0)
			return true;
	return false;
}

static int load(const struct policy_choice *c, const char *which, struct policy *ret,
		struct verrors *e)
{
	int r = policy_load_cached(which, c->cache, ret, e);

	if (r < 0 && e->n == 0)
		verror_add(e, HUTCH_ERR_POLICY_INVALID, "/policy",
			   r == -ENOENT ? policy_missing_reason(which) : "cannot be read");
	return r;
}

/* A document that names a policy when the caller pinned none: only
 * "default" (the document's author is not the caller; issue 19 item 5). */
static int refuse_unpinned(const char *req_name, struct verrors *e)
{
	char msg[POLICY_NAME_MAX + 160];
	const char *kept;

	snprintf(msg, sizeof(msg),
		 "asks for policy \"%s\"; without --policy or --allow-policies a request may "
		 "name only \"default\" (--allow-policies %s allows it)", req_name, req_name);
	/* The error keeps a pointer to its reason: the words must outlive us. */
	kept = verror_intern(msg);
	return verror_add(e, VIOLATION, "/policy",
			  kept ? kept
			       : "without --policy or --allow-policies a request may name only "
				 "\"default\"");
}

int policy_choose(const struct policy_choice *c, const char *req_name, struct policy *ret,
		  struct verrors *e)
{
	char first[POLICY_NAME_MAX + 1];
	const char *pick = c->cli;
	int r;

	if (req_name && c->allowed && in_list(c->allowed, req_name))
		pick = req_name;
	else if (req_name && c->allowed && !c->cli)
		return verror_add(e, VIOLATION, "/policy",
				  "not one of the policies the caller allows (--allow-policies)");
	else if (req_name && !c->cli && strcmp(req_name, "default") != 0)
		return refuse_unpinned(req_name, e);
	else if (!c->cli && c->allowed && list_item(c->allowed, 0, first))
		pick = first;
	else if (!c->cli)
		pick = "default";
	r = load(c, pick, ret, e);
	/* The caller's own --policy, under whatever name the request gave. */
	if (r == 0 && req_name && strcmp(req_name, ret->name) != 0) {
		policy_free(ret);
		return verror_add(e, VIOLATION, "/policy",
				  c->allowed ? "neither the caller's --policy nor one it allows"
					     : "differs from the caller's --policy");
	}
	return r;
}
