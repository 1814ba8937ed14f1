/* hutch-client.c: a small C client for `hutch serve` (hutch-protocol(7)).
 * Sends one request (run or ping), reads events until the request's final
 * one, prints that event's JSON on stdout and exits 0. Links only
 * libhutch-shared.a (the frame codec): request JSON is built by hand, and
 * responses are read with a small scanner that finds top-level members.
 *
 *   hutch-client --fd N run -- COMMAND [ARG...]   N: a connected socket
 *   hutch-client --socket PATH run -- COMMAND [ARG...]
 *   hutch-client --socket PATH ping               (or --fd N ping)
 *   hutch-client --expect-uid UID --socket PATH ...
 *   hutch-client --socket PATH --count N --in-flight K run -- COMMAND...
 *   hutch-client --socket PATH --bind-ro HOST:JAIL --bind-rw HOST:JAIL run -- ...
 *
 * --bind-ro and --bind-rw open HOST here, as the caller, and pass the
 * descriptor with the request frame (SCM_RIGHTS on the sendmsg that begins
 * with the frame's first byte), named by the request as
 * {"source_fd": K, "target": JAIL, "mode": "ro"|"rw"}: the server binds
 * what we could open, never a path with its own authority
 * (hutch-protocol(7), "DESCRIPTORS"). At most 16.
 *
 * --count N sends N requests (ids 1..N), keeping up to K of them in flight
 * on the one connection (default 1), prints every final event, one line
 * each, and a summary with the rate on stderr: the serve benchmark's
 * driver (bench/serve.sh).
 *
 * Before a byte goes out, the kernel says who serves the socket
 * (SO_PEERCRED): unless it is UID, or by default our own uid or root, we
 * refuse, as whoever took the path first would read our request and
 * could forge its result (hutch-protocol(7), "Clients").
 *
 * Exit status: 0 when a final event arrived (whatever it says; a summary
 * of a run's result goes to stderr), 1 when the connection ended first or
 * broke the framing, 2 for usage errors, 3 when the server is not the
 * expected user. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "fd-util.h"
#include "frame-codec.h"

#define MAX_EVENT (256u << 20)	/* a result document may carry 64 MiB twice, base64'd */
#define MAX_BINDS 16		/* descriptors with one frame (hutch-protocol(7)) */

/* A --bind-ro or --bind-rw: HOST opened by us, passed as source_fd. */
struct bind {
	const char *jail;
	bool rw;
	int fd;
};

static const char usage[] =
	"Usage: hutch-client [--expect-uid UID] --fd N | --socket PATH [--count N]\n"
	"                    [--in-flight K] [--bind-ro HOST:JAIL] [--bind-rw HOST:JAIL]\n"
	"                    run -- COMMAND [ARG...]\n"
	"       hutch-client [--expect-uid UID] --fd N | --socket PATH [--count N]\n"
	"                    [--in-flight K]  ping\n";

/* ---- building the request ---- */

struct buf {
	char *p;
	size_t len, cap;
	bool failed;
};

