/* session.c: persistent workers of `hutch serve` (hutch-protocol(7)).
 * A session holds one jailed worker that reads length-prefixed frames on
 * its stdin and answers each with one frame on its stdout. Before a frame
 * goes out the session is marked in flight (a tombstone): if the call then
 * times out or is cancelled, the worker is killed and the session is lost
 * ("action outcome unknown") until the client resets it; nothing is ever
 * replayed. A worker that exits, writes a bad or oversized frame, or is
 * asked for with a different worker document or under another policy,
 * also loses the session. Frontend only. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "frame-codec.h"
#include "doc/json-util.h"
#include "doc/text.h"
#include "serve/serve.h"

static struct session *find(struct conn *c, const char *name)
{
	for (struct session *se = c->sessions; se; se = se->next)
		if (strcmp(se->name, name) == 0)
			return se;
	return NULL;
}

/* The worker goes to the reaper (serve-reap.c), killed but not waited
 * for; the session object stays. */
static void stop_worker(struct session *se)
{
	if (!se->x)
		return;
	evwatch_del(se->in_ev);	/* before stdin_wr closes below */
	se->in_ev = NULL;
	if (se->w)
		watch_drop_stdin(se->w);	/* stdin_rd too: the reaper keeps the watch */
	held_release(&se->c->srv->budget, &se->h_out);
	held_release(&se->c->srv->budget, &se->h_err);
	reap_later(se->c->srv, se->x, se->w, &se->req, &se->plan, &se->o);
	se->x = NULL;
	se->w = NULL;
	if (se->stdin_wr >= 0)
		close(se->stdin_wr);
	if (se->stdin_rd >= 0)
		close(se->stdin_rd);
	se->stdin_rd = se->stdin_wr = -1;
	free(se->pending);
	se->pending = NULL;
	se->pending_len = se->pending_off = 0;
	se->out_used = 0;
}

void session_destroy(struct session *se)
{
	se->c->srv->n_sessions_total--;
	stop_worker(se);
	free(se->worker_text);
	free(se);
}

/* Unlink and destroy a session that holds nothing. */
static void drop(struct conn *c, struct session *se)
{
	for (struct session **pp = &c->sessions; *pp; pp = &(*pp)->next)
		if (*pp == se) {
			*pp = se->next;
			session_destroy(se);
			c->n_sessions--;
			return;
		}
}

static void worker_before(void *data);
static void worker_after(void *data);

static void lose(struct session *se, enum hutch_err code, const char *why)
{
	if (se->state == SESSION_INFLIGHT)
		conn_fail(se->c, se->call_id, code, why);
	se->state = SESSION_LOST;
	stop_worker(se);
}

/* The worker's jail: planned under the pinned policy, its stdin a pipe
 * for the session's frames, started and watched. 0, or -errno with
 * *ret_refusal filled and nothing held (the session stays, empty). */
static int start_worker(struct session *se, struct json_object *worker,
			struct serve_refusal *ret_refusal)
{
	struct srv *s = se->c->srv;
	struct exec_opts eo = { .kill_grace_ms = s->grace_ms, .forward_stdin = true,
				.unbounded_stdout = true, .concurrency = serve_concurrency(s),
				.fs = s->fs.pid >= 0 ? &s->fs : NULL, .caps_memo = &s->caps_memo };
	struct watch_hooks hooks = { worker_before, worker_after, se };
	int p[2], r;

