/* serve-log.h: the operator's view of `hutch serve` (hutch-protocol(7),
 * LOGGING): one line on stderr per connection opened and closed, per
 * final event a request gets (a run's exit, a failure or refusal, a
 * session's reply) and, at debug, per request received. Numbers, fixed
 * names and the server's own policy digest only: never a command, an
 * argument, an environment value, a file, a session name or a reason
 * text a request could have shaped. Frontend only; at the bottom of
 * serve/: serve-conn.c and serve.c call it with the log state their
 * structs hold, and it knows nothing of those structs. */
#ifndef HUTCH_SERVE_LOG_H
#define HUTCH_SERVE_LOG_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <json-c/json.h>

#include "errors.h"
#include "doc/protocol.h"

enum log_level { SERVE_LOG_NONE, SERVE_LOG_ERROR, SERVE_LOG_INFO, SERVE_LOG_DEBUG };

/* The server's: its level, where the lines go, what it numbered. */
struct serve_log {
	enum log_level level;
	bool checked;		/* whether journal was looked at */
	bool journal;		/* stderr is the journal: <N> prefixes, no timestamp */
	uint64_t conns;		/* connections numbered so far */
	uint64_t dropped;	/* lines a full stderr did not take */
};

/* A connection's: its number and peer, what it asked and was refused. */
struct conn_log {
	uint64_t no;
	long uid, pid;		/* -1: the kernel did not say */
	uint64_t opened_ms;
	uint64_t requests, failed;
};

/* "none", "error", "info", "debug": 0 and *ret, or -EINVAL. */
int serve_log_parse_level(const char *s, enum log_level *ret);
/* The server is up (a failure to start is its one error line instead);
 * the pinned policy as the command line named it, and its digest. */
void serve_log_start(struct serve_log *l, const char *policy, const char *digest);
void serve_log_stop(struct serve_log *l, int status);

/* A connection on fd: numbered, its peer asked, the open line. */
void serve_log_conn_open(struct serve_log *l, struct conn_log *cl, int fd);
void serve_log_conn_close(struct serve_log *l, const struct conn_log *cl);
/* A client of a listening socket turned away before it became one. */
void serve_log_conn_refused(struct serve_log *l, int fd, enum hutch_err code);

void serve_log_request(struct serve_log *l, const struct conn_log *cl, uint64_t id,
		       enum proto_kind kind);
/* A final event about to go out: kind "exit" (payload the result
 * document), "reply", "ack", "pong". */
void serve_log_event(struct serve_log *l, struct conn_log *cl, uint64_t id, const char *kind,
		     struct json_object *payload);
void serve_log_failed(struct serve_log *l, struct conn_log *cl, uint64_t id,
		      enum hutch_err code);

#endif
