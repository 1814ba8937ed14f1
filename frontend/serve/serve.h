/* serve.h: `hutch serve`, the framed channel for daemons
 * (hutch-protocol(7)), and the state its parts share: the server, its
 * connections, the runs and the sessions of each connection. One event
 * loop (run/event-loop.h) drives everything: each connection, listener,
 * jail and worker pipe is a watch of its own with its own handler;
 * nothing in a handler blocks. Frontend only. */
#ifndef HUTCH_SERVE_H
#define HUTCH_SERVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <json-c/json.h>

#include "frame-codec.h"
#include "time-util.h"
#include "doc/plan.h"
#include "doc/policy.h"
#include "doc/protocol.h"
#include "doc/request.h"
#include "doc/verror.h"
#include "jail/user-caps.h"
#include "run/collect.h"
#include "run/event-loop.h"
#include "run/execute.h"
#include "run/forkserver.h"
#include "run/offload.h"
#include "run/supervise.h"
#include "serve/serve-budget.h"
#include "serve/serve-log.h"
#include "serve/serve-socket.h"

#define CONNS_MAX 256		/* connections served; more wait in the backlog */
/* Descriptors one jail holds (pidfd, status, stdout, stderr, control,
 * exit pipe, stdin, the rest of its spec, the seccomp listener, its work
 * dir), and what starting one takes for a moment besides: a run or a
 * connection is taken only with room for them below RLIMIT_NOFILE, so
 * the descriptor limit slows the server down and never fails a run. */
#define FDS_PER_JAIL 10
#define FDS_SPAWN 8

struct srv;
struct conn;
struct probe_run;

/* Descriptors passed with the frame being read (serve-fds.c). */
#define SERVE_FDS_MAX REQ_MAX_SOURCE_FDS
struct frame_fds {
	int fd[SERVE_FDS_MAX];
	size_t n;
};

/* A run's phases: its masks walked, waiting for the canary, its helper
 * asked of the forkserver (its watch made, the reply not yet in:
 * serve-spawn.c), its jail watched, its files read; the walk and the read
 * on a thread of their own (serve-offload.c), so that no tree of one
 * client's stalls the loop, and the fork never waited for on it. */
enum srun_phase { SRUN_WALKING, SRUN_STARTING, SRUN_SPAWNING, SRUN_RUNNING, SRUN_READING };

struct srun {
	struct srun *next;
	struct conn *c;
	uint64_t id;
	enum srun_phase phase;
	struct request req;
	struct plan plan;
	struct outcome o;
	struct exec_run *x;
	struct jail_watch *w;	/* SRUN_RUNNING only */
	struct offload *job;	/* SRUN_WALKING and SRUN_READING: the thread */
	struct fs_ticket *fst;	/* SRUN_SPAWNING: the forkserver's reply */
	bool spawn_waits;	/* launched again after a refusal: its fork waited for */
	struct verrors *walk_e;	/* the walk's refusal */
	int walk_r;		/* the walk's return */
	enum hutch_err killed;	/* killed outside SRUN_RUNNING: why; NONE if not */
	struct collected files;	/* what SRUN_READING brought back */
	int own_fds[SERVE_FDS_MAX];	/* the plan's passed descriptors, ours */
	size_t n_own_fds;
	uint64_t lifetime_deadline;	/* absolute cap, whatever the policy says */
	uint64_t next_live_ms;
	size_t live_out, live_err;	/* bytes already sent in live events */
	struct held h_out, h_err;	/* their share of the output budget */
};

enum session_state { SESSION_IDLE, SESSION_INFLIGHT, SESSION_LOST };

struct session {
	struct session *next;
	struct conn *c;
	char name[PROTO_SESSION_NAME_MAX + 1];
	char *worker_text;	/* canonical JSON of the worker document */
	char digest[72];	/* the policy the worker started under */
	enum session_state state;
	struct request req;
	struct plan plan;
	struct outcome o;
	struct exec_run *x;
	struct jail_watch *w;
	int stdin_rd, stdin_wr;	/* frames to the worker */
	struct evwatch *in_ev;	/* stdin_wr while a frame is pending */
	uint8_t *pending;	/* frame bytes not yet written to the worker */
	size_t pending_len, pending_off;
	size_t out_used;	/* worker stdout bytes already taken as replies */
	struct held h_out, h_err;	/* their share of the output budget */
	uint64_t call_id;	/* the call in flight */
	uint64_t call_deadline;
	uint64_t lifetime_deadline;	/* --lifetime, from the worker's start */
};

