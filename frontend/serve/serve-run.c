/* serve-run.c: a run of `hutch serve`, from its request to its final
 * event: admitted within the bounds, planned, started, its watch on the
 * server's loop with its output charged to the budget (serve-budget.c),
 * live snapshots, the lifetime cap, and the exit or failed event once
 * its watch is done. Frontend only. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "doc/json-util.h"
#include "doc/result.h"
#include "doc/text.h"
#include "run/jail-report.h"
#include "serve/serve-budget.h"
#include "serve/serve.h"

#define LIVE_INTERVAL_MS 250
#define LIVE_MAX_BYTES (64u << 10)

bool run_id_in_flight(struct conn *c, uint64_t id)
{
	for (struct srun *r = c->runs; r; r = r->next)
		if (r->id == id)
			return true;
	for (struct session *se = c->sessions; se; se = se->next)
		if (se->state == SESSION_INFLIGHT && se->call_id == id)
			return true;
	return false;
}

/* Room for one more run on this connection and overall, or the run's
 * failed busy event. */
static bool run_admitted(struct conn *c, uint64_t id)
{
	struct srv *s = c->srv;

	if (s->draining || c->n_runs >= s->max_runs_conn || s->n_runs_total >= s->max_runs_total) {
		conn_fail(c, id, HUTCH_ERR_BUSY, s->draining ? "the server is shutting down" : NULL);
		return false;
	}
	return true;
}

/* A started run whose watch could not be made: killed, reaped, its
 * exec_run freed (run_free frees the rest). */
static void run_abandon(struct srun *r)
{
	struct collected files;

	exec_finish(r->x, &files);
	collected_free(&files);
}

/* Around each event the run's watch handles: what it may keep fits what
 * the budget has left, and the budget, not the run's cap, is named when
 * it is what stopped the run. */
static void run_before(void *data)
{
	struct srun *r = data;
	struct budget *b = &r->c->srv->budget;

	held_clamp(b, &r->h_out, &r->o.out);
	held_clamp(b, &r->h_err, &r->o.errc);
}

static void run_after(void *data)
{
	struct srun *r = data;
	struct budget *b = &r->c->srv->budget;
	const char *limit;

	held_charge(b, &r->h_out, &r->o.out);
	held_charge(b, &r->h_err, &r->o.errc);
	limit = r->o.limit;
	if (r->o.err == HUTCH_ERR_OUTPUT_OVERFLOW && limit &&
	    ((strcmp(limit, "stdout_bytes") == 0 && held_overflowed(&r->h_out, &r->o.out)) ||
	     (strcmp(limit, "stderr_bytes") == 0 && held_overflowed(&r->h_err, &r->o.errc))))
		r->o.limit = "max_buffered";
}

/* The run joins its connection: counted, timed by --lifetime. */
static void run_join(struct conn *c, struct srun *r)
{
	uint64_t now = time_now_ms();

	r->lifetime_deadline = time_add_ms(now, c->srv->lifetime_ms);
	r->next_live_ms = time_add_ms(now, LIVE_INTERVAL_MS);
	r->next = c->runs;
	c->runs = r;
	c->n_runs++;
	c->srv->n_runs_total++;
}

/* What a run holds besides its jail, freed with it. */
static void run_free(struct srun *r)
{
	spawn_forget(r);
	offload_free(r->job);
	free(r->walk_e);
	run_fds_close(r);
	collected_free(&r->files);
	outcome_free(&r->o);
	plan_free(&r->plan);
	request_free(&r->req);
	free(r);
}

/* Gated by the probe, started and watched on the loop, its output
 * charged to the budget: true; false after its one failed event. */
static bool run_launch(struct srun *r)
{
	struct conn *c = r->c;
	struct srv *s = c->srv;
	struct exec_opts eo = { .kill_grace_ms = s->grace_ms, .fs = s->fs.pid >= 0 ? &s->fs : NULL,
				.concurrency = serve_concurrency(s), .caps_memo = &s->caps_memo };
	struct watch_hooks hooks = { run_before, run_after, r };
	struct fs_ticket *t;
	bool pending;
	int e;

	if (!serve_probe_gate(s, r->id, c))
		return false;
	/* The fork is asked for, not waited for (serve-spawn.c). */
	s->fs.next_async = t = spawn_ticket(s, r);
	e = exec_start(&r->plan, &eo, &r->o, &r->x);
	pending = spawn_pending(r, t);
	if (e < 0) {
		if (r->x == NULL && r->o.err != HUTCH_ERR_NONE)
			conn_fail(c, r->id, r->o.err, r->o.detail[0] ? r->o.detail : NULL);
		return false;
	}
	held_init(&r->h_out, &r->o.out);
	held_init(&r->h_err, &r->o.errc);
	r->w = exec_watch(r->x);	/* NULL: out of memory, the run cannot go on */
	if (!r->w || watch_attach(r->w, s->loop, &hooks) < 0) {
		spawn_settle(r);	/* its pidfd first: the jail is killed */
		run_abandon(r);
		r->w = NULL;
		r->x = NULL;
		conn_fail(c, r->id, HUTCH_ERR_INTERNAL, NULL);
		return false;
	}
	r->phase = pending ? SRUN_SPAWNING : SRUN_RUNNING;
	return true;
}

