/* serve.c: `hutch serve` (see serve.h and hutch-protocol(7)). The policy
 * is pinned at start; a request may narrow it, never name another. Runs
 * and sessions are bounded per connection and overall (busy beyond that,
 * never queued); a closed or broken connection kills every jail it
 * started; a client that does not read is cut off rather than buffered
 * for; output is held within one server-wide budget (serve-budget.c);
 * socket clients are bounded per user and closed when idle; SIGTERM
 * drains. Frontend only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "errors.h"
#include "doc/json-util.h"
#include "doc/policy-extends.h"
#include "doc/policy-load.h"
#include "doc/result.h"
#include "doc/text.h"
#include "run/jail-report.h"
#include "run/least-privilege.h"
#include "serve/serve-budget.h"
#include "serve/serve.h"

#define LIVE_INTERVAL_MS 250
#define LIVE_MAX_BYTES (64u << 10)
#define MAX_POLL 4096

/* ---- connections ---- */

static bool id_in_flight(struct conn *c, uint64_t id)
{
	for (struct srun *r = c->runs; r; r = r->next)
		if (r->id == id)
			return true;
	for (struct session *se = c->sessions; se; se = se->next)
		if (se->state == SESSION_INFLIGHT && se->call_id == id)
			return true;
	return false;
}

/* Everything this connection started dies; the jails get the grace
 * period (their watches escalate to SIGKILL), then we reap them. */
static void conn_kill_all(struct conn *c)
{
	for (struct srun *r = c->runs; r; r = r->next)
		watch_kill(r->w, HUTCH_ERR_CANCELLED);
	while (c->sessions) {
		struct session *se = c->sessions;

		c->sessions = se->next;
		session_destroy(se);
		c->n_sessions--;
	}
}

/* ---- runs ---- */

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

/* A started run whose watch could not be made: killed, reaped, freed. */
static void run_abandon(struct srun *r)
{
	struct collected files;

	exec_finish(r->x, &files);
	collected_free(&files);
	outcome_free(&r->o);
	plan_free(&r->plan);
	request_free(&r->req);
}

/* The run joins its connection, its output charged to the budget. */
static void run_link(struct conn *c, struct srun *r)
{
	struct srv *s = c->srv;

	held_init(&r->h_out, &r->o.out);
	held_init(&r->h_err, &r->o.errc);
	r->lifetime_deadline = time_now_ms() + s->lifetime_ms;
	r->next_live_ms = time_now_ms() + LIVE_INTERVAL_MS;
	r->next = c->runs;
	c->runs = r;
	c->n_runs++;
	s->n_runs_total++;
}

/* A run request: admitted, planned (a refusal names the field at fault),
 * gated by the probe, started and watched; every failure is its one
 * failed event. */