struct conn {
	struct conn *next;
	struct srv *srv;
	int fd;
	struct evwatch *ev;	/* fd on the loop; NULL once closed */
	bool dead;		/* read side gone, protocol broken or stuck: closing */
	bool timed;		/* accepted from a listening socket: idle timeout applies */
	uid_t uid;		/* the peer's, from SO_PEERCRED when accepted */
	uint64_t idle_since;	/* last frame in, or the end of its last request */
	struct frame_reader rd;
	uint64_t rd_charged;	/* the frame being read, charged to the budget */
	/* A run or session request that waits (the probe runs, or no
	 * descriptors are left for a jail); the connection is not read
	 * meanwhile, so at most one waits per connection. */
	uint8_t *parked;
	size_t parked_len;
	uint64_t parked_id;
	uint8_t *held_in;	/* bytes read after the parked frame */
	size_t held_len;
	struct frame_fds fds;	/* passed with the frame being read (serve-fds.c) */
	struct req_origin origin;	/* of the frame being handled: serve_origin() */
	uint8_t *out;
	size_t out_len, out_off;
	struct srun *runs;
	size_t n_runs;
	struct session *sessions;
	size_t n_sessions;
	struct conn_log log;	/* its number and peer in the log (serve-log.c) */
};

/* A jail being torn down after its owner let go (a worker's session
 * closed, reset or lost): killed, then reaped when its watch says so,
 * while everything else goes on (serve-reap.c). */
struct reaping {
	struct reaping *next;
	struct request req;
	struct plan plan;
	struct outcome o;
	struct exec_run *x;
	struct jail_watch *w;
};

struct srv {
	struct policy pol;
	char digest[72];
	struct evloop *loop;
	bool probe_ok;
	unsigned probe_gen;	/* probe_generation() when it passed */
	struct probe_run *probe;	/* the canary in flight, or NULL */
	/* A probe that failed: its verdict, for the requests that waited
	 * on it (probe_fresh while they are handled) or that could not
	 * start it. */
	enum hutch_err probe_code;
	char probe_why[320];
	bool probe_fresh;
	int listen_fds[16];
	struct evwatch *listen_ev[16];
	size_t n_listen;
	bool accepting;		/* the listeners are watched */
	uint64_t accept_resume;	/* after EMFILE/ENFILE: not before then */
	uint64_t nofile;	/* RLIMIT_NOFILE */
	size_t base_fds;	/* open when the loop started */
	size_t n_conns;
	struct reaping *reaping;
	size_t n_reaping;
	struct conn *conns;
	size_t max_runs_conn, max_runs_total, max_sessions, n_runs_total;
	size_t max_workers;	/* --max-workers: sessions overall */
	size_t n_sessions_total;	/* bounded by max_workers */
	uint64_t grace_ms, lifetime_ms;
	uint32_t max_frame;
	size_t max_out;
	struct budget budget;	/* --max-buffered */
	uint64_t idle_ms;	/* --idle-timeout; 0: none */
	size_t max_conn_uid;	/* --max-conn-per-uid */
	bool draining, single;	/* single: --fd, exit when it closes */
	struct serve_socket sock;	/* --socket; fd -1 when none or drained */
	uint64_t drain_deadline;
	struct forkserver fs;	/* every jail's helper is its child; pid -1: none */
	unsigned pool;		/* --pool: jails the forkserver builds ahead */
	struct user_caps_memo caps_memo; /* the inotify quotas its jails share */
	bool allow_path_binds;	/* --allow-path-binds: requests may bind by path */
	size_t passed_fds;	/* descriptors clients passed, held now */
	struct serve_log log;	/* --log-level, and the lines it let through */
};

/* How many jails the server may hold at once (runs, --max-workers and
 * the pool's, built ahead):
 * what its jails' per-user caps are sized for (jail/user-caps.h). */
static inline unsigned serve_concurrency(const struct srv *s)
{
	return (unsigned)(s->max_runs_total + s->max_workers + s->pool);
}

int cmd_serve(int argc, char **argv);

/* serve-options.c, for serve.c: what the command line gives besides the
 * bounds in struct srv. */
struct serve_options {
	const char *policy;	/* --policy NAME|FILE */
	const char *sock_path;	/* --socket, or NULL */
	long fd;		/* --fd, or -1 */
	mode_t mode;		/* --mode */
	bool no_forkserver;	/* --no-forkserver */
	bool allow_path_binds;	/* --allow-path-binds */
};

