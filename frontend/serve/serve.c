/* serve.c: `hutch serve` (see serve.h and hutch-protocol(7)): the
 * server's start, its one event loop, and its end. The policy is pinned
 * at start; a request may narrow it, never name another. Runs and
 * sessions are bounded per connection and overall (busy beyond that,
 * never queued); a closed or broken connection kills every jail it
 * started; a client that does not read is cut off rather than buffered
 * for; output is held within one server-wide budget (serve-budget.c);
 * socket clients are bounded per user and closed when idle; SIGTERM
 * drains. Frontend only. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "cleanup.h"
#include "errors.h"
#include "doc/policy-extends.h"
#include "doc/policy-load.h"
#include "run/least-privilege.h"
#include "run/probe-verdict.h"
#include "run/probe.h"
#include "serve/serve.h"

static int serve_error(const char *what, const char *problem)
{
	fprintf(stderr, "hutch serve: %s: %s\n", what, problem);
	return HUTCH_EXIT_FAILURE;
}

/* SIGTERM drains: no new work, every parked request refused, then the
 * grace period, then every jail still running is killed. */
static void on_signal(struct evwatch *w, uint32_t events, void *data)
{
	struct srv *s = data;
	struct signalfd_siginfo si;

	(void)events;
	if (read(evwatch_fd(w), &si, sizeof(si)) != sizeof(si) || s->draining)
		return;
	s->draining = true;
	s->drain_deadline = time_add_ms(time_now_ms(), s->grace_ms);
	listen_close(s);
	if (s->probe)
		watch_kill(probe_watch(s->probe), HUTCH_ERR_CANCELLED);
}

static void drain_all(struct srv *s)
{
	for (struct conn *c = s->conns; c; c = c->next) {
		runs_kill(c, HUTCH_ERR_CANCELLED);
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

/* The canary, once its watch is done: its verdict, then every request
 * that waited on it handled (a failed verdict fails them, as each would
 * have failed alone; the next request probes again). */
static void probe_settle(struct srv *s)
{
	int r;

	if (!s->probe || !watch_done(probe_watch(s->probe)))
		return;
	r = probe_finish(s->probe, s->digest, s->probe_why, sizeof(s->probe_why));
	s->probe = NULL;
	s->probe_ok = r == PROBE_OK;
	s->probe_gen = probe_generation();
	s->probe_code = r == PROBE_UNAVAILABLE ? HUTCH_ERR_SANDBOX_UNAVAILABLE
					       : HUTCH_ERR_SANDBOX_PROBE_FAILED;
	s->probe_fresh = r != PROBE_OK;
	for (struct conn *c = s->conns; c; c = c->next)
		if (c->parked && !c->dead)
			conn_unpark(c);
	s->probe_fresh = false;
}

/* Parked requests, handled once a jail may start; while draining, each
 * gets its busy event instead. */
static void unpark_all(struct srv *s)
{
	for (struct conn *c = s->conns; c; c = c->next) {
		if (!c->parked || c->dead)
			continue;
		if (!s->draining && !serve_ready(s))
			return;
		conn_unpark(c);	/* draining: run_admitted or session_call refuse it */
	}
}

/* The sessions' call and lifetime deadlines, lowering *next. */
static void sessions_tick(struct conn *c, uint64_t *next)
{
	for (struct session *se = c->sessions; se; se = se->next) {
		uint64_t d;

		session_tick(se);
		d = session_deadline(se);
		if (d < *next)
			*next = d;
	}
}

/* This turn's bookkeeping, after the handlers: finished runs answered,
 * sessions timed, torn-down jails reaped, the probe settled, parked
 * requests resumed, the drain and idle clocks, dead connections swept,
 * the listeners resumed. Lowers *next to the earliest deadline; true
 * when the server is done. */
static bool tick(struct srv *s, uint64_t now, uint64_t *next)
{
	bool busy;

	for (struct conn *c = s->conns; c; c = c->next) {
		runs_tick(c, now, next);
		sessions_tick(c, next);
	}
	reap_tick(s);
	probe_settle(s);
	unpark_all(s);
	if (s->draining && now >= s->drain_deadline)
		drain_all(s);
	/* Draining: a connection with nothing in flight is done with, once
	 * what it sent before the signal has been answered. */
	for (struct conn *c = s->conns; c && s->draining; c = c->next) {
		if (c->runs || c->sessions || c->parked || c->out_off != c->out_len)
			continue;
		conn_read_pending(c);
		if (!c->runs && !c->sessions && !c->parked && c->out_off == c->out_len)
			c->dead = true;
	}
	conn_idle_check(s, now, next);
	conn_sweep(s);
	if (!s->draining)
		listen_tick(s, now, next);
	/* Counted last: the drain above hands workers to the reaper. */
	busy = s->probe || s->reaping;
	for (struct conn *c = s->conns; c; c = c->next)
		busy |= c->runs || c->sessions || c->fd >= 0;
	if (s->draining && s->drain_deadline < *next)
		*next = s->drain_deadline;
	return (s->draining || s->single) && !busy;
}

/* Until the server is done: bookkeeping, then one turn of the loop,
 * whose handlers do the rest. 0 when drained or the one connection
 * closed; 1 when the loop fails. */
static int loop(struct srv *s)
{
	for (;;) {
		uint64_t now = time_now_ms(), next = UINT64_MAX;

		if (tick(s, now, &next))
			return 0;
		if (evloop_turn(s->loop, next == UINT64_MAX ? EVTIMER_NEVER
						: next > now ? next - now : 0) < 0)
			return 1;
	}
}

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
	} else {
		r = listen_take_activated(s);
		if (r <= 0)
			return serve_error("serve", r == 0 ? "give --fd, --socket, or socket activation (LISTEN_FDS)"
						  : "bad LISTEN_FDS");
	}
	if (listen_watch(s) < 0)
		return serve_error("serve", "cannot watch the listening sockets");
	return 0;
}

