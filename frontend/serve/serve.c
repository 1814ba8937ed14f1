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
#include <getopt.h>
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
#include "doc/json-util.h"
#include "doc/result.h"
#include "doc/text.h"
#include "doc/units.h"
#include "run/probe.h"
#include "serve/serve-budget.h"
#include "serve/serve.h"

#define LIVE_INTERVAL_MS 250
#define LIVE_MAX_BYTES (64u << 10)
#define MAX_POLL 4096
#define MAX_CONNS 256
#define MAX_BUFFERED_DEFAULT (256ull << 20)

static const char serve_usage[] =
	"Usage: hutch serve [--fd N | --socket PATH [--mode OCTAL]] [OPTIONS]\n"
	"\n"
	"Serve the framed protocol of hutch-protocol(7) for daemons. Without --fd or\n"
	"--socket, listens on the sockets systemd passes (LISTEN_FDS).\n"
	"\n"
	"  --fd N                 one connected socket inherited as fd N; exit when it closes\n"
	"  --socket PATH          listen on a Unix socket at PATH, one client per connection\n"
	"  --mode OCTAL           permissions of the --socket file (default 0600)\n"
	"  --policy NAME|FILE     the policy every request narrows (default: default)\n"
	"  --max-runs N           runs in flight per connection (default 8)\n"
	"  --max-total N          runs in flight overall (default 64)\n"
	"  --max-sessions N       sessions per connection (default 4)\n"
	"  --max-frame SIZE       largest request frame (default 96M)\n"
	"  --grace DURATION       how long jails get after a disconnect or SIGTERM (default 5s)\n"
	"  --lifetime DURATION    absolute cap on any run, whatever its policy (default 1h)\n"
	"  --max-buffered SIZE    output held in memory for all runs together (default 256M)\n"
	"  --idle-timeout DURATION  close a socket client idle this long; 0: never (default 60s)\n"
	"  --max-conn-per-uid N   socket connections per client user (default 32)\n"
	"  -h, --help             show this help\n";

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

