/* serve-options.c: serve's command line (see serve.h): the server's
 * bounds with their defaults, the pinned policy's name and where clients
 * come from. Only checks; nothing is opened here. Frontend only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "forkserver-wire.h"
#include "doc/units.h"
#include "serve/serve.h"

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
	"  --max-workers N        session workers overall, 1 to 1024 (default 64)\n"
	"  --max-frame SIZE       largest request frame (default 96M)\n"
	"  --grace DURATION       how long jails get after a disconnect or SIGTERM (default 5s)\n"
	"  --lifetime DURATION    absolute cap on any run, 1ms to 720h (default 1h)\n"
	"  --max-buffered SIZE    output held in memory for all runs together (default 256M)\n"
	"  --idle-timeout DURATION  close a socket client idle this long; 0: never (default 60s)\n"
	"  --max-conn-per-uid N   socket connections per client user (default 32)\n"
	"  --allow-path-binds     let requests bind host paths by name (\"source\"), with the\n"
	"                         server's own authority; without it only descriptors the\n"
	"                         client passes (\"source_fd\") are bound\n"
	"  --no-forkserver        start one hutch-exec per run instead of forking each\n"
	"                         from a long-lived one (slower; for a wrapped helper)\n"
	"  --pool N               jails the forkserver builds ahead, 0 to 64, at most\n"
	"                         --max-total; 0: none (default 2; a root server: none)\n"
	"  --log-level LEVEL      none, error, info or debug (default info). One line on\n"
	"                         stderr per connection opened and closed, per run's exit,\n"
	"                         per failed or refused request and per session reply\n"
	"                         (debug: per request, ack and pong too), as\n"
	"                         \"hutch serve: EVENT key=value...\": conn, peer uid and\n"
	"                         pid, request id, policy digest, status, exit code, wall\n"
	"                         ms, bytes; never a command, argument, environment value\n"
	"                         or file. A UTC timestamp first, or under the journal\n"
	"                         (JOURNAL_STREAM) the sd-daemon <N> priority instead.\n"
	"                         Format: hutch-protocol(7), LOGGING\n"
	"  -h, --help             show this help\n";

static const struct option opts[] = {
	{ "fd", required_argument, NULL, 'f' },
	{ "socket", required_argument, NULL, 's' },
	{ "mode", required_argument, NULL, 'm' },
	{ "policy", required_argument, NULL, 'p' },
	{ "max-runs", required_argument, NULL, 'r' },
	{ "max-total", required_argument, NULL, 't' },
	{ "max-sessions", required_argument, NULL, 'S' },
	{ "max-workers", required_argument, NULL, 'W' },
	{ "max-frame", required_argument, NULL, 'F' },
	{ "grace", required_argument, NULL, 'g' },
	{ "lifetime", required_argument, NULL, 'l' },
	{ "max-buffered", required_argument, NULL, 'B' },
	{ "idle-timeout", required_argument, NULL, 'I' },
	{ "max-conn-per-uid", required_argument, NULL, 'U' },
	{ "no-forkserver", no_argument, NULL, 'N' },
	{ "pool", required_argument, NULL, 'o' },
	{ "allow-path-binds", no_argument, NULL, 'P' },
	{ "log-level", required_argument, NULL, 'L' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

enum number { COUNT, SIZE, DURATION };

/* The server's numeric bounds: how each is read and what it may be.
 * bound_store says which field of struct srv each one sets. */
static const struct bound {
	int opt;
	enum number kind;
	uint64_t min, max;
	const char *name, *problem;
} bounds[] = {
	{ 'r', COUNT, 1, 4096, "--max-runs", "not a number from 1 to 4096" },
	{ 't', COUNT, 1, 4096, "--max-total", "not a number from 1 to 4096" },
	{ 'S', COUNT, 0, 256, "--max-sessions", "not a number from 0 to 256" },
	{ 'W', COUNT, 1, 1024, "--max-workers", "not a number from 1 to 1024" },
	{ 'F', SIZE, 1024, 1u << 30, "--max-frame", "not a size from 1K to 1G" },
	{ 'g', DURATION, 0, 3600 * 1000, "--grace", "not a duration up to 1h" },
	/* Added to a clock: time_add_ms saturates anyway, and a bound a
	 * person can read says what is meant. */
	{ 'l', DURATION, 1, 30ull * 24 * 3600 * 1000, "--lifetime",
	  "not a duration from 1ms to 720h (30 days)" },
	{ 'B', SIZE, 1u << 20, 1ull << 40, "--max-buffered", "not a size from 1M to 1T" },
	{ 'I', DURATION, 0, 24 * 3600 * 1000, "--idle-timeout",
	  "not a duration up to 24h (0: never)" },
	{ 'U', COUNT, 1, CONNS_MAX, "--max-conn-per-uid", "not a number from 1 to 256" },
	{ 'o', COUNT, 0, HUTCH_FS_POOL_MAX, "--pool", "not a number from 0 to 64" },
};