static void start_run(struct conn *c, struct proto_msg *m)
{
	struct srv *s = c->srv;
	struct exec_opts eo = { .kill_grace_ms = s->grace_ms,
				.concurrency = serve_concurrency(s) };
	_cleanup_free_ struct srun *r = NULL;
	struct serve_refusal rf;

	if (!run_admitted(c, m->id))
		return;
	r = calloc(1, sizeof(*r));
	if (!r) {
		conn_fail(c, m->id, HUTCH_ERR_INTERNAL, NULL);
		return;
	}
	r->c = c;
	r->id = m->id;
	if (serve_plan(s, m->run, serve_origin(c), &r->req, &r->plan, &rf) < 0) {
		serve_refuse(c, m->id, &rf);
		return;
	}
	if (!serve_probe_gate(s, m->id, c) || exec_start(&r->plan, &eo, &r->o, &r->x) < 0) {
		if (r->x == NULL && r->o.err != HUTCH_ERR_NONE)
			conn_fail(c, m->id, r->o.err, r->o.detail[0] ? r->o.detail : NULL);
		plan_free(&r->plan);
		request_free(&r->req);
		return;
	}
	r->w = exec_watch(r->x);	/* NULL: out of memory, the run cannot go on */
	if (!r->w) {
		run_abandon(r);
		conn_fail(c, m->id, HUTCH_ERR_INTERNAL, NULL);
		return;
	}
	run_link(c, TAKE_PTR(r));
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
	r->next_live_ms = now + LIVE_INTERVAL_MS;
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

static void finish_run(struct srun *r)
{
	struct srv *s = r->c->srv;
	struct jail_report jr;
	struct collected files;
	struct json_object *doc;

	exec_finish(r->x, &files);
	jail_report_from_policy(&jr, &s->pol, s->digest);
	jail_report_add_plan(&jr, &r->plan);
	if (r->o.status == OUTCOME_FAILED && r->o.err == HUTCH_ERR_CANCELLED) {
		conn_fail(r->c, r->id, HUTCH_ERR_CANCELLED, NULL);
	} else {
		doc = result_for_outcome(&r->plan, &r->o, &files, &jr);
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
	collected_free(&files);
	outcome_free(&r->o);
	plan_free(&r->plan);
	request_free(&r->req);
}

/* A run's watch, within the output budget: what it may keep this turn
 * fits what is left, and the budget, not the run's cap, is named when it
 * is what stopped the run. */
static void run_dispatch(struct srun *r, const struct pollfd *p)
{
	struct budget *b = &r->c->srv->budget;
	const char *limit;

	held_clamp(b, &r->h_out, &r->o.out);
	held_clamp(b, &r->h_err, &r->o.errc);
	watch_dispatch(r->w, p);
	held_charge(b, &r->h_out, &r->o.out);
	held_charge(b, &r->h_err, &r->o.errc);
	limit = r->o.limit;
	if (r->o.err == HUTCH_ERR_OUTPUT_OVERFLOW && limit &&
	    ((strcmp(limit, "stdout_bytes") == 0 && held_overflowed(&r->h_out, &r->o.out)) ||
	     (strcmp(limit, "stderr_bytes") == 0 && held_overflowed(&r->h_err, &r->o.errc))))
		r->o.limit = "max_buffered";
}

static void reap_runs(struct conn *c, uint64_t now)
{
	struct srun **pp = &c->runs;

	while (*pp) {
		struct srun *r = *pp;

		if (now >= r->lifetime_deadline)
			watch_kill(r->w, HUTCH_ERR_TIMEOUT);
		if (!watch_done(r->w)) {
			maybe_live(r, now);
			pp = &r->next;
			continue;
		}
		*pp = r->next;
		finish_run(r);
		free(r);
		c->n_runs--;
		c->srv->n_runs_total--;
	}
}

/* ---- messages ---- */

/* cancel: every run and session call with that id is killed (a session
 * is lost: the action's outcome is unknown); ack, or no such request. */
static void cancel(struct conn *c, uint64_t id, uint64_t target)
{
	bool found = false;

	for (struct srun *r = c->runs; r; r = r->next)
		if (r->id == target) {
			watch_kill(r->w, HUTCH_ERR_CANCELLED);
			found = true;
		}
	for (struct session *se = c->sessions; se; se = se->next)
		if (se->state == SESSION_INFLIGHT && se->call_id == target) {
			/* The tombstone stays: the action's outcome is unknown. */
			watch_kill(se->w, HUTCH_ERR_CANCELLED);
			conn_fail(c, se->call_id, HUTCH_ERR_CANCELLED, NULL);
			se->state = SESSION_LOST;
			found = true;
		}
	if (found)
		conn_event(c, id, "ack", NULL);
	else
		conn_fail(c, id, HUTCH_ERR_INVALID_REQUEST, "no request in flight has that id");
}

static void handle_frame(struct conn *c, uint8_t *buf, size_t len)
{
	struct proto_msg m;
	const char *why = NULL;

	if (proto_parse(buf, len, &m, &why) < 0) {
		/* Fail closed: one failed event with id 0, then the end. */
		conn_fail(c, 0, HUTCH_ERR_PROTOCOL_ERROR, why);
		c->dead = true;
		return;
	}
	if (id_in_flight(c, m.id)) {
		conn_fail(c, 0, HUTCH_ERR_PROTOCOL_ERROR, "an id already in flight");
		c->dead = true;
		proto_msg_free(&m);
		return;
	}
	serve_log_request(&c->srv->log, &c->log, m.id, m.kind);
	switch (m.kind) {
	case MSG_RUN:
		start_run(c, &m);
		break;
	case MSG_CANCEL:
		cancel(c, m.id, m.target);
		break;
	case MSG_SESSION:
		session_call(c, &m);
		break;
	case MSG_SESSION_CLOSE:
		session_close(c, m.id, m.name);
		break;
	case MSG_PING:
		conn_event(c, m.id, "pong", NULL);
		break;
	}
	proto_msg_free(&m);
}

static void conn_read(struct conn *c)
{
	uint8_t buf[64 << 10];
	const char *why = NULL;
	ssize_t n = serve_recv(c, buf, sizeof(buf), &why); /* descriptors: serve-fds.c */
	size_t off = 0;

	if (n == -EAGAIN)
		return;
	if (n == -EPROTO) {
		conn_fail(c, 0, HUTCH_ERR_PROTOCOL_ERROR, why);
		c->dead = true;
		return;
	}
	if (n <= 0) {
		c->dead = true; /* the client is gone: everything of it dies */
		return;
	}
	while (off < (size_t)n && !c->dead) {
		size_t used;
		enum frame_state st = frame_reader_feed(&c->rd, buf + off, (size_t)n - off, &used);

		off += used;
		if (st == FRAME_OVERSIZED) {
			enum hutch_err code;
			char words[256];

			proto_oversized_words(c->rd.hdr, c->rd.max, &code, words, sizeof(words));
			conn_fail(c, 0, code, words);
			c->dead = true;
		} else if (st == FRAME_NOMEM) {
			conn_fail(c, 0, HUTCH_ERR_INTERNAL, NULL);
			c->dead = true;
		} else if (st == FRAME_DONE) {
			size_t len;
			uint8_t *frame = frame_reader_take(&c->rd, &len);

			/* Only a whole frame counts: a client dribbling bytes
			 * of one is as idle as a silent one. */
			c->idle_since = time_now_ms();
			handle_frame(c, frame, len);
			serve_fds_close(c); /* a started jail's helper has its own */
			free(frame);
		}
	}
}

/* timed: a client of a listening socket, which the idle timeout and the
 * per-user bound apply to (a --fd peer is the daemon that started us). */
static struct conn *conn_new(struct srv *s, int fd, bool timed, uid_t uid)
{
	struct conn *c = calloc(1, sizeof(*c));

	if (!c) {
		close(fd);
		return NULL;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	c->fd = fd;
	c->pidx = -1;
	c->srv = s;
	c->timed = timed;
	c->uid = uid;
	c->idle_since = time_now_ms();
	c->rd.max = s->max_frame;
	c->next = s->conns;
	s->conns = c;
	serve_log_conn_open(&s->log, &c->log, fd);
	return c;
}

/* A dead connection is freed once its jails are reaped; its socket is
 * closed at once (after a last flush of what is queued). */
static void conn_sweep(struct srv *s)
{
	struct conn **pp = &s->conns;

	while (*pp) {
		struct conn *c = *pp;

		if (c->dead && c->fd >= 0) {
			conn_kill_all(c);
			conn_flush(c);
			serve_discard_input(c->fd);
			close(c->fd);
			c->fd = -1;
			serve_fds_close(c); /* a frame's that will never be handled */
		}
		if (c->fd < 0 && !c->runs && !c->sessions) {
			*pp = c->next;
			serve_log_conn_close(&s->log, &c->log);
			frame_reader_reset(&c->rd);
			conn_drop_queue(c);
			free(c);
			continue;
		}
		pp = &c->next;
	}
}

/* The peer's uid, or (uid_t)-1 when the kernel cannot say: such a peer
 * shares one bound with every other unknown one. */
static uid_t peer_uid(int fd)
{
	struct ucred cr;
	socklen_t l = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &l) < 0 || l != sizeof(cr))
		return (uid_t)-1;
	return cr.uid;
}

/* A new client of a listening socket, within --max-conn-per-uid: one user
 * holding connections open cannot take every slot from the others. Over
 * the bound it gets one failed busy event and the end. */
static void conn_accept(struct srv *s, int fd)
{
	uid_t uid = peer_uid(fd);
	size_t n = 0, len = 0;
	uint8_t *frame;

	for (struct conn *c = s->conns; c; c = c->next)
		if (c->fd >= 0 && !c->dead && c->timed && c->uid == uid)
			n++;	/* one that is closing does not hold a slot */
	if (n < s->max_conn_uid) {
		conn_new(s, fd, true, uid);
		return;
	}
	frame = proto_failed(0, HUTCH_ERR_BUSY, "too many connections from this user "
				"(--max-conn-per-uid)", &len);
	if (frame)
		(void)send(fd, frame, len, MSG_NOSIGNAL | MSG_DONTWAIT);
	free(frame);
	serve_log_conn_refused(&s->log, fd, HUTCH_ERR_BUSY);
	close(fd);
}

/* A socket client with nothing in flight and no whole frame in for
 * --idle-timeout is closed (a half-sent frame does not count), with one
 * failed timeout event. Adds the next idle deadline to *next. */
static void conn_idle_check(struct srv *s, uint64_t now, uint64_t *next)
{
	for (struct conn *c = s->conns; c && s->idle_ms; c = c->next) {
		bool waiting = c->runs != NULL;

		for (struct session *se = c->sessions; se; se = se->next)
			waiting |= se->state == SESSION_INFLIGHT;
		if (!c->timed || c->dead || c->fd < 0)
			continue;
		if (waiting) {
			c->idle_since = now; /* the clock starts when the last answer is out */
			continue;
		}
		if (now - c->idle_since >= s->idle_ms) {
			conn_fail(c, 0, HUTCH_ERR_TIMEOUT, "the connection was idle (--idle-timeout)");
			c->dead = true;
		} else if (c->idle_since + s->idle_ms < *next) {
			*next = c->idle_since + s->idle_ms;
		}
	}
}

/* ---- setup ---- */

/* systemd socket activation without libsystemd: LISTEN_PID must be us. */
static int take_listen_fds(struct srv *s)
{
	const char *pid = getenv("LISTEN_PID"), *fds = getenv("LISTEN_FDS");
	long n;

	if (!pid || !fds || strtol(pid, NULL, 10) != (long)getpid())
		return 0;
	n = strtol(fds, NULL, 10);
	if (n < 1 || n > 16)
		return -EINVAL;
	for (int fd = 3; fd < 3 + n; fd++) {
		int acc = 0;
		socklen_t l = sizeof(acc);

		if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &l) < 0)
			return -EBADF;
		fcntl(fd, F_SETFD, FD_CLOEXEC);
		if (acc) {
			fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
			s->listen_fds[s->n_listen++] = fd;
		} else if (!conn_new(s, fd, true, peer_uid(fd))) { /* Accept=yes: one connection each */
			return -ENOMEM;
		}
	}
	/* Accept=yes hands us connections only: like --fd, this instance is
	 * done when they close (systemd starts one per connection). */
	if (s->n_listen == 0)
		s->single = true;
	unsetenv("LISTEN_PID");
	unsetenv("LISTEN_FDS");
	unsetenv("LISTEN_FDNAMES");
	return (int)n;
}