	r = serve_plan(s, worker, serve_origin(se->c), &se->req, &se->plan, ret_refusal);
	if (r < 0)
		return r;
	if (se->plan.stdin_given) {
		*ret_refusal = (struct serve_refusal){
			.code = HUTCH_ERR_INVALID_REQUEST, .pointer = "/stdin",
			.reason = "a worker's stdin carries the session's frames (/stdin)",
		};
		plan_free(&se->plan);
		request_free(&se->req);
		return -EINVAL;
	}
	if (pipe2(p, O_CLOEXEC) < 0) {
		r = -errno;
		*ret_refusal = (struct serve_refusal){ .code = HUTCH_ERR_INTERNAL };
		plan_free(&se->plan);
		request_free(&se->req);
		return r;
	}
	fcntl(p[1], F_SETFL, O_NONBLOCK);
	se->stdin_rd = p[0];
	se->stdin_wr = p[1];
	eo.stdin_fd = p[0];
	r = exec_start(&se->plan, &eo, &se->o, &se->x);
	if (r < 0) {
		*ret_refusal = (struct serve_refusal){ .code = se->o.err };
		close(p[0]);
		close(p[1]);
		se->stdin_rd = se->stdin_wr = -1;
		se->x = NULL;
		plan_free(&se->plan);
		request_free(&se->req);
		return r;
	}
	se->w = exec_watch(se->x);	/* NULL: out of memory; stop_worker reaps */
	if (!se->w || watch_attach(se->w, s->loop, &hooks) < 0) {
		*ret_refusal = (struct serve_refusal){ .code = HUTCH_ERR_INTERNAL };
		stop_worker(se);
		return -ENOMEM;
	}
	held_init(&se->h_out, &se->o.out);
	held_init(&se->h_err, &se->o.errc);
	se->lifetime_deadline = time_add_ms(time_now_ms(), s->lifetime_ms);
	memcpy(se->digest, s->digest, sizeof(se->digest));
	return 0;
}

static void on_stdin(struct evwatch *w, uint32_t events, void *data);

static void send_input(struct session *se)
{
	while (se->pending && se->pending_off < se->pending_len) {
		ssize_t n = write(se->stdin_wr, se->pending + se->pending_off,
				  se->pending_len - se->pending_off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			/* The rest when the pipe takes it. */
			if (!se->in_ev)
				se->in_ev = evwatch_add(se->c->srv->loop, se->stdin_wr, EPOLLOUT,
							on_stdin, NULL, se);
			if (!se->in_ev)
				lose(se, HUTCH_ERR_INTERNAL, "the worker's input cannot be watched");
			return;
		}
		if (n < 0) {
			lose(se, HUTCH_ERR_STATE_LOST, "the worker stopped reading");
			return;
		}
		se->pending_off += (size_t)n;
	}
	evwatch_del(se->in_ev);
	se->in_ev = NULL;
	free(se->pending);
	se->pending = NULL;
	se->pending_len = se->pending_off = 0;
}

static void on_stdin(struct evwatch *w, uint32_t events, void *data)
{
	(void)w;
	(void)events;
	send_input(data);
}

/* A new, empty session on c, within the per-connection and the server's
 * bounds; NULL after sending request id its failed event. */
static struct session *session_open(struct conn *c, uint64_t id, const char *name,
				    const char *text)
{
	struct srv *s = c->srv;
	_cleanup_free_ struct session *se = NULL;

	if (c->n_sessions >= s->max_sessions) {
		conn_fail(c, id, HUTCH_ERR_BUSY, "too many sessions on this connection");
		return NULL;
	}
	if (s->n_sessions_total >= s->max_workers) {
		conn_fail(c, id, HUTCH_ERR_BUSY, "too many sessions on this server (--max-workers)");
		return NULL;
	}
	se = calloc(1, sizeof(*se));
	if (!se || !(se->worker_text = strdup(text))) {
		conn_fail(c, id, HUTCH_ERR_INTERNAL, NULL);
		return NULL;
	}
	se->c = c;
	se->stdin_rd = se->stdin_wr = -1;
	snprintf(se->name, sizeof(se->name), "%s", name);
	se->next = c->sessions;
	c->sessions = se;
	c->n_sessions++;
	s->n_sessions_total++;
	return TAKE_PTR(se);
}

/* Whether the session may take this call: a reset starts it afresh; a
 * lost one stays lost; another worker document, or another policy, loses
 * it (the state the worker built belongs to something else now); the
 * input must fit a frame. false after sending the failed event. */
