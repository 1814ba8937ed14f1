/* policy-accepts.c: what a policy accepts, in words, and which shipped
 * policies would accept a refused network mode or bind (see
 * policy-accepts.h). Frontend only. */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "doc/path-util.h"
#include "doc/policy-accepts.h"
#include "doc/policy-load.h"

const char *const policy_shipped_names[] = { "default", "strict", "network", "build", "convert",
					     NULL };

void policy_accept_network(struct verrors *e, const struct policy *pol)
{
	for (size_t m = 0; m < sizeof(pol->net_allowed) / sizeof(pol->net_allowed[0]); m++)
		if (pol->net_allowed[m])
			verror_accept(e, "%s", net_mode_name((enum net_mode)m));
}

void policy_accept_mounts(struct verrors *e, const struct policy *pol)
{
	if (pol->n_mount_rules == 0)
		verror_accept(e, "no request binds (the policy allows none)");
	for (size_t k = 0; k < pol->n_mount_rules; k++) {
		const struct policy_mount_rule *rule = &pol->mount_rules[k];

		char modes[32] = "";

		if (rule->ro)
			strcat(modes, "ro");
		if (rule->rw)
			strcat(modes, *modes ? ", rw" : "rw");
		if (rule->overlay)
			strcat(modes, *modes ? ", overlay" : "overlay");
		verror_accept(e, "%s (%s)", rule->prefix, modes);
	}
}

void policy_accept_env(struct verrors *e, const struct policy *pol)
{
	if (pol->env_allow_any) {
		verror_accept(e, "any variable name");
		return;
	}
	if (pol->n_env_allow + pol->n_env_allow_prefixes == 0)
		verror_accept(e, "no variables (the policy allows none)");
	for (size_t i = 0; i < pol->n_env_allow; i++)
		verror_accept(e, "%s", pol->env_allow[i]);
	for (size_t i = 0; i < pol->n_env_allow_prefixes; i++)
		verror_accept(e, "%s*", pol->env_allow_prefixes[i]);
}

bool policy_env_allowed(const struct policy *pol, const char *name)
{
	if (pol->env_allow_any) /* the request parser checked the name is one */
		return true;
	for (size_t i = 0; i < pol->n_env_allow; i++)
		if (strcmp(pol->env_allow[i], name) == 0)
			return true;
	for (size_t i = 0; i < pol->n_env_allow_prefixes; i++)
		if (strncmp(name, pol->env_allow_prefixes[i], strlen(pol->env_allow_prefixes[i])) == 0)
			return true;
	return false;
}

bool policy_takes_mount(const struct policy *pol, const char *real, const struct req_mount *m)
{
	for (size_t k = 0; k < pol->n_mount_rules; k++) {
		const struct policy_mount_rule *rule = &pol->mount_rules[k];

		if (path_at_or_below(real, rule->prefix) &&
		    (m->overlay ? rule->overlay : m->rw ? rule->rw : rule->ro))
			return true;
	}
	return false;
}

void policy_accepts_elsewhere(struct verrors *e, const struct request *req, const char *current)
{
	const struct verror *v = e->n ? &e->items[0] : NULL;
	const struct req_mount *m = NULL;
	char real[PATH_MAX];
	unsigned long i;
	char *end;

	if (!v || strcmp(v->reason, "not allowed by the policy") != 0)
		return;
	if (strncmp(v->pointer, "/mounts/", 8) == 0) {
		i = strtoul(v->pointer + 8, &end, 10);
		if (*end || i >= req->n_mounts || !realpath(req->mounts[i].source, real))
			return;
		m = &req->mounts[i];
	} else if (strcmp(v->pointer, "/network") != 0 || !req->network_set) {
		return;
	}
	for (size_t k = 0; policy_shipped_names[k]; k++) {
		struct verrors ignored = { 0 };
		struct policy pol = { 0 };
		bool takes;

		if (current && strcmp(current, policy_shipped_names[k]) == 0)
			continue;
		if (policy_load(policy_shipped_names[k], &pol, &ignored) < 0)
			continue;
		takes = m ? policy_takes_mount(&pol, real, m) : pol.net_allowed[req->network];
		policy_free(&pol);
		if (takes)
			verror_allowed_by(e, policy_shipped_names[k]);
	}
}
