/* hutch-client.c: a small C client for `hutch serve` (hutch-protocol(7)),
 * to be scripted like `hutch run`. Sends one run and streams the command's
 * output to our stdout and stderr as live events bring it, then exits with
 * the command's status, or hutch(1)'s status for hutch's own outcomes;
 * SIGINT or SIGTERM cancels the run (client-run.c). Links only
 * libhutch-shared.a (the frame codec, the error table): request JSON is
 * built by hand, and responses are read with a small scanner that finds
 * top-level members (client-json.c).
 *
 *   hutch-client --fd N run -- COMMAND [ARG...]   N: a connected socket
 *   hutch-client --socket PATH run -- COMMAND [ARG...]
 *   hutch-client --socket PATH --json run -- COMMAND [ARG...]
 *   hutch-client --socket PATH ping               (or --fd N ping)
 *   hutch-client --expect-uid NAME|UID --socket PATH ...
 *   hutch-client --socket PATH --count N --in-flight K run -- COMMAND...
 *   hutch-client --socket PATH --bind-ro HOST:JAIL --bind-rw HOST:JAIL run -- ...
 *   hutch-client --socket PATH --json --overlay HOST:JAIL run -- ...
 *
 * --bind-ro, --bind-rw and --overlay open HOST here and pass its
 * descriptor with the request (client-binds.h): the server binds what we
 * could open, never a path with its own authority. At most 16. An
 * overlay's jail sees HOST copy-on-write; --json shows the change set.
 *
 * --json prints the final event's JSON on stdout instead and exits 0 once
 * it did, as `hutch run --json` does. ping prints the pong event's JSON.
 * --count N sends N requests (ids 1..N), keeping up to K of them in flight
 * on the one connection (default 1), prints every final event, one line
 * each, and a summary with the rate on stderr: the serve benchmark's
 * driver (bench/serve.sh).
 *
 * Before a byte goes out, the kernel says who serves the socket
 * (SO_PEERCRED): unless it is the --expect-uid user, or by default our own
 * uid or root, we refuse, as whoever took the path first would read our
 * request and could forge its result (hutch-protocol(7), "Clients").
 *
 * Exit status: a run's as hutch(1) gives it (the command's, 128+N, 124,
 * 126, 127, 71, 125); with --json, --count or ping, 0 when every final
 * event arrived; 125 for our own failures (usage, the connection, a
 * server that is not the expected user). */
#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "client-binds.h"
#include "client-json.h"
#include "client-run.h"
#include "fd-util.h"
#include "frame-codec.h"

#define MAX_EVENT (256u << 20)	/* a result document may carry 64 MiB twice, base64'd */

static const char usage[] =
	"Usage: hutch-client [--expect-uid NAME|UID] --fd N | --socket PATH [--json]\n"
	"                    [--count N] [--in-flight K] [--bind-ro HOST:JAIL]\n"
	"                    [--bind-rw HOST:JAIL] [--overlay HOST:JAIL]\n"
	"                    run -- COMMAND [ARG...]\n"
	"       hutch-client [--expect-uid NAME|UID] --fd N | --socket PATH [--count N]\n"
	"                    [--in-flight K]  ping\n";

/* ---- building the request ---- */

/* {"version":1,"id":1,"run":{"version":1,"argv":[...]}} or a ping. */
static int build_request(struct buf *b, long id, bool is_ping, char **argv, int argc,
			 const struct client_binds *cb)
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
	if (client_binds_json(b, cb) < 0)
		return -EILSEQ;
	buf_puts(b, "}}");
	return b->failed ? -ENOMEM : 0;
}

/* ---- reading events ---- */

/* What is being sent and what has come back. */
struct batch {
	int fd;
	bool is_ping;
	bool json;		/* --json: the final event's JSON, not the output */
	char **argv;
	int argc;
	long count, in_flight;	/* requests in all, at most in flight */
	long sent, finals, exited_ok;
	struct client_binds binds;	/* passed with every run frame */
};

/* One request frame, id n. 0, or 1 with the problem printed. */
static int send_one(struct batch *bt)
{
	struct buf req = { 0 };
	int r = build_request(&req, bt->sent + 1, bt->is_ping, bt->argv, bt->argc, &bt->binds);

	if (r == 0)
		r = client_send_frame(bt->fd, bt->is_ping ? NULL : &bt->binds, req.p, req.len);
	free(req.p);
	if (r < 0) {
		fprintf(stderr, "hutch-client: cannot send the request: %s\n",
			r == -EILSEQ ? "an argument is not UTF-8" : strerror(-r));
		return CLIENT_EXIT_FAILURE;
	}
	bt->sent++;
	return 0;
}

/* One event: a final one is printed and counted, and makes room for the
 * next request. 0 to go on, 1 when the server ended the connection over
 * our frame (id 0), -1 on a send failure. --count and ping only: a single
 * run is client-run.c's. */
static int on_event(struct batch *bt, const char *t, size_t len)
{
	const char *end = t + len, *v, *ve;
	long long id = json_member_int(t, end, "id", -1);

	if (json_member(t, end, "live", &v, &ve))
		return 0;	/* a snapshot of output so far */
	if (id != 0 && (id < 1 || id > bt->sent))
		return 0;	/* not ours: nothing else is sent on this connection */
	if (client_exit_status(t, len) == 0)
		bt->exited_ok++;	/* exited 0, or a pong */
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
 * server ended the connection over our frame). 0 when all came, 125
 * otherwise. */