static void buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->failed)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->len + n + 1) * 2;
		char *p = realloc(b->p, cap);

		if (!p) {
			b->failed = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static void buf_puts(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

/* Length of the UTF-8 sequence at s (strict: no overlong forms, no
 * surrogates, nothing above U+10FFFF), or 0 when it is not one. The server
 * refuses a frame that is not UTF-8, so we refuse to send one. */
static size_t utf8_seq(const unsigned char *s)
{
	unsigned c = s[0];
	size_t n;
	unsigned cp, min;

	if (c < 0x80)
		return 1;
	if ((c & 0xe0) == 0xc0)
		n = 2, cp = c & 0x1f, min = 0x80;
	else if ((c & 0xf0) == 0xe0)
		n = 3, cp = c & 0x0f, min = 0x800;
	else if ((c & 0xf8) == 0xf0)
		n = 4, cp = c & 0x07, min = 0x10000;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;	/* also stops at the terminating NUL */
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* A JSON string: quotes, backslashes and control characters escaped,
 * UTF-8 passed through. -EILSEQ when s is not UTF-8. */
static int buf_json_string(struct buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	buf_add(b, "\"", 1);
	while (*p) {
		size_t n = utf8_seq(p);
		char esc[8];

		if (n == 0)
			return -EILSEQ;
		if (*p == '"' || *p == '\\') {
			esc[0] = '\\';
			esc[1] = (char)*p;
			buf_add(b, esc, 2);
		} else if (*p < 0x20 || *p == 0x7f) {
			snprintf(esc, sizeof(esc), "\\u%04x", *p);
			buf_add(b, esc, 6);
		} else {
			buf_add(b, (const char *)p, n);
		}
		p += n;
	}
	buf_add(b, "\"", 1);
	return 0;
}

/* ,"mounts":[{"source_fd":0,"target":"/x","mode":"ro"},...] */
static int build_mounts(struct buf *b, const struct bind *binds, int n)
{
	char idx[48];

	if (n == 0)
		return 0;
	buf_puts(b, ",\"mounts\":[");
	for (int k = 0; k < n; k++) {
		snprintf(idx, sizeof(idx), "%s{\"source_fd\":%d,\"target\":", k ? "," : "", k);
		buf_puts(b, idx);
		if (buf_json_string(b, binds[k].jail) < 0)
			return -EILSEQ;
		buf_puts(b, binds[k].rw ? ",\"mode\":\"rw\"}" : ",\"mode\":\"ro\"}");
	}
	buf_puts(b, "]");
	return 0;
}

/* {"version":1,"id":1,"run":{"version":1,"argv":[...]}} or a ping. */
static int build_request(struct buf *b, long id, bool is_ping, char **argv, int argc,
			 const struct bind *binds, int n_binds)
{
	char head[64];

	snprintf(head, sizeof(head), "{\"version\":1,\"id\":%ld,", id);
	buf_puts(b, head);
	if (is_ping) {
		buf_puts(b, "\"ping\":{}}");
		return b->failed ? -ENOMEM : 0;
	}
	buf_puts(b, "\"run\":{\"version\":1,\"argv\":[");
	for (int i = 0; i < argc; i++) {
		if (i)
			buf_puts(b, ",");
		if (buf_json_string(b, argv[i]) < 0)
			return -EILSEQ;
	}
	buf_puts(b, "]");
	if (build_mounts(b, binds, n_binds) < 0)
		return -EILSEQ;
	buf_puts(b, "}}");
	return b->failed ? -ENOMEM : 0;
}

/* ---- reading events ---- */

/* A minimal reader for the server's events: the skip_ helpers move *p
 * past whitespace, a string or a whole value and say false when the text
 * ends first. Strings are skipped escape by escape, so a quote or a brace
 * inside captured output never confuses them. */
static bool skip_ws(const char **p, const char *end)
{
	while (*p < end && (**p == ' ' || **p == '\t' || **p == '\n' || **p == '\r'))
		(*p)++;
	return *p < end;
}

static bool skip_string(const char **p, const char *end)
{
	for ((*p)++; *p < end; (*p)++) {
		if (**p == '\\') {
			if (end - *p < 2)
				return false;
			(*p)++;	/* the escaped character */
		} else if (**p == '"') {
			(*p)++;
			return true;
		}
	}
	return false;
}

static bool skip_value(const char **p, const char *end)
{
	int depth = 0;

	if (!skip_ws(p, end))
		return false;
	do {
		if (*p >= end)
			return false;
		switch (**p) {
		case '"':
			if (!skip_string(p, end))
				return false;
			continue;
		case '{':
		case '[':
			depth++;
			break;
		case '}':
		case ']':
			depth--;
			break;
		default:
			if (depth == 0) {	/* a number, true, false or null */
				while (*p < end && !strchr(",}] \t\r\n", **p))
					(*p)++;
				return true;
			}
			break;
		}
		(*p)++;
	} while (depth > 0);
	return true;
}

/* Find the top-level member `key` of the object in [s, end): writes where
 * its value starts and ends. Keys are compared as raw text, which is what
 * the server writes (plain ASCII names). */
static bool json_member(const char *s, const char *end, const char *key, const char **ret_val,
			const char **ret_end)
{
	const char *p = s;
	size_t klen = strlen(key);

	if (!skip_ws(&p, end) || *p != '{')
		return false;
	p++;
	for (;;) {
		const char *k, *v;
		size_t n;

		if (!skip_ws(&p, end) || *p != '"')
			return false;
		k = p + 1;
		if (!skip_string(&p, end))
			return false;
		n = (size_t)(p - 1 - k);	/* p is past the closing quote */
		if (!skip_ws(&p, end) || *p != ':')
			return false;
		p++;
		if (!skip_ws(&p, end))
			return false;
		v = p;
		if (!skip_value(&p, end))
			return false;
		if (n == klen && memcmp(k, key, klen) == 0) {
			*ret_val = v;
			*ret_end = p;
			return true;
		}
		if (!skip_ws(&p, end) || *p != ',')
			return false;
		p++;
	}
}

static long long member_int(const char *s, const char *end, const char *key, long long dflt)
{
	const char *v, *ve;

	if (!json_member(s, end, key, &v, &ve) || !(*v == '-' || (*v >= '0' && *v <= '9')))
		return dflt;
	return strtoll(v, NULL, 10);
}

/* What the summary prints for a string member: up to 40 bytes of it. */
static void member_str(const char *s, const char *end, const char *key, char *out, size_t n)
{
	const char *v, *ve;
	size_t len;

	snprintf(out, n, "-");
	if (!json_member(s, end, key, &v, &ve) || *v != '"')
		return;
	len = (size_t)(ve - v) - 2;
	snprintf(out, n, "%.*s", (int)(len < 40 ? len : 40), v + 1);
}

/* What is being sent and what has come back. */
struct batch {
	int fd;
	bool is_ping;
	char **argv;
	int argc;
	long count, in_flight;	/* requests in all, at most in flight */
	long sent, finals, exited_ok;
	size_t live;
	struct bind binds[MAX_BINDS];	/* passed with every run frame */
	int n_binds;
};

/* The frame's header and its first bytes in one sendmsg, with the bind
 * descriptors; the rest as it goes. 0 or -errno. */
static int send_frame(struct batch *bt, const char *body, size_t len)
{
	uint8_t hdr[FRAME_HEADER_BYTES];
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int) * MAX_BINDS)];
	} u;
	struct iovec iov[2] = { { hdr, sizeof(hdr) }, { (void *)body, len } };
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = 2 };
	ssize_t n;

	frame_put_header(hdr, (uint32_t)len);
	if (bt->n_binds && !bt->is_ping) {
		struct cmsghdr *c;

		memset(&u, 0, sizeof(u));
		msg.msg_control = u.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)bt->n_binds);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)bt->n_binds);
		for (int k = 0; k < bt->n_binds; k++)
			memcpy(CMSG_DATA(c) + k * sizeof(int), &bt->binds[k].fd, sizeof(int));
	}
	do
		n = sendmsg(bt->fd, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if ((size_t)n < sizeof(hdr))
		return fd_write_all(bt->fd, hdr + n, sizeof(hdr) - (size_t)n) < 0
			       ? -EPIPE : fd_write_all(bt->fd, body, len);
	n -= (ssize_t)sizeof(hdr);
	return fd_write_all(bt->fd, body + n, len - (size_t)n);
}