static int serve_error(const char *what, const char *problem)
{
	fprintf(stderr, "hutch serve: %s: %s\n", what, problem);
	return HUTCH_EXIT_FAILURE;
}

static void drain_all(struct srv *s)
{
	for (struct conn *c = s->conns; c; c = c->next) {
		for (struct srun *r = c->runs; r; r = r->next)
			watch_kill(r->w, HUTCH_ERR_CANCELLED);
		while (c->sessions) {
			struct session *se = c->sessions;

			c->sessions = se->next;
			/* The connection is still there: a call in flight gets
			 * its one final event before the worker dies. */
			if (se->state == SESSION_INFLIGHT)
				conn_fail(c, se->call_id, HUTCH_ERR_CANCELLED,
					  "the server is shutting down");
			session_destroy(se);
			c->n_sessions--;
		}
	}
}

/* ---- the loop ---- */

/* This turn's bookkeeping before polling: finished runs answered,
 * sessions timed, the drain and idle clocks, dead connections swept.
 * Lowers *next to the earliest deadline; true when the server is done. */
static bool tick(struct srv *s, uint64_t now, uint64_t *next)
{
	bool busy = false;

	for (struct conn *c = s->conns; c; c = c->next) {
		reap_runs(c, now);
		for (struct session *se = c->sessions; se; se = se->next)
			session_tick(se);
	}
	if (s->draining && now >= s->drain_deadline)
		drain_all(s);
	/* Draining: a connection with nothing in flight is done with. */
	for (struct conn *c = s->conns; c && s->draining; c = c->next)
		if (!c->runs && !c->sessions && c->out_off == c->out_len)
			c->dead = true;
	conn_idle_check(s, now, next);
	conn_sweep(s);
	for (struct conn *c = s->conns; c; c = c->next)
		busy |= c->runs || c->sessions || c->fd >= 0;
	if (s->draining && s->drain_deadline < *next)
		*next = s->drain_deadline;
	return (s->draining || s->single) && !busy;
}