static int read_events(struct batch *bt)
{
	struct frame_reader fr = { .max = MAX_EVENT };
	static uint8_t chunk[64 << 10];

	while (bt->finals < bt->count) {
		ssize_t n = read(bt->fd, chunk, sizeof(chunk));
		size_t off = 0, len = 0;
		uint8_t *frame;
		int got, r;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "hutch-client: the server closed the connection\n");
			frame_reader_reset(&fr);
			return CLIENT_EXIT_FAILURE;
		}
		while ((got = client_next_frame(&fr, chunk, (size_t)n, &off, &frame, &len)) > 0) {
			r = on_event(bt, (const char *)frame, len);
			free(frame);
			if (r != 0)
				break;
		}
		if (got != 0) {
			/* a bad frame, or an event that ends the batch */
			frame_reader_reset(&fr);
			return CLIENT_EXIT_FAILURE;
		}
	}
	return fflush(stdout) == 0 ? 0 : CLIENT_EXIT_FAILURE;
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

/* --expect-uid: a uid, or a user name the password database knows. */
static long parse_uid(const char *v)
{
	struct passwd *pw;

	if (*v >= '0' && *v <= '9')
		return parse_num(v, (long)UINT32_MAX - 1);
	errno = 0;
	pw = getpwnam(v);
	return pw ? (long)pw->pw_uid : -1;
}

/* The options before the request; i is left at it. 0, or 125 for usage. */
static int parse_options(int argc, char **argv, int *i, const char **path, long *fd,
			 long *expect_uid, struct batch *bt)
{
	for (; *i < argc && strncmp(argv[*i], "--", 2) == 0; *i += 2) {
		const char *o = argv[*i], *v = *i + 1 < argc ? argv[*i + 1] : "";

		if (strcmp(o, "--json") == 0) {
			bt->json = true;
			*i -= 1;	/* takes no value */
		} else if (strcmp(o, "--expect-uid") == 0) {
			*expect_uid = parse_uid(v);
			if (*expect_uid < 0) {
				fprintf(stderr, "hutch-client: --expect-uid %s: no such user; give a "
					"user name or a uid\n", v);
				return CLIENT_EXIT_FAILURE;
			}
		} else if (strcmp(o, "--fd") == 0 && (*fd = parse_num(v, 1 << 20)) >= 0) {
			continue;
		} else if (strcmp(o, "--bind-ro") == 0 || strcmp(o, "--bind-rw") == 0 ||
			   strcmp(o, "--overlay") == 0) {
			if (client_binds_add(&bt->binds, o, v) < 0)
				return CLIENT_EXIT_FAILURE;
		} else if (strcmp(o, "--socket") == 0 && *v) {
			*path = v;
		} else if (strcmp(o, "--count") == 0 && (bt->count = parse_num(v, 100000000)) > 0) {
			continue;
		} else if (strcmp(o, "--in-flight") == 0 &&
			   (bt->in_flight = parse_num(v, 4096)) > 0) {
			continue;
		} else {
			fputs(usage, stderr);
			return CLIENT_EXIT_FAILURE;
		}
	}
	if ((*fd < 0) == (*path == NULL)) {
		fputs(usage, stderr);
		return CLIENT_EXIT_FAILURE;
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
			return -CLIENT_EXIT_FAILURE;
		}
	}
	r = check_peer((int)fd, expect_uid, &peer);
	if (r == -EPERM)
		fprintf(stderr, "hutch-client: %s: the server runs as uid %u, not the expected user; "
			"refusing to send (--expect-uid NAME|UID if that user is meant)\n",
			path ? path : "--fd", (unsigned)peer);
	else if (r < 0)
		fprintf(stderr, "hutch-client: %s: cannot tell who serves it (%s); refusing to send\n",
			path ? path : "--fd", strerror(-r));
	if (r < 0) {
		close((int)fd);
		return -CLIENT_EXIT_FAILURE;
	}
	return (int)fd;
}

/* A single run: signals blocked before it goes out (a SIGINT meanwhile
 * becomes its cancel), then client-run.c until its final event. */
static int run_single(struct batch *bt)
{
	int sig_fd = client_block_signals();
	int r = send_one(bt);

	if (r == 0)
		r = client_run_wait(bt->fd, sig_fd, bt->json);
	if (sig_fd >= 0)
		close(sig_fd);
	return r;
}

/* --count, --in-flight and ping: every final event printed; with more
 * than one request, the count and the rate on stderr. */
static int run_batch(struct batch *bt)
{
	uint64_t t0 = now_us(), us;
	int r = 0;

	while (r == 0 && bt->sent < bt->count && bt->sent < bt->in_flight)
		r = send_one(bt);
	if (r == 0)
		r = read_events(bt);
	if (bt->count > 1) {
		us = now_us() - t0;
		fprintf(stderr, "hutch-client: %ld of %ld final events (%ld ok) in %.1f ms, "
			"%ld in flight: %.1f per second\n", bt->finals, bt->count, bt->exited_ok,
			(double)us / 1000.0, bt->in_flight,
			us ? (double)bt->finals * 1e6 / (double)us : 0.0);
	}
	return r;
}

int main(int argc, char **argv)
{
	struct batch bt = { .count = 1, .in_flight = 1 };
	const char *path = NULL;
	long expect_uid = -1, fd = -1;
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
		return CLIENT_EXIT_FAILURE;
	}
	signal(SIGPIPE, SIG_IGN);	/* a server gone mid-request is an error, not a signal */
	bt.fd = open_checked(path, fd, expect_uid);
	if (bt.fd < 0)
		return -bt.fd;
	r = bt.is_ping || bt.count > 1 ? run_batch(&bt) : run_single(&bt);
	close(bt.fd);
	return r;
}