/* One request frame, id n. 0, or 1 with the problem printed. */
static int send_one(struct batch *bt)
{
	struct buf req = { 0 };
	int r = build_request(&req, bt->sent + 1, bt->is_ping, bt->argv, bt->argc, bt->binds,
			      bt->n_binds);

	if (r == 0)
		r = send_frame(bt, req.p, req.len);
	free(req.p);
	if (r < 0) {
		fprintf(stderr, "hutch-client: cannot send the request: %s\n",
			r == -EILSEQ ? "an argument is not UTF-8" : strerror(-r));
		return r == -EILSEQ ? 2 : 1;
	}
	bt->sent++;
	return 0;
}

/* One event: a final one is printed and counted, and makes room for the
 * next request. 0 to go on, 1 when the server ended the connection over
 * our frame (id 0), -1 on a send failure. */
static int on_event(struct batch *bt, const char *t, size_t len)
{
	const char *end = t + len, *v, *ve;
	long long id = member_int(t, end, "id", -1);

	if (json_member(t, end, "live", &v, &ve)) {
		bt->live++;	/* a snapshot of output so far */
		return 0;
	}
	if (id != 0 && (id < 1 || id > bt->sent))
		return 0;	/* not ours: nothing else is sent on this connection */
	if (json_member(t, end, "exit", &v, &ve)) {
		char status[48];

		member_str(v, ve, "status", status, sizeof(status));
		if (strcmp(status, "exited") == 0 && member_int(v, ve, "exit_code", -1) == 0)
			bt->exited_ok++;
		if (bt->count == 1)
			fprintf(stderr, "hutch-client: %s, exit_code %lld, %zu live events\n", status,
				member_int(v, ve, "exit_code", -1), bt->live);
	} else if (json_member(t, end, "pong", &v, &ve)) {
		bt->exited_ok++;
	}
	fwrite(t, 1, len, stdout);
	fputc('\n', stdout);
	if (id == 0)
		return 1;
	bt->finals++;
	if (bt->sent < bt->count && send_one(bt) != 0)
		return -1;
	return 0;
}

