/* serve.h: `hutch serve`, the framed channel for daemons
 * (hutch-protocol(7)), and the state its parts share: the server, its
 * connections, the runs and the sessions of each connection. One event
 * loop (poll) drives everything; nothing blocks without a bound.
 * Frontend only. */
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
#include "run/collect.h"
#include "run/execute.h"
#include "run/forkserver.h"
#include "run/supervise.h"
#include "serve/serve-budget.h"
#include "serve/serve-log.h"
#include "serve/serve-socket.h"

#define SESSIONS_TOTAL_MAX 64
#define CONNS_MAX 256		/* connections polled; more wait in the backlog */

struct srv;
struct conn;
struct pollfd;

/* Descriptors passed with the frame being read (serve-fds.c). */
#define SERVE_FDS_MAX REQ_MAX_SOURCE_FDS
struct frame_fds {
	int fd[SERVE_FDS_MAX];
	size_t n;
};

struct srun {
	struct srun *next;
	struct conn *c;
	uint64_t id;
	struct request req;
	struct plan plan;
	struct outcome o;
	struct exec_run *x;
	struct jail_watch *w;
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
	int pidx;		/* stdin_wr in this turn's poll set, or -1 */
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
	int pidx;		/* its place in this turn's poll set, or -1 */
	bool dead;		/* read side gone, protocol broken or stuck: closing */
	bool timed;		/* accepted from a listening socket: idle timeout applies */
	uid_t uid;		/* the peer's, from SO_PEERCRED when accepted */
	uint64_t idle_since;	/* last frame in, or the end of its last request */
	struct frame_reader rd;
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

struct srv {
	struct policy pol;
	char digest[72];
	bool probe_ok;
	unsigned probe_gen;	/* probe_generation() when it passed */
	int listen_fds[16];
	size_t n_listen;
	struct conn *conns;
	size_t max_runs_conn, max_runs_total, max_sessions, n_runs_total;
	size_t n_sessions_total;	/* bounded by SESSIONS_TOTAL_MAX */
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
	bool allow_path_binds;	/* --allow-path-binds: requests may bind by path */
	size_t passed_fds;	/* descriptors clients passed, held now */
	struct serve_log log;	/* --log-level, and the lines it let through */
};

/* How many jails the server may hold at once (runs and session workers):
 * what its jails' per-user caps are sized for (jail/user-caps.h). */
static inline unsigned serve_concurrency(const struct srv *s)
{
	return (unsigned)(s->max_runs_total + SESSIONS_TOTAL_MAX);
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
/* Its failed event, pointer included. */
void serve_refuse(struct conn *c, uint64_t id, const struct serve_refusal *rf);
/* The sandbox probe of the pinned policy, once per server until it
 * passes: true to go on; false after sending request id its failed event. */
bool serve_probe_gate(struct srv *s, uint64_t id, struct conn *c);

/* session.c */
void session_call(struct conn *c, struct proto_msg *m);
void session_close(struct conn *c, uint64_t id, const char *name);
int session_pollfds(struct session *se, struct pollfd *p, int n);
void session_dispatch(struct session *se, const struct pollfd *p);
uint64_t session_deadline(struct session *se);
void session_tick(struct session *se);
void session_destroy(struct session *se);	/* kills the worker, frees */

#endif