static bool session_ready(struct session *se, const struct proto_msg *m, const char *text)
{
	struct conn *c = se->c;
	struct srv *s = c->srv;

	if (m->reset) {
		/* Explicit: whatever the worker held is gone, start afresh. */
		stop_worker(se);
		free(se->worker_text);
		se->worker_text = strdup(text);	/* NULL: refused below */
		se->state = SESSION_IDLE;
	}
	if (se->state == SESSION_LOST) {
		conn_fail(c, m->id, HUTCH_ERR_STATE_LOST, "reset the session to go on");
		return false;
	}
	if (!se->worker_text || strcmp(se->worker_text, text) != 0 ||
	    (se->x && strcmp(se->digest, s->digest) != 0)) {
		se->state = SESSION_LOST;
		stop_worker(se);
		conn_fail(c, m->id, HUTCH_ERR_STATE_LOST, "the worker or its policy changed");
		return false;
	}
	if (m->input_len > UINT32_MAX || m->input_len > s->max_frame) {
		char why[160];

		snprintf(why, sizeof(why), "the input is %zu bytes; the limit is %" PRIu32
			 " bytes (--max-frame)", (size_t)m->input_len, s->max_frame);
		conn_fail(c, m->id, HUTCH_ERR_FRAME_OVERSIZED, why);
		return false;
	}
	return true;
}

/* A session without a worker starts one. A worker is a jail like any run:
 * the probe gates it too. A worker that never started built no state: the
 * session goes, and a corrected request starts it afresh. */
static bool worker_up(struct session *se, const struct proto_msg *m)
{
	struct conn *c = se->c;
	struct serve_refusal rf;

	if (se->x)
		return true;
	if (!serve_probe_gate(c->srv, m->id, c)) {
		drop(c, se);
		return false;
	}
	if (start_worker(se, m->worker, &rf) < 0) {
		serve_refuse(c, m->id, &rf);
		drop(c, se);
		return false;
	}
	return true;
}

/* The call's input as one frame for the worker. The tombstone goes up
 * before a byte of the action goes out. */
static void call_send(struct session *se, const struct proto_msg *m)
{
	se->pending = malloc(FRAME_HEADER_BYTES + m->input_len);
	if (!se->pending) {
		conn_fail(se->c, m->id, HUTCH_ERR_INTERNAL, NULL);
		return;
	}
	frame_put_header(se->pending, (uint32_t)m->input_len);
	if (m->input_len)
		memcpy(se->pending + FRAME_HEADER_BYTES, m->input, m->input_len);
	se->pending_len = FRAME_HEADER_BYTES + m->input_len;
	se->pending_off = 0;
	se->state = SESSION_INFLIGHT;
	se->call_id = m->id;
	se->call_deadline = time_add_ms(time_now_ms(), m->timeout_ms);
	send_input(se);
}

/* A session call: the session found or opened, checked, its worker up,
 * then the input on its way. Every refusal is the call's failed event. */
void session_call(struct conn *c, struct proto_msg *m)
{
	const char *text = json_object_to_json_string_ext(m->worker, JSON_C_TO_STRING_PLAIN |
									 JSON_C_TO_STRING_NOSLASHESCAPE);
	struct session *se;

	if (!text) {
		conn_fail(c, m->id, HUTCH_ERR_INTERNAL, "the worker document could not be rendered");
		return;
	}
	if (c->srv->draining) {
		conn_fail(c, m->id, HUTCH_ERR_BUSY, "the server is shutting down");
		return;
	}
	se = find(c, m->name);
	if (se && se->state == SESSION_INFLIGHT) {
		conn_fail(c, m->id, HUTCH_ERR_BUSY, "a call on this session is in flight");
		return;
	}
	if (!se)
		se = session_open(c, m->id, m->name, text);
	if (!se || !session_ready(se, m, text) || !worker_up(se, m))
		return;
	call_send(se, m);
}

void session_close(struct conn *c, uint64_t id, const char *name)
{
	struct session **pp = &c->sessions;

	for (; *pp; pp = &(*pp)->next)
		if (strcmp((*pp)->name, name) == 0) {
			struct session *se = *pp;

			*pp = se->next;
			if (se->state == SESSION_INFLIGHT)
				conn_fail(c, se->call_id, HUTCH_ERR_CANCELLED, "the session was closed");
			session_destroy(se);
			c->n_sessions--;
			conn_event(c, id, "ack", NULL);
			return;
		}
	conn_fail(c, id, HUTCH_ERR_INVALID_REQUEST, "no such session");
}

