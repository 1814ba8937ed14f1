/* serve-log.c: the operator's view of `hutch serve` (see serve-log.h and
 * hutch-protocol(7), LOGGING). Each line is built whole and written with
 * one write(2), so lines never interleave; when stderr cannot take it now
 * the line is dropped and counted, as the loop must never block on its
 * log. Under the journal (JOURNAL_STREAM names our stderr) a line starts
 * with its sd-daemon(3) priority and no timestamp, which journald adds;
 * anywhere else with a UTC timestamp. Frontend only. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "serve/serve-log.h"
#include "time-util.h"

#define LINE_MAX_BYTES 1024

static const char *const level_names[] = {
	[SERVE_LOG_NONE] = "none",
	[SERVE_LOG_ERROR] = "error",
	[SERVE_LOG_INFO] = "info",
	[SERVE_LOG_DEBUG] = "debug",
};

int serve_log_parse_level(const char *s, enum log_level *ret)
{
	for (size_t i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++)
		if (strcmp(s, level_names[i]) == 0) {
			*ret = (enum log_level)i;
			return 0;
		}
	return -EINVAL;
}

/* systemd sets JOURNAL_STREAM to "DEV:INODE" of the stream it connected
 * stdout and stderr to; only when our stderr is that stream do we log in
 * the journal's way (a redirected stderr gets timestamps). */
static bool stderr_is_journal(void)
{
	const char *js = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	if (!js || sscanf(js, "%llu:%llu", &dev, &ino) != 2 || fstat(STDERR_FILENO, &st) < 0)
		return false;
	return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

/* What a line starts with: "<6>" under the journal, else the time. */
static int line_prefix(const struct serve_log *l, enum log_level lv, char *buf, size_t n)
{
	static const int prio[] = { [SERVE_LOG_NONE] = 3, [SERVE_LOG_ERROR] = 3, [SERVE_LOG_INFO] = 6,
				    [SERVE_LOG_DEBUG] = 7 };
	struct timespec ts;
	struct tm tm;

	if (l->journal)
		return snprintf(buf, n, "<%d>", prio[lv]);
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	return snprintf(buf, n, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ ", tm.tm_year + 1900,
			tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
			ts.tv_nsec / 1000000);
}

/* n, the length snprintf reported, as what fits in size bytes. */
static size_t fitted(int n, size_t size)
{
	return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

/* One line at level lv, if the level lets it through: prefix, "hutch
 * serve: ", the words, "\n". Written only when stderr takes it now. */
__attribute__((format(printf, 3, 4)))
static void emit(struct serve_log *l, enum log_level lv, const char *fmt, ...)
{
	char line[LINE_MAX_BYTES];
	const size_t room = sizeof(line) - 1;	/* the newline's place kept */
	struct pollfd p = { .fd = STDERR_FILENO, .events = POLLOUT };
	va_list ap;
	size_t n;

	if (lv > l->level || l->level == SERVE_LOG_NONE)
		return;
	if (!l->checked) {
		l->journal = stderr_is_journal();
		l->checked = true;
	}
	n = fitted(line_prefix(l, lv, line, room), room);
	n += fitted(snprintf(line + n, room - n, "hutch serve: "), room - n);
	va_start(ap, fmt);
	n += fitted(vsnprintf(line + n, room - n, fmt, ap), room - n);
	va_end(ap);
	if (l->dropped)
		n += fitted(snprintf(line + n, room - n, " dropped_before=%llu",
				     (unsigned long long)l->dropped), room - n);
	line[n++] = '\n';
	/* A pipe, socket or terminal that is full now drops the line rather
	 * than stop every client; the next line that goes says how many. */
	if (poll(&p, 1, 0) != 1 || !(p.revents & POLLOUT) ||
	    write(STDERR_FILENO, line, n) != (ssize_t)n) {
		l->dropped++;
		return;
	}
	l->dropped = 0;
}

/* The level a failure is logged at: error when the operator has to act
 * (the sandbox, the helper, a crash, our own bug), info when the request
 * or its command was at fault. */
static enum log_level failure_level(enum hutch_err code)
{
	return code == HUTCH_ERR_SANDBOX_UNAVAILABLE || code == HUTCH_ERR_SANDBOX_PROBE_FAILED ||
			       code == HUTCH_ERR_HELPER_NOT_FOUND || code == HUTCH_ERR_SPAWN_ERROR ||
			       code == HUTCH_ERR_CRASH || code == HUTCH_ERR_INTERNAL
		       ? SERVE_LOG_ERROR
		       : SERVE_LOG_INFO;
}

/* The peer's uid and pid, -1 each when the kernel does not say. */
static void peer_cred(int fd, long *ret_uid, long *ret_pid)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	*ret_uid = *ret_pid = -1;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0 || len != sizeof(cr))
		return;
	*ret_uid = (long)cr.uid;
	*ret_pid = cr.pid > 0 ? (long)cr.pid : -1;
}