/* s's bounds (defaults, then the options) and *ret_opts. 0: serve;
 * -ECANCELED: --help was printed (exit 0); -EINVAL: the problem was
 * printed (exit HUTCH_EXIT_FAILURE). */
int serve_options_parse(int argc, char **argv, struct srv *s, struct serve_options *ret_opts);

/* serve-fds.c, for serve.c and session.c: descriptors a client passes
 * with a request frame (hutch-protocol(7), "DESCRIPTORS"): SCM_RIGHTS on
 * the sendmsg that begins with the frame's first byte, at most
 * SERVE_FDS_MAX, named by the request's mounts as source_fd (their index
 * in arrival order). Each is close-on-exec from the moment it arrives,
 * counted against the server's budget for them, and closed when its
 * frame has been handled: a started jail's helper holds its own copies.
 *
 * serve_recv reads from c's socket into buf (cap bytes at most), never
 * past the end of the frame c->rd is reading, so that descriptors are
 * told to their frame; they join c->fds. Bytes read; 0 at EOF; -EAGAIN
 * when nothing waits; -EPROTO with *ret_why set when descriptors came on
 * another byte than a frame's first, more than SERVE_FDS_MAX came, or the
 * budget is spent (the connection ends); other -errno. */
ssize_t serve_recv(struct conn *c, uint8_t *buf, size_t cap, const char **ret_why);
/* The origin of the frame c is handling, for its request's binds: c's
 * descriptors, the client's uid, whether path binds are allowed. */
const struct req_origin *serve_origin(struct conn *c);
/* Close the descriptors of c's frame and give back their budget. */
void serve_fds_close(struct conn *c);
/* Before a connection the server ends is closed: read and drop what the
 * client sent past the frame that ended it (at most 256 KiB, never
 * waiting), so that closing does not reset the connection and the
 * client reads its failed event to the end (a unix socket closed with
 * unread input gives its peer ECONNRESET). */
void serve_discard_input(int fd);

/* serve-conn.c, for serve.c, serve-plan.c and session.c */
void conn_watch_update(struct conn *c);	/* the loop's events for c's socket */
void conn_send(struct conn *c, uint8_t *frame, size_t len);	/* takes frame */
void conn_fail(struct conn *c, uint64_t id, enum hutch_err code, const char *reason);
/* The same, with pointer (a JSON pointer into the request, or NULL) as the
 * event's "pointer" field, as a result document's error carries it. */
void conn_fail_at(struct conn *c, uint64_t id, enum hutch_err code, const char *reason,
		  const char *pointer);
void conn_event(struct conn *c, uint64_t id, const char *kind, struct json_object *payload);
void conn_flush(struct conn *c);	/* send what the socket takes now */
void conn_drop_queue(struct conn *c);	/* give back its queued bytes */

/* serve-plan.c, for serve.c and session.c */

/* Why a request document was refused, to send as its failed event. */
struct serve_refusal {
	enum hutch_err code;
	const char *reason;			/* fixed text (or text[]), or NULL */
	char pointer[VERROR_POINTER_MAX];	/* into the document; "" for none */
	char text[VERROR_ACCEPTED_MAX + VERROR_POINTER_MAX + 256]; /* reason, when it names the pointer */
	char accepted[VERROR_ACCEPTED_MAX];	/* verror.h's list; "" for none */
};

/* doc's request and its plan under the pinned policy, its binds by
 * descriptor from origin (serve_origin()). 0; or -EINVAL (the
 * request is invalid or asks for more than the policy allows), -EPERM (it
 * names another policy), -ENOMEM, each with *ret_refusal filled and
 * nothing held. */
int serve_plan(struct srv *s, struct json_object *doc, const struct req_origin *origin,
	       struct request *ret_req, struct plan *ret_plan, struct serve_refusal *ret_refusal);
/* The refusal for a validation failure r (e's first error), as
 * serve_plan fills it: -EINVAL, or -ENOMEM when e holds none. */
int serve_refusal_of(int r, const struct verrors *e, struct serve_refusal *rf);
/* Its failed event, pointer included. */
void serve_refuse(struct conn *c, uint64_t id, const struct serve_refusal *rf);
/* The sandbox probe of the pinned policy, once per server until it
 * passes: true to go on; false after sending request id its failed event.
 * Only after serve_ready said true. */
