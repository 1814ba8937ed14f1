/* policy-review.c: the grants a reviewer would flag (see
 * policy-review.h). Frontend only; pure. */
#include "config.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "doc/path-util.h"
#include "doc/policy-review.h"

struct review {
	struct policy_warning *w;
	size_t cap, n;
};

static void __attribute__((format(printf, 3, 4)))
flag(struct review *rv, const char *pointer, const char *fmt, ...)
{
	va_list ap;

	if (rv->n < rv->cap) {
		snprintf(rv->w[rv->n].pointer, sizeof(rv->w[rv->n].pointer), "%s", pointer);
		va_start(ap, fmt);
		vsnprintf(rv->w[rv->n].words, sizeof(rv->w[rv->n].words), fmt, ap);
		va_end(ap);
	}
	rv->n++;
}

/* The host places whose writing changes the host itself: its
 * configuration and its users' homes (dotfiles run at every login). */
static const char *sensitive(const char *prefix)
{
	static const char *const places[] = { "/etc", "/home", "/root", NULL };

	if (strcmp(prefix, "/") == 0)
		return "/";
	for (size_t i = 0; places[i]; i++)
		if (path_at_or_below(prefix, places[i]))
			return places[i];
	return NULL;
}

static void review_mounts(const struct policy *p, struct review *rv, bool *any_rw)
{
	char ptr[96];

	for (size_t k = 0; k < p->n_mount_rules; k++) {
		const char *place;

		if (!p->mount_rules[k].rw)
			continue;
		*any_rw = true;
		place = sensitive(p->mount_rules[k].prefix);
		snprintf(ptr, sizeof(ptr), "/mounts/%zu", k);
		if (place && strcmp(place, "/") != 0 && strcmp(place, p->mount_rules[k].prefix) == 0)
			flag(rv, ptr, "requests may bind %s writable (rw): a jailed command may "
			     "change the host there", place);
		else if (place)
			flag(rv, ptr, "requests may bind %s writable (rw), which is %s: a jailed "
			     "command may change the host there", p->mount_rules[k].prefix,
			     strcmp(place, "/") == 0 ? "the whole host" : place);
	}
}

size_t policy_review(const struct policy *p, struct policy_warning *w, size_t cap)
{
	struct review rv = { .w = w, .cap = cap };
	bool any_rw = false;

	review_mounts(p, &rv, &any_rw);
	if (p->net_allowed[NET_HOST])
		flag(&rv, "/network/allow", "host is allowed: the jail may share the host's network "
		     "stack, its loopback services included");
	if (p->env_allow_any)
		flag(&rv, "/env/allow_any", "a request may set any variable (LD_PRELOAD, "
		     "PYTHONPATH...), not only those env.allow names");
	if (p->writable_exec)
		flag(&rv, "/filesystem/writable_exec", "the work dir and /tmp are executable: a "
		     "command may run what it wrote or was given");
	if (p->request_exec && any_rw)
		flag(&rv, "/filesystem/request_exec", "request binds are executable and some may "
		     "be writable: a command may run what it wrote to the host");
	if (!(p->requires & REQ_SECCOMP))
		flag(&rv, "/requires", "seccomp is not required: on a host without it the jail "
		     "runs with no system call filter");
	return rv.n;
}