static void start_run(struct conn *c, struct proto_msg *m)
{
	struct srv *s = c->srv;
	struct exec_opts eo = { .kill_grace_ms = s->grace_ms };
	struct srun *r;
	enum hutch_err code;
	const char *reason;

	if (s->draining || c->n_runs >= s->max_runs_conn || s->n_runs_total >= s->max_runs_total) {
		conn_fail(c, m->id, HUTCH_ERR_BUSY, s->draining ? "the server is shutting down" : NULL);
		return;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		conn_fail(c, m->id, HUTCH_ERR_INTERNAL, NULL);
		return;
	}
	r->c = c;
	r->id = m->id;
	if (serve_plan(s, m->run, &r->req, &r->plan, &code, &reason) < 0) {
		conn_fail(c, m->id, code, reason);
		free(r);
		return;
	}
	if (!serve_probe_gate(s, m->id, c) || exec_start(&r->plan, &eo, &r->o, &r->x) < 0) {
		if (r->x == NULL && r->o.err != HUTCH_ERR_NONE)
			conn_fail(c, m->id, r->o.err, NULL);
		plan_free(&r->plan);
		request_free(&r->req);
		free(r);
		return;
	}
	r->w = exec_watch(r->x);
	if (!r->w) {
		struct collected files;

		exec_finish(r->x, &files);
		collected_free(&files);
		outcome_free(&r->o);
		plan_free(&r->plan);
		request_free(&r->req);
		free(r);
		conn_fail(c, m->id, HUTCH_ERR_INTERNAL, NULL);
		return;
	}
	held_init(&r->h_out, &r->o.out);
	held_init(&r->h_err, &r->o.errc);
	r->lifetime_deadline = serve_now_ms() + s->lifetime_ms;
	r->next_live_ms = serve_now_ms() + LIVE_INTERVAL_MS;
	r->next = c->runs;
	c->runs = r;
	c->n_runs++;
	s->n_runs_total++;
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
	struct jail_report jr = { .policy = s->pol.name, .policy_file = s->pol.file,
				  .digest = s->digest, .cgroup = "unavailable" };
	struct collected files;
	struct json_object *doc;

	exec_finish(r->x, &files);
	jr.landlock_abi = r->plan.landlock == LANDLOCK_OFF ? 0 : probe_landlock_abi();
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
	switch (m.kind) {
	case MSG_RUN:
		start_run(c, &m);
		break;
	case MSG_CANCEL: {
		bool found = false;

		for (struct srun *r = c->runs; r; r = r->next)
			if (r->id == m.target) {
				watch_kill(r->w, HUTCH_ERR_CANCELLED);
				found = true;
			}
		for (struct session *se = c->sessions; se; se = se->next)
			if (se->state == SESSION_INFLIGHT && se->call_id == m.target) {
				/* The tombstone stays: the action's outcome is unknown. */
				watch_kill(se->w, HUTCH_ERR_CANCELLED);
				conn_fail(c, se->call_id, HUTCH_ERR_CANCELLED, NULL);
				se->state = SESSION_LOST;
				found = true;
			}
		if (found)
			conn_event(c, m.id, "ack", NULL);
		else
			conn_fail(c, m.id, HUTCH_ERR_INVALID_REQUEST, "no request in flight has that id");
		break;
	}
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
	ssize_t n = recv(c->fd, buf, sizeof(buf), MSG_DONTWAIT);
	size_t off = 0;

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		c->dead = true; /* the client is gone: everything of it dies */
		return;
	}
	while (off < (size_t)n && !c->dead) {
		size_t used;
		enum frame_state st = frame_reader_feed(&c->rd, buf + off, (size_t)n - off, &used);

		off += used;
		if (st == FRAME_OVERSIZED) {
			conn_fail(c, 0, HUTCH_ERR_FRAME_OVERSIZED, NULL);
			c->dead = true;
		} else if (st == FRAME_NOMEM) {
			conn_fail(c, 0, HUTCH_ERR_INTERNAL, NULL);
			c->dead = true;
		} else if (st == FRAME_DONE) {
			size_t len;
			uint8_t *frame = frame_reader_take(&c->rd, &len);

			/* Only a whole frame counts: a client dribbling bytes
			 * of one is as idle as a silent one. */
			c->idle_since = serve_now_ms();
			handle_frame(c, frame, len);
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
	c->idle_since = serve_now_ms();
	c->rd.max = s->max_frame;
	c->next = s->conns;
	s->conns = c;
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
			close(c->fd);
			c->fd = -1;
		}
		if (c->fd < 0 && !c->runs && !c->sessions) {
			*pp = c->next;
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
		if (c->fd >= 0 && c->timed && c->uid == uid)
			n++;
	if (n < s->max_conn_uid) {
		conn_new(s, fd, true, uid);
		return;
	}
	frame = proto_failed(0, HUTCH_ERR_BUSY, "too many connections from this user "
				"(--max-conn-per-uid)", &len);
	if (frame)
		(void)send(fd, frame, len, MSG_NOSIGNAL | MSG_DONTWAIT);
	free(frame);
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

static int parse_uint(const char *s, uint64_t max, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || end == s || s[0] == '-' || v > max)
		return -EINVAL;
	*ret = v;
	return 0;
}

static int serve_error(const char *what, const char *problem)
{
	fprintf(stderr, "hutch serve: %s: %s\n", what, problem);
	return 125;
}

static int block_signals(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL) < 0)
		return -errno;
	return signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
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

static int loop(struct srv *s, int sig_fd)
{
	static struct pollfd p[MAX_POLL];
	int listen_idx[16];

	for (;;) {
		uint64_t now = serve_now_ms(), next = UINT64_MAX;
		int n = 0, timeout, k;
		size_t n_conns;
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
		conn_idle_check(s, now, &next);
		conn_sweep(s);
		for (struct conn *c = s->conns; c; c = c->next)
			busy |= c->runs || c->sessions || c->fd >= 0;
		if ((s->draining || s->single) && !busy)
			return 0;

		/* One poll set for everything; each part remembers where its
		 * descriptors went. Parts created during dispatch (new runs,
		 * sessions, connections) hold -1 indexes until the next turn. */
		p[n++] = (struct pollfd){ .fd = sig_fd, .events = POLLIN };
		/* Connections are bounded too: past the limit new clients wait
		 * in the listen backlog until one goes. */
		n_conns = 0;
		for (struct conn *c = s->conns; c; c = c->next)
			n_conns++;
		for (size_t i = 0; i < s->n_listen; i++) {
			listen_idx[i] = -1;
			if (!s->draining && n_conns < MAX_CONNS && n < MAX_POLL) {
				listen_idx[i] = n;
				p[n++] = (struct pollfd){ .fd = s->listen_fds[i], .events = POLLIN };
			}
		}
		for (struct conn *c = s->conns; c; c = c->next) {
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
				if (t >= 0 && now + (uint64_t)t < next)
					next = now + (uint64_t)t;
				if (r->next_live_ms < next)
					next = r->next_live_ms;
				if (r->lifetime_deadline < next)
					next = r->lifetime_deadline;
			}
			for (struct session *se = c->sessions; se; se = se->next) {
				uint64_t d = session_deadline(se);

				if (n + WATCH_MAX_FDS + 1 < MAX_POLL)
					n = session_pollfds(se, p, n);
				if (d < next)
					next = d;
			}
		}
		if (s->draining && s->drain_deadline < next)
			next = s->drain_deadline;
		timeout = next == UINT64_MAX ? -1
			  : next <= now	      ? 0
					      : (int)(next - now > 60000 ? 60000 : next - now);
		k = poll(p, (nfds_t)n, timeout);
		if (k < 0 && errno != EINTR)
			return 1;
		if (k < 0)
			continue;
		if (p[0].revents) {
			struct signalfd_siginfo si;

			/* SIGTERM drains: no new work, then the grace period,
			 * then every jail still running is killed. */
			if (read(sig_fd, &si, sizeof(si)) == sizeof(si) && !s->draining) {
				s->draining = true;
				s->drain_deadline = serve_now_ms() + s->grace_ms;
				/* New clients are refused at once, not left waiting. */
				for (size_t i = 0; i < s->n_listen; i++)
					close(s->listen_fds[i]);
				s->sock.fd = -1;	/* closed above; the path goes at exit */
				s->n_listen = 0;
			}
		}
		/* Jails first: what a client sends next may start new ones. */
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
			if (listen_idx[i] >= 0 && (p[listen_idx[i]].revents & POLLIN)) {
				int fd = accept4(s->listen_fds[i], NULL, NULL,
						 SOCK_CLOEXEC | SOCK_NONBLOCK);

				if (fd >= 0)
					conn_accept(s, fd);
			}
	}
}