/* One reply frame, taken from the worker's stdout as it arrives. */
static void take_reply(struct session *se)
{
	struct capture *out = &se->o.out;
	size_t avail = out->len - se->out_used, len;
	uint8_t *frame = out->buf + se->out_used;
	struct json_object *p;
	char *b64;
	int r;

	if (avail == 0)
		return;
	if (se->state != SESSION_INFLIGHT) {
		lose(se, HUTCH_ERR_STATE_LOST, "the worker wrote without being asked");
		return;
	}
	r = frame_parse_header(frame, avail, se->c->srv->max_frame, &len);
	if (r == -EMSGSIZE) {
		lose(se, HUTCH_ERR_FRAME_OVERSIZED, "the worker's frame is over the limit");
		return;
	}
	if (r < 0 || avail < FRAME_HEADER_BYTES + len)
		return; /* more to come */
	if (avail > FRAME_HEADER_BYTES + len) {
		lose(se, HUTCH_ERR_PROTOCOL_ERROR, "the worker wrote more than one frame");
		return;
	}
	b64 = base64_encode_alloc(frame + FRAME_HEADER_BYTES, len);
	p = json_object_new_object();
	r = proto_add(p, "base64", b64 ? json_object_new_string(b64) : NULL);
	free(b64);
	/* The reply is in the document: the worker's buffer goes before
	 * rendering, which the budget charged for. */
	free(out->buf);
	out->buf = NULL;
	out->len = 0;
	se->out_used = 0;
	if (r < 0) {
		json_object_put(p);
		lose(se, HUTCH_ERR_INTERNAL, "the reply could not be built");
		return;
	}
	se->state = SESSION_IDLE;
	conn_event(se->c, se->call_id, "reply", p);
	held_release(&se->c->srv->budget, &se->h_out);
}

/* Around each event of the worker's watch, within the output budget
 * (serve-budget.h): a worker whose output the budget cannot hold loses
 * its session; a whole reply frame is taken as it arrives. */
static void worker_before(void *data)
{
	struct session *se = data;
	struct budget *b = &se->c->srv->budget;

	held_clamp(b, &se->h_out, &se->o.out);
	held_clamp(b, &se->h_err, &se->o.errc);
}

static void worker_after(void *data)
{
	struct session *se = data;
	struct budget *b = &se->c->srv->budget;

	if (!se->x)
		return;
	held_charge(b, &se->h_out, &se->o.out);
	held_charge(b, &se->h_err, &se->o.errc);
	if (held_overflowed(&se->h_out, &se->o.out) || held_overflowed(&se->h_err, &se->o.errc)) {
		lose(se, HUTCH_ERR_OUTPUT_OVERFLOW, "the server's output budget (--max-buffered) is spent");
		return;
	}
	take_reply(se);
}

uint64_t session_deadline(struct session *se)
{
	uint64_t next = UINT64_MAX;

	if (!se->x)
		return next;
	if (se->state == SESSION_INFLIGHT)
		next = se->call_deadline;
	if (se->lifetime_deadline < next)
		next = se->lifetime_deadline;
	return next;
}

void session_tick(struct session *se)
{
	if (!se->x)
		return;
	if (se->state == SESSION_INFLIGHT && time_now_ms() >= se->call_deadline) {
		lose(se, HUTCH_ERR_TIMEOUT, "the worker did not answer in time; the session is lost");
		return;
	}
	/* --lifetime caps workers as it caps runs, whatever their policy. */
	if (time_now_ms() >= se->lifetime_deadline) {
		lose(se, HUTCH_ERR_STATE_LOST, "the worker reached the server's lifetime cap");
		return;
	}
	if (watch_done(se->w))
		lose(se, HUTCH_ERR_STATE_LOST, "the worker exited");
}