/* A connection's socket, then its runs' and sessions' descriptors, from
 * p[n]; returns the new n and lowers *next to their deadlines. */
static int conn_pollfds(struct conn *c, struct pollfd *p, int n, uint64_t now, uint64_t *next)
{
	c->pidx = -1;
	if (c->fd >= 0 && n < MAX_POLL) {
		c->pidx = n;
		p[n++] = (struct pollfd){ .fd = c->fd, .events = (short)(POLLIN |
				(c->out_len > c->out_off ? POLLOUT : 0)) };
	}
	for (struct srun *r = c->runs; r; r = r->next) {
		int t = watch_timeout_ms(r->w);

		if (n + WATCH_MAX_FDS < MAX_POLL)
			n = watch_pollfds(r->w, p, n);
		if (t >= 0 && now + (uint64_t)t < *next)
			*next = now + (uint64_t)t;
		if (r->next_live_ms < *next)
			*next = r->next_live_ms;
		if (r->lifetime_deadline < *next)
			*next = r->lifetime_deadline;
	}
	for (struct session *se = c->sessions; se; se = se->next) {
		uint64_t d = session_deadline(se);

		if (n + WATCH_MAX_FDS + 1 < MAX_POLL)
			n = session_pollfds(se, p, n);
		if (d < *next)
			*next = d;
	}
	return n;
}