static void bound_store(struct srv *s, int opt, uint64_t v)
{
	switch (opt) {
	case 'r': s->max_runs_conn = v; break;
	case 't': s->max_runs_total = v; break;
	case 'S': s->max_sessions = v; break;
	case 'W': s->max_workers = v; break;
	case 'F': s->max_frame = (uint32_t)v; break;	/* at most 1G */
	case 'g': s->grace_ms = v; break;
	case 'l': s->lifetime_ms = v; break;
	case 'B': s->budget.max = v; break;
	case 'I': s->idle_ms = v; break;
	case 'U': s->max_conn_uid = v; break;
	case 'o': s->pool = (unsigned)v; break;
	}
}

static int bad(const char *what, const char *problem)
{
	fprintf(stderr, "hutch serve: %s: %s\n", what, problem);
	return -EINVAL;
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

/* 1 when opt is one of the bounds (set in s, or -EINVAL), 0 when not. */
static int parse_bound(struct srv *s, int opt, const char *arg)
{
	for (size_t i = 0; i < sizeof(bounds) / sizeof(bounds[0]); i++) {
		const struct bound *b = &bounds[i];
		uint64_t v;
		int r;

		if (b->opt != opt)
			continue;
		r = b->kind == COUNT ? parse_uint(arg, UINT64_MAX, &v)
		    : b->kind == SIZE ? units_parse_size(arg, &v)
				      : units_parse_duration(arg, &v);
		if (r < 0 || v < b->min || v > b->max)
			return bad(b->name, b->problem);
		bound_store(s, opt, v);
		return 1;
	}
	return 0;
}

/* The options that are not bounds: the policy, where clients come from
 * and what the log says. */
static int parse_other(struct srv *s, int opt, const char *arg, struct serve_options *o)
{
	uint64_t v;
	char *end;
	long m;

	switch (opt) {
	case 'f':
		if (parse_uint(arg, 1 << 20, &v) < 0 || v < 3 || fcntl((int)v, F_GETFD) < 0)
			return bad("--fd", "not an open descriptor above 2");
		o->fd = (long)v;
		return 0;
	case 's':
		o->sock_path = arg;
		return 0;
	case 'm':
		m = strtol(arg, &end, 8);
		if (*end || m < 0 || m > 0777)
			return bad("--mode", "not an octal mode");
		o->mode = (mode_t)m;
		return 0;
	case 'p':
		o->policy = arg;
		return 0;
	case 'N':
		o->no_forkserver = true;
		return 0;
	case 'P':
		o->allow_path_binds = true;
		return 0;
	case 'L':
		if (serve_log_parse_level(arg, &s->log.level) == 0)
			return 0;
		fprintf(stderr, "hutch serve: --log-level %s: not one of none, error, info, debug\n",
			arg);
		return -EINVAL;
	case 'h':
		fputs(serve_usage, stdout);
		return -ECANCELED;
	default:
		fputs("Try 'hutch serve --help'.\n", stderr);
		return -EINVAL;
	}
}

int serve_options_parse(int argc, char **argv, struct srv *s, struct serve_options *ret_opts)
{
	struct serve_options o = { .policy = "default", .fd = -1, .mode = 0600 };
	int opt, r;

	*s = (struct srv){ .max_runs_conn = 8, .max_runs_total = 64, .max_sessions = 4, .max_workers = 64,
			   .grace_ms = 5000, .lifetime_ms = 3600 * 1000, .max_frame = 96u << 20,
			   .budget = { .max = 256ull << 20 }, .idle_ms = 60000,
			   .max_conn_uid = 32, .pool = 2, .sock = { .fd = -1 }, .log = { .level = SERVE_LOG_INFO },
			   .fs = { .sock = -1, .pid = -1, .pidfd = -1 } };
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		r = parse_bound(s, opt, optarg);
		if (r == 0)
			r = parse_other(s, opt, optarg, &o);
		if (r < 0)
			return r;
	}
	if (optind < argc)
		return bad(argv[optind], "unexpected argument");
	if (o.fd >= 0 && o.sock_path)
		return bad("--fd", "cannot be combined with --socket");
	s->allow_path_binds = o.allow_path_binds;
	/* Pooled jails are jails: within --max-total, and counted in
	 * serve_concurrency. A root server has none (hutch-exec(8),
	 * FORKSERVER): each root jail's host id is leased for its run. */
	if (s->pool > s->max_runs_total)
		return bad("--pool", "more than --max-total");
	if (geteuid() == 0 || o.no_forkserver)
		s->pool = 0;
	/* A connection's queue: two frames' worth, never under 16 MiB. */
	s->max_out = (size_t)s->max_frame * 2 > (16u << 20) ? (size_t)s->max_frame * 2 : (16u << 20);
	*ret_opts = o;
	return 0;
}