static bool run_walked(struct srun *r);

/* A run request: admitted, planned (a refusal names the field at fault),
 * its masks walked off the loop when it has any, then launched; every
 * failure is its one failed event. */
void run_start(struct conn *c, struct proto_msg *m)
{
	struct srv *s = c->srv;
	struct req_origin origin = *serve_origin(c);
	struct serve_refusal rf;
	struct srun *r;

	if (!run_admitted(c, m->id))
		return;
	r = calloc(1, sizeof(*r));
	if (!r) {
		conn_fail(c, m->id, HUTCH_ERR_INTERNAL, NULL);
		return;
	}
	r->c = c;
	r->id = m->id;
	origin.masks_later = true;
	if (serve_plan(s, m->run, &origin, &r->req, &r->plan, &rf) < 0) {
		serve_refuse(c, m->id, &rf);
		free(r);
		return;
	}
	if (run_needs_fds(s, r) && run_fds_own(r) < 0) {
		conn_fail(c, m->id, HUTCH_ERR_INTERNAL, "cannot hold the passed descriptors");
		run_free(r);
		return;
	}
	r->phase = SRUN_STARTING;
	if (run_needs_walk(s, r) && run_walk_start(r) < 0) {
		conn_fail(c, m->id, HUTCH_ERR_INTERNAL, NULL);
		run_free(r);
		return;
	}
	/* Nothing to wait for (no walk, or done on the loop): launched now,
	 * as serve_ready said it may be. */
	if (r->phase == SRUN_STARTING && !run_walked(r)) {
		run_free(r);
		return;
	}
	run_join(c, r);
}

/* One stream's part of a live event, or NULL when json-c failed. */
static struct json_object *live_part(const struct capture *cap, size_t *sent)
{
	struct json_object *o = json_object_new_object();
	size_t from = *sent, n = cap->len > from ? cap->len - from : 0;
	const uint8_t *p = cap->buf ? cap->buf + from : (const uint8_t *)"";
	_cleanup_free_ char *b = NULL;
	int r;

	if (n > LIVE_MAX_BYTES)
		n = LIVE_MAX_BYTES; /* the rest goes in the next snapshot */
	if (utf8_valid(p, n) && !memchr(p, 0, n)) {
		r = proto_add(o, "text", json_object_new_string_len((const char *)p, (int)n));
	} else {
		b = base64_encode_alloc(p, n);
		r = proto_add(o, "base64", b ? json_object_new_string(b) : NULL);
	}
	if (r < 0) {
		json_object_put(o);
		return NULL;
	}
	*sent = from + n;
	return o;
}

/* Live snapshots: at most every 250 ms, only when output grew, never
 * more than 64 KiB a stream at a time, and not while the client is
 * behind on reading. */
static void maybe_live(struct srun *r, uint64_t now)
{
	size_t live_out = r->live_out, live_err = r->live_err, len = 0;
	struct json_object *p;
	uint8_t *frame = NULL;

	if (now < r->next_live_ms || r->c->dead)
		return;
	r->next_live_ms = time_add_ms(now, LIVE_INTERVAL_MS);
	if (r->o.out.len <= r->live_out && r->o.errc.len <= r->live_err)
		return;
	if (r->c->out_len - r->c->out_off > r->c->srv->max_out / 2)
		return;
	/* A snapshot json-c cannot build is skipped, never a final event:
	 * its bytes go in the next one or the result. */
	p = json_object_new_object();
	if (proto_add(p, "stdout", live_part(&r->o.out, &live_out)) < 0 ||
	    proto_add(p, "stderr", live_part(&r->o.errc, &live_err)) < 0) {
		json_object_put(p);
		return;
	}
	if (proto_render(r->id, "live", p, &frame, &len) < 0)
		return;
	r->live_out = live_out;
	r->live_err = live_err;
	conn_send(r->c, frame, len);
}

/* The run's jail is gone: its files are read, off the loop when there
 * are any, or the result goes out now. */
static void run_ended(struct srun *r)
{
	static const atomic_bool stop = true;

	exec_finish_jail(r->x);
	r->w = NULL;
	/* A cancelled run's result carries no files: none are read. */
	if (r->o.err == HUTCH_ERR_CANCELLED || !exec_has_files(r->x) || run_read_start(r) < 0) {
		exec_finish_files(r->x, &r->files,
				  r->o.err == HUTCH_ERR_CANCELLED ? &stop : NULL);
		r->phase = SRUN_READING;	/* read: done */
	}
}