/* One poll set for everything: the signalfd at 0, the listeners while
 * connections are below CONNS_MAX (past it new clients wait in the listen
 * backlog), then every connection. Each part remembers where its
 * descriptors went; parts created during dispatch (new runs, sessions,
 * connections) hold -1 indexes until the next turn. */
static int build_pollset(struct srv *s, int sig_fd, struct pollfd *p, int *listen_idx,
			 uint64_t now, uint64_t *next)
{
	size_t n_conns = 0;
	int n = 0;

	p[n++] = (struct pollfd){ .fd = sig_fd, .events = POLLIN };
	for (struct conn *c = s->conns; c; c = c->next)
		n_conns++;
	for (size_t i = 0; i < s->n_listen; i++) {
		listen_idx[i] = -1;
		if (!s->draining && n_conns < CONNS_MAX && n < MAX_POLL) {
			listen_idx[i] = n;
			p[n++] = (struct pollfd){ .fd = s->listen_fds[i], .events = POLLIN };
		}
	}
	for (struct conn *c = s->conns; c; c = c->next)
		n = conn_pollfds(c, p, n, now, next);
	return n;
}

/* The deadline as a poll timeout, at most a minute. */
static int poll_timeout(uint64_t now, uint64_t next)
{
	if (next == UINT64_MAX)
		return -1;
	if (next <= now)
		return 0;
	return (int)(next - now > 60000 ? 60000 : next - now);
}

