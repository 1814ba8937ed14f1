/* narrow-proxy.c: network "proxy" under a policy (see narrow-proxy.h).
 * Pure. Frontend only. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hutch-abi.h"
#include "doc/host-pattern.h"
#include "doc/strv.h"
#include "jail/narrow-proxy.h"

#define VIOLATION HUTCH_ERR_POLICY_VIOLATION
#define STR_(x) #x
#define STR(x) STR_(x)
#define PROXY_URL "http://" HUTCH_PROXY_ADDR ":" STR(HUTCH_PROXY_PORT)
#define NO_PROXY "localhost,127.0.0.0/8,::1"

/* Upper and lower case: curl reads http_proxy only in lower case (a CGI
 * guard), most other tools either. ALL_PROXY covers the rest of curl's
 * schemes; NO_PROXY keeps what the job serves itself on its loopback. */
const char *const narrow_proxy_env[] = {
	"HTTP_PROXY=" PROXY_URL,  "http_proxy=" PROXY_URL,  "HTTPS_PROXY=" PROXY_URL,
	"https_proxy=" PROXY_URL, "ALL_PROXY=" PROXY_URL,   "all_proxy=" PROXY_URL,
	"NO_PROXY=" NO_PROXY,	  "no_proxy=" NO_PROXY,	    NULL,
};

static bool covered(const struct plan_proxy *lim, const char *pat)
{
	for (size_t k = 0; k < lim->n_allow; k++)
		if (host_pattern_covers(lim->allow[k], pat))
			return true;
	return false;
}

/* hutch's variables win over the policy's and the request's: the jail's
 * only way out must be where they point. */
static int add_env(struct plan *p)
{
	for (size_t i = 0; narrow_proxy_env[i]; i++) {
		const char *kv = narrow_proxy_env[i];
		size_t len = (size_t)(strchr(kv, '=') - kv) + 1;
		bool replaced = false;
		char *copy = strdup(kv);

		if (!copy)
			return -ENOMEM;
		for (size_t k = 0; k < p->envc && !replaced; k++)
			if (strncmp(p->envp[k], kv, len) == 0) {
				free(p->envp[k]);
				p->envp[k] = copy;
				replaced = true;
			}
		if (replaced)
			continue;
		char **nv = realloc(p->envp, (p->envc + 2) * sizeof(char *));

		if (!nv) {
			free(copy);
			return -ENOMEM;
		}
		p->envp = nv;
		p->envp[p->envc++] = copy;
		p->envp[p->envc] = NULL;
	}
	return 0;
}

static int pick_list(const struct request *req, const struct policy *pol, struct plan *p,
		     struct verrors *e)
{
	char *const *src = req->allow_hosts_set ? req->allow_hosts : pol->proxy.def;
	size_t n = req->allow_hosts_set ? req->n_allow_hosts : pol->proxy.n_def;

	for (size_t i = 0; req->allow_hosts_set && i < n; i++)
		if (!covered(&pol->proxy.lim, src[i])) {
			verror_add_index(e, VIOLATION, "/allow_hosts", i,
					 "not covered by the policy's network.proxy.allow");
			verror_detail(e, "%.63s", src[i]);
			return -EINVAL;
		}
	p->proxy.allow = strv_copy(src, n);
	if (!p->proxy.allow)
		return -ENOMEM;
	p->proxy.n_allow = n;
	return 0;
}

int narrow_proxy(const struct request *req, const struct policy *pol, struct plan *p,
		 struct verrors *e)
{
	int r;

	if (p->network != NET_PROXY) {
		if (req->allow_hosts_set)
			return verror_add(e, VIOLATION, "/allow_hosts", "only with network proxy");
		if (req->allow_private)
			return verror_add(e, VIOLATION, "/allow_private", "only with network proxy");
		return 0;
	}
	if (req->allow_private && !pol->proxy.lim.allow_private)
		return verror_add(e, VIOLATION, "/allow_private",
				  "the policy's network.proxy.allow_private is false");
	p->proxy = pol->proxy.lim;
	p->proxy.allow = NULL;
	p->proxy.n_allow = 0;
	p->proxy.allow_private = req->allow_private;
	if ((r = pick_list(req, pol, p, e)) < 0)
		return r;
	return add_env(p);
}