void serve_log_start(struct serve_log *l, const char *policy, const char *digest)
{
	size_t n = strlen(policy);

	/* The name as the operator gave it: a command-line word, not a
	 * client's; a path is cut to its last 80 bytes. */
	emit(l, SERVE_LOG_INFO, "start pid=%ld policy=%s digest=%s log_level=%s", (long)getpid(),
	     n > 80 ? policy + n - 80 : policy, digest, level_names[l->level]);
}

void serve_log_stop(struct serve_log *l, int status)
{
	emit(l, status ? SERVE_LOG_ERROR : SERVE_LOG_INFO, "stop status=%d", status);
}

void serve_log_conn_open(struct serve_log *l, struct conn_log *cl, int fd)
{
	*cl = (struct conn_log){ .no = ++l->conns, .opened_ms = time_now_ms() };
	peer_cred(fd, &cl->uid, &cl->pid);
	emit(l, SERVE_LOG_INFO, "open conn=%llu uid=%ld pid=%ld", (unsigned long long)cl->no, cl->uid,
	     cl->pid);
}

void serve_log_conn_close(struct serve_log *l, const struct conn_log *cl)
{
	emit(l, SERVE_LOG_INFO, "close conn=%llu uid=%ld pid=%ld requests=%llu failed=%llu ms=%llu",
	     (unsigned long long)cl->no, cl->uid, cl->pid,
	     (unsigned long long)cl->requests, (unsigned long long)cl->failed,
	     (unsigned long long)(time_now_ms() - cl->opened_ms));
}

void serve_log_conn_refused(struct serve_log *l, int fd, enum hutch_err code)
{
	long uid, pid;

	peer_cred(fd, &uid, &pid);
	emit(l, SERVE_LOG_INFO, "turned_away uid=%ld pid=%ld code=%s", uid, pid,
	     hutch_err_name(code));
}

void serve_log_request(struct serve_log *l, const struct conn_log *cl, uint64_t id,
		       enum proto_kind kind)
{
	static const char *const kinds[] = { [MSG_RUN] = "run", [MSG_CANCEL] = "cancel",
					     [MSG_SESSION] = "session",
					     [MSG_SESSION_CLOSE] = "session_close",
					     [MSG_PING] = "ping" };

	emit(l, SERVE_LOG_DEBUG, "request conn=%llu uid=%ld id=%llu kind=%s", (unsigned long long)cl->no,
	     cl->uid, (unsigned long long)id,
	     (unsigned)kind < sizeof(kinds) / sizeof(kinds[0]) ? kinds[kind] : "?");
}

void serve_log_failed(struct serve_log *l, struct conn_log *cl, uint64_t id,
		      enum hutch_err code)
{
	if (id)
		cl->requests++;
	cl->failed++;
	emit(l, failure_level(code), "failed conn=%llu uid=%ld id=%llu code=%s",
	     (unsigned long long)cl->no, cl->uid, (unsigned long long)id,
	     hutch_err_name(code) ? hutch_err_name(code) : "internal");
}