/* SIGTERM drains: no new work, then the grace period, then every jail
 * still running is killed. */
static void on_signal(struct srv *s, int sig_fd)
{
	struct signalfd_siginfo si;

	if (read(sig_fd, &si, sizeof(si)) != sizeof(si) || s->draining)
		return;
	s->draining = true;
	s->drain_deadline = time_now_ms() + s->grace_ms;
	/* New clients are refused at once, not left waiting. */
	for (size_t i = 0; i < s->n_listen; i++)
		close(s->listen_fds[i]);
	s->sock.fd = -1;	/* closed above; the path goes at exit */
	s->n_listen = 0;
}

/* Every client waiting on listener fd, up to CONNS_MAX connections: a
 * burst is taken in one turn, not one client per turn behind the spawns
 * of the requests that arrived with it. */
static void accept_all(struct srv *s, int fd)
{
	size_t n_conns = 0;

	for (struct conn *c = s->conns; c; c = c->next)
		n_conns++;
	for (; n_conns < CONNS_MAX; n_conns++) {
		int cfd = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

		if (cfd < 0 && errno == EINTR)
			continue;
		if (cfd < 0)
			return;	/* EAGAIN: none left; else the next turn retries */
		conn_accept(s, cfd);
	}
}

/* What poll found: jails first, as what a client sends next may start
 * new ones; then the clients (a closed one is gone before new ones count
 * against --max-conn-per-uid); then every new connection. A spawn is a
 * message to the forkserver and its answer, so none of this waits long. */
static void dispatch(struct srv *s, const struct pollfd *p, const int *listen_idx)
{
	for (struct conn *c = s->conns; c; c = c->next) {
		for (struct srun *r = c->runs; r; r = r->next)
			run_dispatch(r, p);
		for (struct session *se = c->sessions; se; se = se->next)
			session_dispatch(se, p);
	}
	for (struct conn *c = s->conns; c; c = c->next) {
		short re;

		if (c->pidx < 0 || c->fd < 0)
			continue;
		re = p[c->pidx].revents;
		if (re & POLLOUT)
			conn_flush(c);
		if (re & (POLLIN | POLLHUP | POLLERR))
			conn_read(c);
	}
	for (size_t i = 0; i < s->n_listen; i++)
		if (listen_idx[i] >= 0 && (p[listen_idx[i]].revents & POLLIN))
			accept_all(s, s->listen_fds[i]);
}

/* Until the server is done: bookkeeping, one poll, the signal, dispatch.
 * 0 when drained or the one connection closed; 1 when poll fails. */
static int loop(struct srv *s, int sig_fd)
{
	static struct pollfd p[MAX_POLL];
	int listen_idx[16];

	for (;;) {
		uint64_t now = time_now_ms(), next = UINT64_MAX;
		int n, k;

		if (tick(s, now, &next))
			return 0;
		n = build_pollset(s, sig_fd, p, listen_idx, now, &next);
		k = poll(p, (nfds_t)n, poll_timeout(now, next));
		if (k < 0 && errno != EINTR)
			return 1;
		if (k < 0)
			continue;
		if (p[0].revents)
			on_signal(s, sig_fd);
		dispatch(s, p, listen_idx);
	}
}

/* ---- cmd_serve ---- */

/* The pinned policy and its digest, or the exit status with the problem
 * printed. */
