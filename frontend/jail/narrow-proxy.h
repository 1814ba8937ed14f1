/* narrow-proxy.h: network "proxy" under a policy: the request's
 * allow_hosts, each covered by the policy's network.proxy.allow, or the
 * policy's default list; allow_private only where the policy lets a run
 * ask; the proxy variables in the jail's environment. Pure. Frontend only. */
#ifndef HUTCH_NARROW_PROXY_H
#define HUTCH_NARROW_PROXY_H

#include "doc/plan.h"
#include "doc/policy.h"
#include "doc/request.h"
#include "doc/verror.h"

/* Fills p->proxy and adds to p->envp (built already) when p->network is
 * NET_PROXY; refuses allow_hosts and allow_private otherwise. 0, -EINVAL
 * with e filled (policy_violation naming the pattern), or -ENOMEM. */
int narrow_proxy(const struct request *req, const struct policy *pol, struct plan *p,
		 struct verrors *e);

/* The variables a proxy jail gets, "NAME=value", NULL-terminated. */
extern const char *const narrow_proxy_env[];

#endif