int cmd_serve(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "fd", required_argument, NULL, 'f' },	{ "socket", required_argument, NULL, 's' },
		{ "mode", required_argument, NULL, 'm' },	{ "policy", required_argument, NULL, 'p' },
		{ "max-runs", required_argument, NULL, 'r' }, { "max-total", required_argument, NULL, 't' },
		{ "max-sessions", required_argument, NULL, 'S' },
		{ "max-frame", required_argument, NULL, 'F' }, { "grace", required_argument, NULL, 'g' },
		{ "lifetime", required_argument, NULL, 'l' }, { "help", no_argument, NULL, 'h' },
		{ "max-buffered", required_argument, NULL, 'B' },
		{ "idle-timeout", required_argument, NULL, 'I' },
		{ "max-conn-per-uid", required_argument, NULL, 'U' },
		{ NULL, 0, NULL, 0 },
	};
	struct srv s = { .max_runs_conn = 8, .max_runs_total = 64, .max_sessions = 4,
			 .grace_ms = 5000, .lifetime_ms = 3600 * 1000, .max_frame = 96u << 20,
			 .budget = { .max = MAX_BUFFERED_DEFAULT }, .idle_ms = 60000,
			 .max_conn_uid = 32, .sock = { .fd = -1 } };
	const char *why = NULL;
	const char *policy = "default", *sock_path = NULL;
	struct verrors e = { 0 };
	long fd_arg = -1;
	mode_t mode = 0600;
	int opt, sig_fd, r;
	uint64_t v;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (opt) {
		case 'f':
			if (parse_uint(optarg, 1 << 20, &v) < 0 || v < 3 || fcntl((int)v, F_GETFD) < 0)
				return serve_error("--fd", "not an open descriptor above 2");
			fd_arg = (long)v;
			break;
		case 's': sock_path = optarg; break;
		case 'm': {
			char *end;
			long m = strtol(optarg, &end, 8);

			if (*end || m < 0 || m > 0777)
				return serve_error("--mode", "not an octal mode");
			mode = (mode_t)m;
			break;
		}
		case 'p': policy = optarg; break;
		case 'r':
			if (parse_uint(optarg, 4096, &v) < 0 || v < 1)
				return serve_error("--max-runs", "not a number from 1 to 4096");
			s.max_runs_conn = v;
			break;
		case 't':
			if (parse_uint(optarg, 4096, &v) < 0 || v < 1)
				return serve_error("--max-total", "not a number from 1 to 4096");
			s.max_runs_total = v;
			break;
		case 'S':
			if (parse_uint(optarg, 256, &v) < 0)
				return serve_error("--max-sessions", "not a number from 0 to 256");
			s.max_sessions = v;
			break;
		case 'F':
			if (units_parse_size(optarg, &v) < 0 || v < 1024 || v > (1u << 30))
				return serve_error("--max-frame", "not a size from 1K to 1G");
			s.max_frame = (uint32_t)v;
			break;
		case 'g':
			if (units_parse_duration(optarg, &v) < 0 || v > 3600 * 1000)
				return serve_error("--grace", "not a duration up to 1h");
			s.grace_ms = v;
			break;
		case 'l':
			if (units_parse_duration(optarg, &v) < 0 || v < 1)
				return serve_error("--lifetime", "not a duration");
			s.lifetime_ms = v;
			break;
		case 'B':
			if (units_parse_size(optarg, &v) < 0 || v < (1u << 20) || v > (1ull << 40))
				return serve_error("--max-buffered", "not a size from 1M to 1T");
			s.budget.max = v;
			break;
		case 'I':
			if (units_parse_duration(optarg, &v) < 0 || v > 24 * 3600 * 1000)
				return serve_error("--idle-timeout", "not a duration up to 24h (0: never)");
			s.idle_ms = v;
			break;
		case 'U':
			if (parse_uint(optarg, MAX_CONNS, &v) < 0 || v < 1)
				return serve_error("--max-conn-per-uid", "not a number from 1 to 256");
			s.max_conn_uid = v;
			break;
		case 'h':
			fputs(serve_usage, stdout);
			return 0;
		default:
			fputs("Try 'hutch serve --help'.\n", stderr);
			return 125;
		}
	}
	if (optind < argc)
		return serve_error(argv[optind], "unexpected argument");
	if (fd_arg >= 0 && sock_path)
		return serve_error("--fd", "cannot be combined with --socket");
	s.max_out = (size_t)s.max_frame * 2 > (16u << 20) ? (size_t)s.max_frame * 2 : (16u << 20);

	r = policy_load(policy, &s.pol, &e);
	if (r < 0)
		return serve_error(policy, r == -ENOENT ? "no such policy"
					   : e.n ? e.items[0].reason : "cannot be read");
	if (policy_digest(&s.pol, execute_helper_path(), s.digest) < 0) {
		policy_free(&s.pol);
		return serve_error("hutch-exec", "not found");
	}
	signal(SIGPIPE, SIG_IGN);
	sig_fd = block_signals();
	if (sig_fd < 0) {
		r = serve_error("signals", "cannot block them");
		goto out;
	}

	if (fd_arg >= 0) {
		s.single = true;
		if (!conn_new(&s, (int)fd_arg, false, 0)) {
			r = serve_error("--fd", "out of memory");
			goto out;
		}
	} else if (sock_path) {
		r = serve_socket_open(sock_path, mode, &s.sock, &why);
		if (r < 0) {
			fprintf(stderr, "hutch serve: --socket %s: %s (%s)\n", sock_path, why, strerror(-r));
			r = 125;
			goto out;
		}
		s.listen_fds[s.n_listen++] = s.sock.fd;
	} else if ((r = take_listen_fds(&s)) <= 0) {
		r = serve_error("serve", r == 0 ? "give --fd, --socket, or socket activation (LISTEN_FDS)"
					  : "bad LISTEN_FDS");
		goto out;
	}
	r = loop(&s, sig_fd);
out:
	for (size_t i = 0; i < s.n_listen; i++)
		if (s.listen_fds[i] != s.sock.fd)
			close(s.listen_fds[i]);
	serve_socket_close(&s.sock);	/* ours only: a failed --socket removes nothing */
	policy_free(&s.pol);
	return r;
}
