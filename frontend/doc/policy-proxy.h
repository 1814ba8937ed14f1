/* policy-proxy.h: a policy's network.proxy section (hutch-policy(5)): the
 * host patterns its jails may name, the list a run gets when it names
 * none, whether private destinations may be asked for, and the proxy's
 * limits. Pure. Frontend only. */
#ifndef HUTCH_POLICY_PROXY_H
#define HUTCH_POLICY_PROXY_H

#include <stdbool.h>

#include "doc/plan.h"
#include "doc/verror.h"

struct json_object;

struct policy_proxy {
	struct plan_proxy lim;	/* allow: what requests may name; the limits */
	char **def;		/* the list of a run that names none */
	size_t n_def;
};

/* Defaults of a policy that allows "proxy" without a section. */
void policy_proxy_init(struct policy_proxy *pp);

/* Parse the section at "/network/proxy" into *pp (init'ed), recording
 * every problem in e (policy_invalid). */
void policy_proxy_parse(struct json_object *obj, struct policy_proxy *pp, struct verrors *e);

/* Its canonical form (every member, fixed order); NULL on no memory. */
struct json_object *policy_proxy_json(const struct policy_proxy *pp);

void policy_proxy_free(struct policy_proxy *pp);

#endif