/* Read events until every request has its final one (or id 0: the
 * server ended the connection over our frame). 0 when all came, 1
 * otherwise. */
static int read_events(struct batch *bt)
{
	struct frame_reader fr = { .max = MAX_EVENT };
	static uint8_t chunk[64 << 10];

	while (bt->finals < bt->count) {
		ssize_t n = read(bt->fd, chunk, sizeof(chunk));
		size_t off = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "hutch-client: the server closed the connection\n");
			frame_reader_reset(&fr);
			return 1;
		}
		while (off < (size_t)n) {
			size_t used = 0, len = 0;
			enum frame_state st = frame_reader_feed(&fr, chunk + off, (size_t)n - off,
								&used);
			uint8_t *frame;
			int r;

			off += used;
			if (st == FRAME_MORE)
				continue;
			if (st != FRAME_DONE) {
				fprintf(stderr, "hutch-client: bad frame from the server\n");
				frame_reader_reset(&fr);
				return 1;
			}
			frame = frame_reader_take(&fr, &len);
			r = on_event(bt, (const char *)frame, len);
			free(frame);
			if (r != 0) {
				frame_reader_reset(&fr);
				return 1;
			}
		}
	}
	return fflush(stdout) == 0 ? 0 : 1;
}

/* ---- main ---- */

static int connect_unix(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	return fd;
}

/* The server is who we expect: 0, or -EPERM with *ret_uid its uid. */
static int check_peer(int fd, long expect_uid, uid_t *ret_uid)
{
	struct ucred cr;
	socklen_t l = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &l) < 0)
		return -errno;
	if (l != sizeof(cr))
		return -EPROTO;
	*ret_uid = cr.uid;
	if (expect_uid >= 0 ? cr.uid == (uid_t)expect_uid : cr.uid == geteuid() || cr.uid == 0)
		return 0;
	return -EPERM;
}

static long parse_num(const char *s, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < 0 || v > max)
		return -1;
	return v;
}

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* --bind-ro/--bind-rw HOST:JAIL: HOST opened as we are (a directory or
 * a file for reading; a file for writing too when rw), to pass. 0, or -1
 * with the problem printed. */
static int open_bind(struct batch *bt, const char *opt, const char *arg)
{
	const char *colon = strchr(arg, ':');
	struct bind *b = &bt->binds[bt->n_binds];
	char host[4096];
	struct stat st;

	if (!colon || colon == arg || colon[1] != '/' || (size_t)(colon - arg) >= sizeof(host)) {
		fprintf(stderr, "hutch-client: %s: %s: give HOST:JAIL (JAIL absolute)\n", opt, arg);
		return -1;
	}
	if (bt->n_binds >= MAX_BINDS) {
		fprintf(stderr, "hutch-client: %s: more than %d binds; at most %d\n", opt,
			MAX_BINDS, MAX_BINDS);
		return -1;
	}
	memcpy(host, arg, (size_t)(colon - arg));
	host[colon - arg] = '\0';
	b->rw = strcmp(opt, "--bind-rw") == 0;
	b->jail = colon + 1;
	b->fd = open(host, (b->rw && stat(host, &st) == 0 && !S_ISDIR(st.st_mode) ? O_RDWR
										 : O_RDONLY) |
				   O_CLOEXEC | O_NOCTTY);
	if (b->fd < 0) {
		fprintf(stderr, "hutch-client: %s: %s: %s\n", opt, host, strerror(errno));
		return -1;
	}
	bt->n_binds++;
	return 0;
}

