/* serve-plan.c: a request's way in (see serve.h): its plan under the
 * server's pinned policy, and the probe gate every run and session passes
 * first. Frontend only. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jail/narrow.h"
#include "run/probe-verdict.h"
#include "run/probe.h"
#include "serve/serve.h"

/* The first validation error as a refusal: its code, its pointer as a
 * field and, as before, in the reason. None recorded: json-c or malloc
 * failed. */
int serve_refusal_of(int r, const struct verrors *e, struct serve_refusal *rf)
{
	const struct verror *v = &e->items[0];

	if (e->n == 0) {
		*rf = (struct serve_refusal){ .code = HUTCH_ERR_INTERNAL };
		return r < 0 ? r : -ENOMEM;
	}
	rf->code = v->code;
	snprintf(rf->pointer, sizeof(rf->pointer), "%s", v->pointer);
	/* The words `hutch run` says; the pinned policy is the only one, so
	 * no other is named (allowed_by stays the CLI's). */
	verror_message(v, rf->text, sizeof(rf->text));
	snprintf(rf->text + strlen(rf->text), sizeof(rf->text) - strlen(rf->text), " (at %s)",
		 v->pointer[0] ? v->pointer : "/");
	snprintf(rf->accepted, sizeof(rf->accepted), "%s", v->accepted);
	rf->reason = rf->text;
	return -EINVAL;
}

int serve_plan(struct srv *s, struct json_object *doc, const struct req_origin *origin,
	       struct request *ret_req, struct plan *ret_plan, struct serve_refusal *ret_refusal)
{
	struct verrors e = { 0 };
	int r;

	r = request_from_json(doc, ret_req, &e);
	if (r < 0)
		return serve_refusal_of(r, &e, ret_refusal);
	if (ret_req->policy && strcmp(ret_req->policy, s->pol.name) != 0) {
		request_free(ret_req);
		*ret_refusal = (struct serve_refusal){
			.code = HUTCH_ERR_POLICY_VIOLATION, .pointer = "/policy",
			.reason = "the server's policy is pinned; a request cannot name another (/policy)",
		};
		return -EPERM;
	}
	ret_req->origin = origin;
	r = narrow(ret_req, &s->pol, ret_plan, &e);
	ret_req->origin = NULL;	/* its descriptors go with the frame */
	if (r < 0) {
		request_free(ret_req);
		return serve_refusal_of(r, &e, ret_refusal);
	}
	ret_plan->digest = strdup(s->digest);
	if (!ret_plan->digest) {
		plan_free(ret_plan);
		request_free(ret_req);
		*ret_refusal = (struct serve_refusal){ .code = HUTCH_ERR_INTERNAL };
		return -ENOMEM;
	}
	return 0;
}

void serve_refuse(struct conn *c, uint64_t id, const struct serve_refusal *rf)
{
	size_t len = 0;
	uint8_t *frame = proto_failed_accepting(id, rf->code, rf->reason,
						rf->pointer[0] ? rf->pointer : NULL, rf->accepted, &len);

	serve_log_failed(&c->srv->log, &c->log, id, rf->code);
	if (!frame) {
		c->dead = true; /* every request gets its final event: without one, the end */
		return;
	}
	conn_send(c, frame, len);
}

static size_t jails(const struct srv *s)
{
	return s->n_runs_total + s->n_sessions_total + s->n_reaping + (s->probe ? 1 : 0);
}

bool serve_fd_room(const struct srv *s, size_t more)
{
	uint64_t est = (uint64_t)s->base_fds + s->n_conns + (uint64_t)jails(s) * FDS_PER_JAIL;

	return est + more <= s->nofile;
}

/* Start the canary on the loop: true when it runs (requests wait for
 * it); false with the verdict recorded when it could not start. */
static bool probe_begin(struct srv *s)
{
	int r = probe_start(&s->pol, s->fs.pid >= 0 ? &s->fs : NULL, &s->probe, s->probe_why,
			    sizeof(s->probe_why));

	if (r == PROBE_OK && watch_attach(probe_watch(s->probe), s->loop, NULL) == 0)
		return true;
	if (r == PROBE_OK) { /* the loop could not take it: it is killed */
		watch_kill(probe_watch(s->probe), HUTCH_ERR_INTERNAL);
		snprintf(s->probe_why, sizeof(s->probe_why), "canary: cannot be watched");
		return true;	/* settles as failed once it is reaped */
	}
	s->probe_code = r == PROBE_UNAVAILABLE ? HUTCH_ERR_SANDBOX_UNAVAILABLE
					       : HUTCH_ERR_SANDBOX_PROBE_FAILED;
	s->probe_fresh = true;
	return false;
}

bool serve_ready(struct srv *s)
{
	char why[320];

	if (s->probe)
		return false;	/* the canary runs: everything waits for its verdict */
	/* A run or worker ends first; with none, try (EMFILE then fails the
	 * one run, spawn_error, rather than every request waiting for ever). */
	if (!serve_fd_room(s, FDS_PER_JAIL + FDS_SPAWN) && jails(s) > 0)
		return false;
	if ((s->probe_ok && s->probe_gen == probe_generation()) || s->probe_fresh)
		return true;
	if (probe_requirements(&s->pol, why, sizeof(why)) < 0 || probe_cached(s->digest) == PROBE_OK)
		return true;	/* the gate says which */
	return !probe_begin(s);
}

bool serve_probe_gate(struct srv *s, uint64_t id, struct conn *c)
{
	char why[320] = "";

	if (s->probe_ok && s->probe_gen == probe_generation())
		return true; /* no jail was refused since it passed */
	if (probe_requirements(&s->pol, why, sizeof(why)) < 0) {
		conn_fail(c, id, HUTCH_ERR_SANDBOX_UNAVAILABLE, why);
		return false;
	}
	if (probe_cached(s->digest) == PROBE_OK) {
		s->probe_ok = true;
		s->probe_gen = probe_generation();
		return true;
	}
	/* The canary ran for the requests that waited on it, and failed;
	 * or it could not start (serve_ready). */
	conn_fail(c, id, s->probe_code ? s->probe_code : HUTCH_ERR_SANDBOX_PROBE_FAILED,
		  s->probe_why[0] ? s->probe_why : "canary: did not run");
	return false;
}