/* The descriptors open now, counted once: serve's own count (serve.h,
 * FDS_PER_JAIL) starts from it. */
static size_t count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	size_t n = 0;

	if (!d)
		return 32;	/* no /proc: a guess on the safe side */
	while (readdir(d))
		n++;
	closedir(d);
	return n > 3 ? n - 3 : n;	/* ".", ".." and the directory's own */
}

/* Descriptors up to the hard limit (a server of many jails needs them;
 * select(2) is not used), within reason; then the limit counted on. */
static void fd_limit(struct srv *s)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0) {
		s->nofile = 1024;
		return;
	}
	if (rl.rlim_cur < 65536 && rl.rlim_cur < rl.rlim_max) {
		/* The jails get the policy's open_files whatever ours is. */
		rl.rlim_cur = rl.rlim_max > 65536 ? 65536 : rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
		(void)getrlimit(RLIMIT_NOFILE, &rl);
	}
	s->nofile = rl.rlim_cur;
}

static void serve_done(struct srv *s)
{
	listen_close(s);
	serve_socket_close(&s->sock);	/* ours only: a failed --socket removes nothing */
	evloop_free(s->loop);
	forkserver_stop(&s->fs);	/* every run has ended: it has no children left */
	policy_free(&s->pol);
}

/* The loop with signals as events on it. */
static int start_loop(struct srv *s, int *ret_sig_fd)
{
	int fd, r = evloop_new(&s->loop);

	if (r < 0)
		return serve_error("serve", "cannot make its event loop");
	fd = supervise_block_signals(NULL);	/* the set `hutch run` uses */
	if (fd < 0 || !evwatch_add(s->loop, fd, EPOLLIN, on_signal, NULL, s))
		return serve_error("signals", "cannot block them");
	*ret_sig_fd = fd;
	return 0;
}

/* Options, the pinned policy, the loop, the clients' way in, the
 * forkserver, then the loop until drained. */
int cmd_serve(int argc, char **argv)
{
	struct serve_options o;
	struct srv s;
	int sig_fd = -1, r;

	r = serve_options_parse(argc, argv, &s, &o);
	if (r < 0)
		return r == -ECANCELED ? 0 : HUTCH_EXIT_FAILURE;
	r = load_policy(&s, o.policy);
	if (r != 0)
		return r;
	signal(SIGPIPE, SIG_IGN);
	fd_limit(&s);
	r = start_loop(&s, &sig_fd);
	if (r == 0)
		r = open_clients(&s, &o);
	/* One helper forks every jail (hutch-exec(8), FORKSERVER); without
	 * one (or with --no-forkserver), each run starts its own, as
	 * `hutch run` does. Runs find it in their execution options. */
	if (r == 0 && (o.no_forkserver || forkserver_start(execute_helper_path(), s.pool, &s.fs) < 0))
		s.fs.pid = -1;
	/* Its replies read on the loop: a run's fork is never waited for. */
	if (r == 0 && s.fs.pid >= 0)
		(void)forkserver_attach(&s.fs, s.loop);
	/* Every jail comes from the forkserver: keep only what
	 * run/least-privilege.c lists, for the server's life. */
	if (r == 0 && s.fs.pid >= 0 && least_privilege_drop() < 0)
		r = serve_error("capabilities", "cannot drop those hutch no longer needs");
	s.base_fds = count_fds();
	if (r == 0) {
		serve_log_start(&s.log, o.policy, s.digest);
		r = loop(&s);
		serve_log_stop(&s.log, r);
	}
	serve_done(&s);
	if (sig_fd >= 0)
		close(sig_fd);
	return r;
}