bool serve_probe_gate(struct srv *s, uint64_t id, struct conn *c);
/* Whether a jail may start now: the probe has settled (else it is
 * started on the loop, and false) and descriptors are left for one.
 * false: the request waits, parked (serve-read.c). */
bool serve_ready(struct srv *s);
/* Descriptors the server may hold now, by its own count. */
bool serve_fd_room(const struct srv *s, size_t more);


/* session.c */
void session_call(struct conn *c, struct proto_msg *m);
void session_close(struct conn *c, uint64_t id, const char *name);
uint64_t session_deadline(struct session *se);
void session_tick(struct session *se);
void session_destroy(struct session *se);	/* hands the worker to the reaper, frees */

/* serve-reap.c: jails torn down without waiting. reap_later takes the
 * jail (x and its watch, already attached) with the request, plan and
 * outcome it runs on, kills it, and empties the caller's copies.
 * reap_tick finishes those whose watch is done; reap_count says how
 * many are left (the server exits only when none is). */
void reap_later(struct srv *s, struct exec_run *x, struct jail_watch *w, struct request *req,
		struct plan *plan, struct outcome *o);
void reap_tick(struct srv *s);

/* serve-offload.c, for serve-run.c: a run's walks off the loop. */
/* The plan's passed descriptors made the run's own (the frame's go when
 * it is handled; the walk and the change set's lower outlive it): 0 or
 * -errno. Closed by run_fds_close. */
int run_fds_own(struct srun *r);
void run_fds_close(struct srun *r);
/* Whether the plan's masks are to be walked (narrow left them). */
bool run_needs_walk(const struct srv *s, const struct srun *r);
/* Whether the run needs its passed descriptors past its frame: for the
 * walk, or as an overlay's lower when its change set is read. */
bool run_needs_fds(const struct srv *s, const struct srun *r);
/* The walk started on a thread (SRUN_WALKING), or done on the loop when
 * none can be had: 0, or -ENOMEM. */
int run_walk_start(struct srun *r);
/* The read started on a thread (SRUN_READING): 0, or -errno (the caller
 * reads on the loop). */
int run_read_start(struct srun *r);

/* serve-spawn.c: a run's fork asked without waiting. spawn_ticket: the
 * ticket to set as the forkserver's next_async around exec_start, or NULL
 * (the fork is waited for); spawn_pending after it: whether the run now
 * waits for the reply (r->fst). spawn_step, each turn in SRUN_SPAWNING:
 * once the reply is in, SRUN_RUNNING (a kill kept meanwhile applied), or
 * on a failure the run torn down to SRUN_STARTING, to be launched again
 * (or failed, if killed meanwhile) as after its walk. spawn_settle:
 * wait for the reply now (a path that must end the run at once);
 * spawn_forget: let go of it (its jail killed when it comes). spawn_full:
 * the forkserver has FORKSERVER_INFLIGHT_MAX requests unanswered; a run
 * waits in SRUN_STARTING for a reply to free one. */
bool spawn_full(const struct srv *s);
struct fs_ticket *spawn_ticket(struct srv *s, const struct srun *r);
bool spawn_pending(struct srun *r, struct fs_ticket *t);
void spawn_step(struct srun *r);
void spawn_settle(struct srun *r);
void spawn_forget(struct srun *r);

/* serve-run.c: runs, from request to final event */
bool run_id_in_flight(struct conn *c, uint64_t id);
void run_start(struct conn *c, struct proto_msg *m);
bool run_cancel(struct conn *c, uint64_t target);
void runs_tick(struct conn *c, uint64_t now, uint64_t *next);
void runs_kill(struct conn *c, enum hutch_err why);

/* serve-read.c: a connection's way in */
struct conn *conn_new(struct srv *s, int fd, bool timed, uid_t uid);
void conn_unpark(struct conn *c);	/* its parked request, handled now */
/* What the client sent before a drain closes it, read and answered
 * (runs and sessions busy), a bounded number of reads. */
void conn_read_pending(struct conn *c);
void conn_sweep(struct srv *s);
void conn_idle_check(struct srv *s, uint64_t now, uint64_t *next);
uid_t conn_peer_uid(int fd);
bool conn_hung_up(struct conn *c);	/* EOF waits on its socket */

/* serve-listen.c: where clients come from */
int listen_take_activated(struct srv *s);	/* socket activation; as take_listen_fds */
int listen_watch(struct srv *s);		/* the listeners join the loop: 0 or -errno */
void listen_tick(struct srv *s, uint64_t now, uint64_t *next);
void listen_close(struct srv *s);

#endif