/* The options before the request; i is left at it. 0, or 2 for usage. */
static int parse_options(int argc, char **argv, int *i, const char **path, long *fd,
			 long *expect_uid, struct batch *bt)
{
	for (; *i + 1 < argc && strncmp(argv[*i], "--", 2) == 0; *i += 2) {
		const char *o = argv[*i], *v = argv[*i + 1];

		if (strcmp(o, "--expect-uid") == 0) {
			*expect_uid = parse_num(v, (long)UINT32_MAX - 1);
			if (*expect_uid < 0) {
				fputs("hutch-client: --expect-uid: not a uid; give a number\n", stderr);
				return 2;
			}
		} else if (strcmp(o, "--fd") == 0 && (*fd = parse_num(v, 1 << 20)) >= 0) {
			continue;
		} else if (strcmp(o, "--socket") == 0) {
			*path = v;
		} else if (strcmp(o, "--count") == 0 && (bt->count = parse_num(v, 100000000)) > 0) {
			continue;
		} else if (strcmp(o, "--in-flight") == 0 &&
			   (bt->in_flight = parse_num(v, 4096)) > 0) {
			continue;
		} else if (strcmp(o, "--bind-ro") == 0 || strcmp(o, "--bind-rw") == 0) {
			if (open_bind(bt, o, v) < 0)
				return 2;
		} else {
			fputs(usage, stderr);
			return 2;
		}
	}
	if ((*fd < 0) == (*path == NULL)) {
		fputs(usage, stderr);
		return 2;
	}
	return 0;
}

/* The connection, and the server is the expected user. fd, or -(exit). */
static int open_checked(const char *path, long fd, long expect_uid)
{
	uid_t peer = 0;
	int r;

	if (path) {
		fd = connect_unix(path);
		if (fd < 0) {
			fprintf(stderr, "hutch-client: %s: %s\n", path, strerror((int)-fd));
			return -1;
		}
	}
	r = check_peer((int)fd, expect_uid, &peer);
	if (r == -EPERM)
		fprintf(stderr, "hutch-client: %s: the server runs as uid %u, not the expected user; "
			"refusing to send (--expect-uid UID if that user is meant)\n",
			path ? path : "--fd", (unsigned)peer);
	else if (r < 0)
		fprintf(stderr, "hutch-client: %s: cannot tell who serves it (%s); refusing to send\n",
			path ? path : "--fd", strerror(-r));
	if (r < 0) {
		close((int)fd);
		return -3;
	}
	return (int)fd;
}

int main(int argc, char **argv)
{
	struct batch bt = { .count = 1, .in_flight = 1 };
	const char *path = NULL;
	long expect_uid = -1, fd = -1;
	uint64_t t0;
	int i = 1, r;

	r = parse_options(argc, argv, &i, &path, &fd, &expect_uid, &bt);
	if (r != 0)
		return r;
	if (i < argc && strcmp(argv[i], "ping") == 0 && i + 1 == argc) {
		bt.is_ping = true;
	} else if (i + 2 < argc && strcmp(argv[i], "run") == 0 && strcmp(argv[i + 1], "--") == 0) {
		bt.argv = argv + i + 2;
		bt.argc = argc - i - 2;
	} else {
		fputs(usage, stderr);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);	/* a server gone mid-request is an error, not a signal */
	bt.fd = open_checked(path, fd, expect_uid);
	if (bt.fd < 0)
		return -bt.fd;
	t0 = now_us();
	r = 0;
	while (r == 0 && bt.sent < bt.count && bt.sent < bt.in_flight)
		r = send_one(&bt);
	if (r == 0)
		r = read_events(&bt);
	if (bt.count > 1) {
		uint64_t us = now_us() - t0;

		fprintf(stderr, "hutch-client: %ld of %ld final events (%ld ok) in %.1f ms, "
			"%ld in flight: %.1f per second\n", bt.finals, bt.count, bt.exited_ok,
			(double)us / 1000.0, bt.in_flight,
			us ? (double)bt.finals * 1e6 / (double)us : 0.0);
	}
	close(bt.fd);
	return r;
}
