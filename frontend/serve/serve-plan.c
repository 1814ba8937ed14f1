/* serve-plan.c: a request's way in (see serve.h): its plan under the
 * server's pinned policy, and the probe gate every run and session passes
 * first. Frontend only. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jail/narrow.h"
#include "run/probe.h"
#include "serve/serve.h"

int serve_plan(struct srv *s, struct json_object *doc, struct request *ret_req,
	       struct plan *ret_plan, enum hutch_err *ret_code, const char **ret_reason)
{
	struct verrors e = { 0 };
	static char reason[VERROR_POINTER_MAX + 96];

	if (request_from_json(doc, ret_req, &e) < 0)
		goto bad;
	if (ret_req->policy && strcmp(ret_req->policy, s->pol.name) != 0) {
		request_free(ret_req);
		*ret_code = HUTCH_ERR_POLICY_VIOLATION;
		*ret_reason = "the server's policy is pinned; a request cannot name another (/policy)";
		return -1;
	}
	if (narrow(ret_req, &s->pol, ret_plan, &e) < 0) {
		request_free(ret_req);
		goto bad;
	}
	ret_plan->digest = strdup(s->digest);
	return 0;
bad:
	*ret_code = e.items[0].code;
	snprintf(reason, sizeof(reason), "%s (at %s)", e.items[0].reason,
		 e.items[0].pointer[0] ? e.items[0].pointer : "/");
	*ret_reason = reason;
	return -1;
}

bool serve_probe_gate(struct srv *s, uint64_t id, struct conn *c)
{
	char why[320] = "";
	int r;

	if (s->probe_ok)
		return true;
	if (probe_requirements(&s->pol, why, sizeof(why)) < 0) {
		conn_fail(c, id, HUTCH_ERR_SANDBOX_UNAVAILABLE, why);
		return false;
	}
	r = probe_ensure(&s->pol, s->digest, why, sizeof(why));
	if (r < 0) {
		conn_fail(c, id, r == PROBE_UNAVAILABLE ? HUTCH_ERR_SANDBOX_UNAVAILABLE
						       : HUTCH_ERR_SANDBOX_PROBE_FAILED,
			  why);
		return false;
	}
	s->probe_ok = true;
	return true;
}