/* ---- a run's result document, read back for its numbers ---- */

static struct json_object *member(struct json_object *o, const char *a, const char *b)
{
	struct json_object *v = NULL;

	if (!o || !json_object_object_get_ex(o, a, &v))
		return NULL;
	if (b && (!v || !json_object_object_get_ex(v, b, &v)))
		return NULL;
	return v;
}

static long long member_int(struct json_object *o, const char *a, const char *b)
{
	struct json_object *v = member(o, a, b);

	return v && json_object_is_type(v, json_type_int) ? (long long)json_object_get_int64(v)
							  : -1;
}

/* A member that is one of the document's fixed words (a status, an error
 * code, a digest): lower-case letters, digits, '_' and ':' only, else
 * "?", so nothing else of the document can reach the log. */
static const char *member_word(struct json_object *o, const char *a, const char *b)
{
	struct json_object *v = member(o, a, b);
	const char *s = v && json_object_is_type(v, json_type_string) ? json_object_get_string(v)
								       : NULL;

	if (!s || !*s || strlen(s) > 80 || strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_:") !=
						    strlen(s))
		return "?";
	return s;
}

/* exit: what ended the command (its exit code, its signal, or the
 * failure's code), the policy it ran under, how long, how much output. */
static void log_exit(struct serve_log *l, const struct conn_log *cl, uint64_t id,
		     struct json_object *doc)
{
	const char *status = member_word(doc, "status", NULL);
	const char *code = member(doc, "error", "code") ? member_word(doc, "error", "code") : NULL;
	char what[64];
	enum hutch_err err = HUTCH_ERR_NONE;

	if (strcmp(status, "exited") == 0)
		snprintf(what, sizeof(what), "exit_code=%lld", member_int(doc, "exit_code", NULL));
	else if (strcmp(status, "signaled") == 0)
		snprintf(what, sizeof(what), "signal=%lld", member_int(doc, "signal", "number"));
	else
		snprintf(what, sizeof(what), "code=%s", code ? code : "?");
	for (int i = 1; code && i < HUTCH_ERR_MAX; i++)
		if (strcmp(hutch_err_name((enum hutch_err)i), code) == 0)
			err = (enum hutch_err)i;
	emit(l, failure_level(err),
	     "exit conn=%llu uid=%ld id=%llu digest=%s status=%s %s wall_ms=%lld stdout_bytes=%lld "
	     "stderr_bytes=%lld", (unsigned long long)cl->no, cl->uid, (unsigned long long)id,
	     member_word(doc, "jail", "digest"), status, what, member_int(doc, "usage", "wall_ms"),
	     member_int(doc, "stdout", "bytes"), member_int(doc, "stderr", "bytes"));
}

/* The bytes a base64 text decodes to (the reply's length). */
static size_t base64_bytes(struct json_object *v)
{
	const char *s = v ? json_object_get_string(v) : NULL;
	size_t n = s ? strlen(s) : 0;

	if (n < 4)
		return 0;
	return n / 4 * 3 - (s[n - 1] == '=') - (s[n - 2] == '=');
}

void serve_log_event(struct serve_log *l, struct conn_log *cl, uint64_t id, const char *kind,
		     struct json_object *payload)
{
	bool known = strcmp(kind, "ack") == 0 || strcmp(kind, "pong") == 0;

	cl->requests++;
	if (strcmp(kind, "exit") == 0)
		log_exit(l, cl, id, payload);
	else if (strcmp(kind, "reply") == 0)
		emit(l, SERVE_LOG_INFO, "reply conn=%llu uid=%ld id=%llu bytes=%zu",
		     (unsigned long long)cl->no, cl->uid, (unsigned long long)id,
		     base64_bytes(member(payload, "base64", NULL)));
	else
		emit(l, SERVE_LOG_DEBUG, "%s conn=%llu uid=%ld id=%llu", known ? kind : "event",
		     (unsigned long long)cl->no, cl->uid, (unsigned long long)id);
}