static int load_policy(struct srv *s, const char *policy)
{
	struct verrors e = { 0 };
	int r;

	r = policy_load(policy, &s->pol, &e);
	if (r < 0 && e.n) {
		char where[PATH_MAX + VERROR_POINTER_MAX + 4];

		/* The file of the extends chain that holds the member, and where. */
		snprintf(where, sizeof(where), "%s%s%s", e.items[0].file ? e.items[0].file : policy,
			 e.items[0].pointer[0] ? ": " : "", e.items[0].pointer);
		return serve_error(where, e.items[0].reason);
	}
	if (r < 0)
		return serve_error("--policy",
				   r == -ENOENT ? policy_missing_reason(policy) : "cannot be read");
	if (policy_digest(&s->pol, execute_helper_path(), s->digest) < 0) {
		policy_free(&s->pol);
		return serve_error("hutch-exec", "not found");
	}
	return 0;
}

/* Where clients come from: --fd, --socket or socket activation. 0, or the
 * exit status with the problem printed. */
static int open_clients(struct srv *s, const struct serve_options *o)
{
	const char *why = NULL;
	int r;

	if (o->fd >= 0) {
		s->single = true;
		if (!conn_new(s, (int)o->fd, false, 0))
			return serve_error("--fd", "out of memory");
		return 0;
	}
	if (o->sock_path) {
		r = serve_socket_open(o->sock_path, o->mode, &s->sock, &why);
		if (r < 0) {
			fprintf(stderr, "hutch serve: --socket %s: %s (%s)\n", o->sock_path, why,
				strerror(-r));
			return HUTCH_EXIT_FAILURE;
		}
		s->listen_fds[s->n_listen++] = s->sock.fd;
		return 0;
	}
	r = take_listen_fds(s);
	if (r <= 0)
		return serve_error("serve", r == 0 ? "give --fd, --socket, or socket activation (LISTEN_FDS)"
					  : "bad LISTEN_FDS");
	return 0;
}

static void serve_done(struct srv *s)
{
	for (size_t i = 0; i < s->n_listen; i++)
		if (s->listen_fds[i] != s->sock.fd)
			close(s->listen_fds[i]);
	serve_socket_close(&s->sock);	/* ours only: a failed --socket removes nothing */
	exec_use_forkserver(NULL);
	forkserver_stop(&s->fs);	/* every run has ended: it has no children left */
	policy_free(&s->pol);
}

/* Options, the pinned policy, signals as events, the clients' way in,
 * then the loop until drained. */
int cmd_serve(int argc, char **argv)
{
	struct serve_options o;
	struct srv s;
	int sig_fd, r;

	r = serve_options_parse(argc, argv, &s, &o);
	if (r < 0)
		return r == -ECANCELED ? 0 : HUTCH_EXIT_FAILURE;
	r = load_policy(&s, o.policy);
	if (r != 0)
		return r;
	signal(SIGPIPE, SIG_IGN);
	sig_fd = supervise_block_signals(NULL);	/* the set `hutch run` uses */
	if (sig_fd < 0)
		r = serve_error("signals", "cannot block them");
	else
		r = open_clients(&s, &o);
	/* One helper forks every jail (hutch-exec(8), FORKSERVER); without
	 * one (or with --no-forkserver), each run starts its own, as
	 * `hutch run` does. */
	if (r == 0 && !o.no_forkserver && forkserver_start(execute_helper_path(), &s.fs) == 0) {
		exec_use_forkserver(&s.fs);
		/* Every jail comes from the forkserver: keep only what
		 * run/least-privilege.c lists, for the server's life. */
		if (least_privilege_drop() < 0)
			r = serve_error("capabilities", "cannot drop those hutch no longer needs");
	}
	if (r == 0) {
		serve_log_start(&s.log, o.policy, s.digest);
		r = loop(&s, sig_fd);
		serve_log_stop(&s.log, r);
	}
	serve_done(&s);
	return r;
}