static void finish_run(struct srun *r)
{
	struct srv *s = r->c->srv;
	struct jail_report jr;
	struct collected *files = &r->files;
	struct json_object *doc;

	exec_free(r->x);
	r->x = NULL;
	if (r->killed != HUTCH_ERR_NONE) {	/* while its files were read */
		conn_fail(r->c, r->id, r->killed, NULL);
		held_release(&s->budget, &r->h_out);
		held_release(&s->budget, &r->h_err);
		return;
	}
	jail_report_from_policy(&jr, &s->pol, s->digest);
	jail_report_add_plan(&jr, &r->plan);
	jail_report_add_timings(&jr, NULL, &r->o.timings);
	if (r->o.status == OUTCOME_FAILED && r->o.err == HUTCH_ERR_CANCELLED) {
		conn_fail(r->c, r->id, HUTCH_ERR_CANCELLED, NULL);
	} else {
		doc = result_for_outcome(&r->plan, &r->o, files, &jr);
		/* The output is in the document now: its captures go before
		 * rendering, which the budget charged for (serve-budget.c). */
		outcome_free(&r->o);
		if (doc)
			conn_event(r->c, r->id, "exit", doc);
		else
			conn_fail(r->c, r->id, HUTCH_ERR_INTERNAL, "the result could not be built");
	}
	held_release(&s->budget, &r->h_out);
	held_release(&s->budget, &r->h_err);
}

/* A run killed (cancel, --lifetime, the connection or the server gone):
 * its jail, or the thread walking for it, which stops at its next step. */
static void run_kill(struct srun *r, enum hutch_err why)
{
	if (r->phase == SRUN_RUNNING) {
		watch_kill(r->w, why);
		return;
	}
	/* SRUN_SPAWNING: kept until the pidfd is there (serve-spawn.c) */
	if (r->killed == HUTCH_ERR_NONE)
		r->killed = why;
	if (r->job)
		offload_cancel(r->job);
}

/* A walk that ended: refused, or the run launched (once the canary, if
 * one runs, has settled). false: the run is over, its event sent. */
static bool run_walked(struct srun *r)
{
	struct serve_refusal rf;

	if (r->phase == SRUN_WALKING) {
		if (!offload_done(r->job))
			return true;
		offload_free(r->job);
		r->job = NULL;
		r->phase = SRUN_STARTING;
	}
	if (r->killed != HUTCH_ERR_NONE) {
		conn_fail(r->c, r->id, r->killed, NULL);
		return false;
	}
	if (r->walk_e && r->walk_r < 0) {
		serve_refusal_of(r->walk_r, r->walk_e, &rf);
		serve_refuse(r->c, r->id, &rf);
		return false;
	}
	if (r->c->srv->probe)
		return true;	/* the canary runs: its verdict first (run_step) */
	if (spawn_full(r->c->srv))
		return true;	/* a reply frees room: the loop turns then */
	return run_launch(r);
}

/* One run's turn: true while it goes on. */
static bool run_step(struct srun *r, uint64_t now, uint64_t *next)
{
	if (now >= r->lifetime_deadline)
		run_kill(r, HUTCH_ERR_TIMEOUT);
	if (r->phase == SRUN_SPAWNING)
		spawn_step(r);	/* failed: SRUN_STARTING, launched again below */
	if (r->phase == SRUN_WALKING || r->phase == SRUN_STARTING) {
		if (!run_walked(r))
			return false;
	} else if (r->phase == SRUN_RUNNING && watch_done(r->w)) {
		run_ended(r);
	}
	if (r->phase == SRUN_READING) {
		if (r->job && !offload_done(r->job))
			return true;
		finish_run(r);
		return false;
	}
	if (r->phase == SRUN_RUNNING)
		maybe_live(r, now);
	if (r->phase == SRUN_RUNNING && r->next_live_ms < *next)
		*next = r->next_live_ms;
	/* Its walk ended while a canary another request started runs (rare):
	 * looked at again shortly, the canary settling on no watch of ours. */
	if (r->phase == SRUN_STARTING && time_add_ms(now, 50) < *next)
		*next = time_add_ms(now, 50);
	/* killed: its thread's end wakes the loop, not the passed deadline */
	if (r->killed == HUTCH_ERR_NONE && r->lifetime_deadline < *next)
		*next = r->lifetime_deadline;
	return true;
}

/* Each turn: the lifetime cap, live snapshots, the walks started and
 * seen to their end, and the final event of every run that is done
 * (exec_finish_jail waits for nothing then). Lowers *next to the runs'
 * own deadlines. */
void runs_tick(struct conn *c, uint64_t now, uint64_t *next)
{
	struct srun **pp = &c->runs;

	while (*pp) {
		struct srun *r = *pp;

		if (run_step(r, now, next)) {
			pp = &r->next;
			continue;
		}
		*pp = r->next;
		if (r->x)
			run_abandon(r);
		run_free(r);
		c->n_runs--;
		c->srv->n_runs_total--;
	}
}

void runs_kill(struct conn *c, enum hutch_err why)
{
	for (struct srun *r = c->runs; r; r = r->next)
		run_kill(r, why);
}

bool run_cancel(struct conn *c, uint64_t target)
{
	bool found = false;

	for (struct srun *r = c->runs; r; r = r->next)
		if (r->id == target) {
			run_kill(r, HUTCH_ERR_CANCELLED);
			found = true;
		}
	return found;
}
