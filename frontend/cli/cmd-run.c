/* run.c: `hutch run`. Options become a request document (so the CLI and
 * --request share one validator), the document is narrowed by its policy
 * into a plan, the plan runs, and the outcome becomes a result document,
 * printed (--json), written to --result-fd, or turned into an exit status.
 * Frontend only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "errors.h"
#include "fd-util.h"
#include "spec.h"
#include "cli/cmd-run.h"
#include "cli/file-words.h"
#include "cli/run-changes-dir.h"
#include "cli/run-output-dir.h"
#include "cli/run-tty.h"
#include "doc/json-util.h"
#include "doc/policy-accepts.h"
#include "doc/policy-choice.h"
#include "doc/policy.h"
#include "doc/request.h"
#include "doc/result.h"
#include "doc/result-net.h"
#include "doc/host-pattern.h"
#include "doc/text.h"
#include "doc/units.h"
#include "jail/narrow.h"
#include "jail/policy-cache.h"
#include "jail/plan-json.h"
#include "run/execute.h"
#include "run/jail-report.h"
#include "run/explain.h"
#include "run/probe.h"

static const char usage[] =
	"Usage: hutch run [OPTIONS] [--] COMMAND [ARG...]\n"
	"       hutch run --request FILE|- [--dry-run] [--result-fd N]\n"
	"\n"
	"Run COMMAND in a jail narrowed from a policy. Options only narrow the policy.\n"
	"\n"
	"  --policy NAME|FILE     policy to narrow (default: default)\n"
	"  --allow-policies LIST  names a --request document may pick (comma-separated)\n"
	"  --timeout DURATION     wall-clock limit (wall_ms)\n"
	"  --cpu DURATION         CPU time limit (cpu_ms)\n"
	"  --idle-timeout DURATION  kill after this long without output (idle_ms)\n"
	"  --memory SIZE          memory.max, else RLIMIT_DATA (memory_bytes)\n"
	"  --max-output SIZE      stdout cap (stdout_bytes)\n"
	"  --max-stderr SIZE      stderr cap (stderr_bytes)\n"
	"  --file-size SIZE       largest file the command may write (file_size_bytes)\n"
	"  --processes N          process limit (processes)\n"
	"  --open-files N         open file limit (open_files)\n"
	"  --network MODE         none, loopback, proxy or host, as the policy allows\n"
	"  --allow-host PATTERN[:PORT]  with --network proxy: a host it may reach (repeatable)\n"
	"  --allow-private        with --network proxy: private and host addresses too\n"
	"  --env NAME=VALUE       set a variable the policy allows\n"
	"  --ro PATH[:DEST]       bind a host path read-only\n"
	"  --rw PATH[:DEST]       bind a host path read-write\n"
	"  --hide JAILPATH        hide a file or directory inside a bind: empty, read-only\n"
	"  --overlay PATH[:DEST]  bind a host directory copy-on-write; the result lists the changes\n"
	"  --input NAME=FILE      stage FILE into the working directory as NAME\n"
	"  --collect NAME         return the file or directory NAME from the working directory\n"
	"  --output-dir DIR       without --json, write collected files into DIR (default: .)\n"
	"  --changes-dir DIR      write the overlays' changed files and changes.json into DIR\n"
	"  -t, --tty              give the command a terminal of the jail's own, relayed to ours\n"
	"  --cwd DIR              working directory inside the jail\n"
	"  --frame                stdout must be exactly one length-prefixed frame\n"
	"  --keep-partial         on a timeout, a cap or cancel, keep the output so far\n"
	"  --request FILE|-       read a JSON request document (implies --json)\n"
	"  --json                 print the result document instead of the output\n"
	"  --result-fd N          pass output through and write the result document to fd N\n"
	"  --dry-run              print the resolved jail plan as JSON and exit\n"
	"  --explain              report what the jail withheld, and what would grant it\n"
	"  -h, --help             show this help\n"
	"\n"
	"SIZE: bytes or K, M, G, T (powers of 1024). DURATION: seconds or ms, s, m, h.\n"
	"Exit status: the command's; 128+N on signal N; 124 timeout; 126 cannot execute;\n"
	"127 not found; 71 jail refused; 125 any other hutch failure. With --json: 0\n"
	"when a result document was printed. See hutch(1).\n";

enum {
	OPT_POLICY = 256,
	OPT_TIMEOUT,
	OPT_CPU,
	OPT_IDLE,
	OPT_MEMORY,
	OPT_MAX_OUTPUT,
	OPT_MAX_STDERR,
	OPT_FILE_SIZE,
	OPT_PROCESSES,
	OPT_OPEN_FILES,
	OPT_NETWORK,
	OPT_ALLOW_HOST,
	OPT_ALLOW_PRIVATE,
	OPT_ENV,
	OPT_RO,
	OPT_RW,
	OPT_OVERLAY,
	OPT_INPUT,
	OPT_COLLECT,
	OPT_HIDE,
	OPT_CWD,
	OPT_FRAME,
	OPT_KEEP_PARTIAL,
	OPT_REQUEST,
	OPT_JSON,
	OPT_RESULT_FD,
	OPT_DRY_RUN,
	OPT_ALLOW_POLICIES,
	OPT_EXPLAIN,
	/* outputs to the host (run-output-dir.c) */
	OPT_OUTPUT_DIR,
	OPT_CHANGES_DIR,	/* run-changes-dir.c */
};

static const struct option options[] = {
	{ "policy", required_argument, NULL, OPT_POLICY },
	{ "allow-policies", required_argument, NULL, OPT_ALLOW_POLICIES },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "cpu", required_argument, NULL, OPT_CPU },
	{ "idle-timeout", required_argument, NULL, OPT_IDLE },
	{ "memory", required_argument, NULL, OPT_MEMORY },
	{ "max-output", required_argument, NULL, OPT_MAX_OUTPUT },
	{ "max-stderr", required_argument, NULL, OPT_MAX_STDERR },
	{ "file-size", required_argument, NULL, OPT_FILE_SIZE },
	{ "processes", required_argument, NULL, OPT_PROCESSES },
	{ "open-files", required_argument, NULL, OPT_OPEN_FILES },
	{ "network", required_argument, NULL, OPT_NETWORK },
	{ "allow-host", required_argument, NULL, OPT_ALLOW_HOST },
	{ "allow-private", no_argument, NULL, OPT_ALLOW_PRIVATE },
	{ "env", required_argument, NULL, OPT_ENV },
	{ "ro", required_argument, NULL, OPT_RO },
	{ "rw", required_argument, NULL, OPT_RW },
	{ "overlay", required_argument, NULL, OPT_OVERLAY },
	{ "input", required_argument, NULL, OPT_INPUT },
	{ "collect", required_argument, NULL, OPT_COLLECT },
	{ "hide", required_argument, NULL, OPT_HIDE },
	{ "cwd", required_argument, NULL, OPT_CWD },
	{ "frame", no_argument, NULL, OPT_FRAME },
	{ "keep-partial", no_argument, NULL, OPT_KEEP_PARTIAL },
	{ "request", required_argument, NULL, OPT_REQUEST },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "result-fd", required_argument, NULL, OPT_RESULT_FD },
	{ "dry-run", no_argument, NULL, OPT_DRY_RUN },
	{ "explain", no_argument, NULL, OPT_EXPLAIN },
	/* outputs to the host */
	{ "output-dir", required_argument, NULL, OPT_OUTPUT_DIR },
	{ "changes-dir", required_argument, NULL, OPT_CHANGES_DIR },
	/* interactive use (run-tty.c) */
	{ "tty", no_argument, NULL, 't' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* The options that set a request's limits: a message names the flag and
 * the value as typed, never the field (wall_ms). */
static const struct limit_flag {
	const char *field, *flag;
	bool is_duration;
} limit_flags[] = {
	{ "wall_ms", "--timeout", true },	  { "cpu_ms", "--cpu", true },
	{ "idle_ms", "--idle-timeout", true },	  { "memory_bytes", "--memory", false },
	{ "stdout_bytes", "--max-output", false }, { "stderr_bytes", "--max-stderr", false },
	{ "file_size_bytes", "--file-size", false }, { "processes", "--processes", false },
	{ "open_files", "--open-files", false },
};
#define N_LIMIT_FLAGS (sizeof(limit_flags) / sizeof(limit_flags[0]))
#define MOUNT_FLAGS_MAX 64

struct run_cli {
	const char *typed[N_LIMIT_FLAGS];	/* each limit's value as typed */
	const char *mount_typed[MOUNT_FLAGS_MAX]; /* --ro/--rw/--overlay arguments, in order */
	const char *mount_flag[MOUNT_FLAGS_MAX];	/* which of the three */
	size_t n_mounts;
	struct policy_choice choice;
	const char *request_file;
	bool json, dry_run, any_request_option, explain;
	int result_fd;
	struct json_object *doc;	/* built from options */
	const struct policy *pol;	/* once chosen: its maxima for messages */
	bool oom;			/* json-c could not allocate a member */
	/* outputs to the host: where --collect writes without --json */
	const char *output_dir;
	int output_dir_fd;
	const char *changes_dir;	/* --changes-dir */
	int changes_dir_fd;
	/* interactive use: --tty */
	bool tty;
};

/* One line naming the option or argument and the problem, then a hint. */
static int usage_error(const char *what, const char *problem)
{
	char w[PATH_MAX + 64], p[PATH_MAX + 256];

	/* Both may repeat what was typed: a path, a value with a newline or
	 * a terminal's escape in it stays one line of plain text. */
	text_shown(w, sizeof(w), what);
	text_shown(p, sizeof(p), problem);
	fprintf(stderr, "hutch run: %s: %s\nTry 'hutch run --help'.\n", w, p);
	return -EINVAL;
}

/* getopt's own complaints, said our way: the option as typed (up to any
 * '=', whose value may be anything), then the hint. */
static int option_error(int opt, char **argv)
{
	char typed[256];
	int len;

	text_shown(typed, sizeof(typed), argv[optind - 1] ? argv[optind - 1] : "");
	len = (int)strcspn(typed, "=");

	if (opt == ':')
		fprintf(stderr, "hutch run: %.*s: needs a value\n", len, typed);
	else if (optopt && typed[0] == '-' && typed[1] != '-')
		fprintf(stderr, "hutch run: unknown option '-%c'\n", optopt);
	else
		fprintf(stderr, "hutch run: unknown option '%.*s'\n", len, typed);
	fputs("Try 'hutch run --help'.\n", stderr);
	return -EINVAL;
}

/* Members of the request document built from options: json-c returns
 * NULL when it cannot allocate; that is noted (c->oom), never added. */
static void jset(struct run_cli *c, struct json_object *o, const char *key, struct json_object *v)
{
	if (o && v && json_object_object_add(o, key, v) == 0)
		return;
	json_object_put(v);
	c->oom = true;
}

static void jpush(struct run_cli *c, struct json_object *a, struct json_object *v)
{
	if (a && v && json_object_array_add(a, v) == 0)
		return;
	json_object_put(v);
	c->oom = true;
}

static struct json_object *sub(struct run_cli *c, struct json_object *doc, const char *key,
			       enum json_type type)
{
	struct json_object *v;

	if (doc && json_object_object_get_ex(doc, key, &v))
		return v;
	v = type == json_type_array ? json_object_new_array() : json_object_new_object();
	jset(c, doc, key, v);
	return c->oom ? NULL : v;
}

static int parse_count(const char *s, uint64_t *ret)
{
	return units_parse_size(s, ret) < 0 || strpbrk(s, "KMGTi") ? -EINVAL : 0;
}

/* "--timeout 1.5s: use 1500ms": the flag and value as typed, the remedy. */
static int bad_value(const char *opt, const char *arg, int (*parse)(const char *, uint64_t *))
{
	char what[96], why[160];

	snprintf(what, sizeof(what), "%s %.40s%s", opt, arg, strlen(arg) > 40 ? "..." : "");
	if (parse == units_parse_duration)
		units_duration_problem(arg, why, sizeof(why));
	else if (parse == units_parse_size)
		units_size_problem(arg, why, sizeof(why));
	else
		snprintf(why, sizeof(why), "a count is a whole number, without a unit");
	return usage_error(what, why);
}

static int set_limit(struct run_cli *c, const char *name, const char *arg, const char *opt,
		     int (*parse)(const char *, uint64_t *))
{
	uint64_t v;

	if (parse(arg, &v) < 0 || v > INT64_MAX)
		return bad_value(opt, arg, parse);
	for (size_t i = 0; i < N_LIMIT_FLAGS; i++)
		if (strcmp(limit_flags[i].field, name) == 0)
			c->typed[i] = arg;
	jset(c, sub(c, c->doc, "limits", json_type_object), name, json_object_new_int64((int64_t)v));
	return 0;
}

/* PATH[:DEST]; a path with ':' in it needs the request document. */
static int add_mount(struct run_cli *c, const char *arg, const char *mode)
{
	struct json_object *m = json_object_new_object();
	const char *colon = strchr(arg, ':');
	char *src = colon ? strndup(arg, (size_t)(colon - arg)) : strdup(arg);

	if (!src) {
		json_object_put(m);
		return -ENOMEM;
	}
	if (c->n_mounts < MOUNT_FLAGS_MAX) {
		c->mount_flag[c->n_mounts] = strcmp(mode, "rw") == 0	    ? "--rw"
					     : strcmp(mode, "overlay") == 0 ? "--overlay"
									    : "--ro";
		c->mount_typed[c->n_mounts] = arg;
	}
	c->n_mounts++;
	jset(c, m, "source", json_object_new_string(src));
	jset(c, m, "target", json_object_new_string(colon ? colon + 1 : src));
	jset(c, m, "mode", json_object_new_string(mode));
	jpush(c, sub(c, c->doc, "mounts", json_type_array), m);
	free(src);
	return 0;
}

/* A file named on our command line, opened before any deadline exists:
 * nothing may block (a FIFO waits for a writer at open(), /dev/zero never
 * ends), so the open is non-blocking, follows no final symlink, and only
 * a regular file is read. One line naming opt and the remedy otherwise. */
static int open_regular(const char *opt, const char *path, int *ret_fd)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	struct stat st;
	char why[PATH_MAX + 160];

	if (fd < 0 && errno == ELOOP) {
		snprintf(why, sizeof(why), "%s: is a symbolic link; name the file itself", path);
		return usage_error(opt, why);
	}
	if (fd < 0) {
		file_words_errno(path, "cannot open", errno, why, sizeof(why));
		return usage_error(opt, why);
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, sizeof(why), "%s: not a regular file (a FIFO, device or directory is "
			 "refused); copy it to a file", path);
		return usage_error(opt, why);
	}
	*ret_fd = TAKE_FD(fd);
	return 0;
}

static int add_input(struct run_cli *c, const char *arg)
{
	const char *eq = strchr(arg, '=');
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *data = NULL, *b64 = NULL, *name = NULL;
	struct json_object *f;
	size_t len;
	int r;

	if (!eq || eq == arg || !eq[1])
		return usage_error("--input", "expected NAME=FILE");
	name = strndup(arg, (size_t)(eq - arg));
	if (!name)
		return -ENOMEM;
	r = open_regular("--input", eq + 1, &fd);
	if (r < 0)
		return r;
	r = fd_slurp(fd, HUTCH_SPEC_MAX_FILE_BYTES, &data, &len);
	if (r < 0) {
		char why[PATH_MAX + 160];
		struct stat st;

		if (r == -EFBIG)
			file_words_size(eq + 1, fstat(fd, &st) == 0 ? (uint64_t)st.st_size : 0,
					HUTCH_SPEC_MAX_FILE_BYTES, why, sizeof(why));
		else
			file_words_errno(eq + 1, "cannot read", -r, why, sizeof(why));
		return usage_error("--input", why);
	}
	f = json_object_new_object();
	jset(c, f, "name", json_object_new_string(name));
	if (utf8_valid((const uint8_t *)data, len) && !memchr(data, 0, len)) {
		jset(c, f, "text", json_object_new_string_len(data, (int)len)); /* len <= 32 MiB */
	} else {
		b64 = base64_encode_alloc((const uint8_t *)data, len);
		jset(c, f, "base64", b64 ? json_object_new_string(b64) : NULL);
	}
	jpush(c, sub(c, c->doc, "files", json_type_array), f);
	return c->oom ? -ENOMEM : 0;
}

/* Options that say how to run, not what: they may go with --request. */
static bool is_request_option(int opt)
{
	return opt != OPT_POLICY && opt != OPT_ALLOW_POLICIES && opt != OPT_REQUEST &&
	       opt != OPT_JSON && opt != OPT_RESULT_FD && opt != OPT_DRY_RUN && opt != 'h' &&
	       opt != OPT_EXPLAIN && opt != OPT_OUTPUT_DIR && opt != OPT_CHANGES_DIR && opt != 't';
}

static int add_env(struct run_cli *c, const char *arg)
{
	const char *eq = strchr(arg, '=');
	_cleanup_free_ char *name = NULL;

	if (!eq || eq == arg)
		return usage_error("--env", "expected NAME=VALUE");
	name = strndup(arg, (size_t)(eq - arg));
	if (!name)
		return -ENOMEM;
	jset(c, sub(c, c->doc, "env", json_type_object), name, json_object_new_string(eq + 1));
	return 0;
}

static int set_result_fd(struct run_cli *c, const char *arg)
{
	char *end;
	long fd = strtol(arg, &end, 10);

	if (*end || fd < 3 || fd > INT_MAX || fcntl((int)fd, F_GETFD) < 0)
		return usage_error("--result-fd", "not an open descriptor above 2");
	c->result_fd = (int)fd;
	/* Ours alone: the jail must never inherit it. */
	fcntl(c->result_fd, F_SETFD, FD_CLOEXEC);
	return 0;
}

static int set_allowed(struct run_cli *c, const char *arg)
{
	if (policy_choice_check_list(arg) < 0)
		return usage_error("--allow-policies", "expected policy names separated by commas");
	c->choice.allowed = arg;
	return 0;
}

/* A member of the request document named by a string option. */
static int set_string(struct run_cli *c, const char *key, const char *value)
{
	jset(c, c->doc, key, json_object_new_string(value));
	return 0;
}

/* --hide JAILPATH: the request's "hide"; narrow.c's masks check it. */
static int add_hide(struct run_cli *c, const char *path)
{
	jpush(c, sub(c, c->doc, "hide", json_type_array), json_object_new_string(path));
	return 0;
}

static int add_collect(struct run_cli *c, const char *name)
{
	jpush(c, sub(c, c->doc, "collect", json_type_array), json_object_new_string(name));
	return 0;
}

static int add_allow_host(struct run_cli *c, const char *arg)
{
	if (!host_pattern_parse(arg, NULL, NULL))
		return usage_error("--allow-host", "expected HOST[:PORT]: a name, *.suffix, *, an "
				   "IPv4 literal or [IPv6], and a port 1-65535");
	jpush(c, sub(c, c->doc, "allow_hosts", json_type_array), json_object_new_string(arg));
	return 0;
}

static int set_explain(struct run_cli *c)
{
	char why[160];

	if (!explain_supported(why, sizeof(why)))
		return usage_error("--explain", why);
	c->explain = true;
	return 0;
}

/* One option into *c. 0, 1 for --help (printed), or -errno (said). */
static int parse_one(struct run_cli *c, int opt, const char *arg)
{
	switch (opt) {
	case OPT_POLICY: c->choice.cli = arg; return 0;
	case OPT_ALLOW_POLICIES: return set_allowed(c, arg);
	case OPT_TIMEOUT: return set_limit(c, "wall_ms", arg, "--timeout", units_parse_duration);
	case OPT_CPU: return set_limit(c, "cpu_ms", arg, "--cpu", units_parse_duration);
	case OPT_IDLE: return set_limit(c, "idle_ms", arg, "--idle-timeout", units_parse_duration);
	case OPT_MEMORY: return set_limit(c, "memory_bytes", arg, "--memory", units_parse_size);
	case OPT_MAX_OUTPUT: return set_limit(c, "stdout_bytes", arg, "--max-output", units_parse_size);
	case OPT_MAX_STDERR: return set_limit(c, "stderr_bytes", arg, "--max-stderr", units_parse_size);
	case OPT_FILE_SIZE: return set_limit(c, "file_size_bytes", arg, "--file-size", units_parse_size);
	case OPT_PROCESSES: return set_limit(c, "processes", arg, "--processes", parse_count);
	case OPT_OPEN_FILES: return set_limit(c, "open_files", arg, "--open-files", parse_count);
	case OPT_NETWORK: return set_string(c, "network", arg);
	case OPT_ALLOW_HOST: return add_allow_host(c, arg);
	case OPT_ALLOW_PRIVATE: jset(c, c->doc, "allow_private", json_object_new_boolean(1)); return 0;
	case OPT_ENV: return add_env(c, arg);
	case OPT_RO: return add_mount(c, arg, "ro");
	case OPT_RW: return add_mount(c, arg, "rw");
	case OPT_OVERLAY: return add_mount(c, arg, "overlay");
	case OPT_INPUT: return add_input(c, arg);
	case OPT_COLLECT: return add_collect(c, arg);
	case OPT_HIDE: return add_hide(c, arg);
	case OPT_CWD: return set_string(c, "cwd", arg);
	case OPT_FRAME: return set_string(c, "stdout_mode", "frame");
	case OPT_KEEP_PARTIAL: jset(c, c->doc, "keep_partial", json_object_new_boolean(true)); return 0;
	case OPT_REQUEST: c->request_file = arg; return 0;
	case OPT_JSON: c->json = true; return 0;
	case OPT_RESULT_FD: return set_result_fd(c, arg);
	case OPT_DRY_RUN: c->dry_run = true; return 0;
	case OPT_EXPLAIN: return set_explain(c);
	case OPT_OUTPUT_DIR: c->output_dir = arg; return 0;
	case OPT_CHANGES_DIR: c->changes_dir = arg; return 0;
	case 't': c->tty = true; return 0;
	case 'h': fputs(usage, stdout); return 1;
	default: return -EINVAL; /* option_error said which */
	}
}

/* After the options: either a --request document and nothing else, or
 * the command, which becomes the document's argv. */
static int parse_operands(int argc, char **argv, struct run_cli *c)
{
	struct json_object *a;

	if (c->request_file) {
		if (c->any_request_option || optind < argc)
			return usage_error("--request", "use the document's fields instead of other options");
		c->json = true;
		return 0;
	}
	if (optind >= argc)
		return usage_error("COMMAND", "missing (give it after the options, or --request FILE)");
	a = sub(c, c->doc, "argv", json_type_array);
	for (int i = optind; i < argc; i++)
		jpush(c, a, json_object_new_string(argv[i]));
	return c->oom ? usage_error("COMMAND", "out of memory building the request") : 0;
}

/* 0 with *c filled (c->doc is the caller's either way), 1 after --help,
 * or -errno with the problem said. */
static int parse_options(int argc, char **argv, struct run_cli *c)
{
	int opt, r;

	c->doc = json_object_new_object();
	jset(c, c->doc, "version", json_object_new_int(1));
	c->result_fd = -1;
	c->output_dir_fd = -1;
	c->changes_dir_fd = -1;
	optind = 1;
	opterr = 0; /* option_error says it, naming hutch run */
	/* '+': the first non-option ends option parsing, so the command's own
	 * options are never ours (CVE-2024-32462). ':': a missing value is
	 * told apart from an unknown option. */
	while ((opt = getopt_long(argc, argv, "+:ht", options, NULL)) != -1) {
		if (opt == '?' || opt == ':')
			return option_error(opt, argv);
		if (is_request_option(opt))
			c->any_request_option = true;
		r = parse_one(c, opt, optarg);
		if (r != 0)
			return r;
	}
	if (c->oom)
		return usage_error("options", "out of memory building the request");
	return parse_operands(argc, argv, c);
}

/* What is printed when json-c can render no document at all (it cannot
 * allocate): the shape of any failed result, from fixed text. */
static const char unrenderable[] =
	"{\"version\":1,\"status\":\"failed\",\"exit_code\":null,\"signal\":null,"
	"\"error\":{\"code\":\"internal\",\"message\":\"internal error: cannot render the result\"},"
	"\"stdout\":{\"text\":\"\",\"truncated\":true,\"bytes\":0},"
	"\"stderr\":{\"text\":\"\",\"truncated\":true,\"bytes\":0},"
	"\"files\":[],\"usage\":null,\"jail\":null}";

/* The document as one line. json-c returns NULL when it cannot render
 * (memory; a document past its int lengths, which the rendered caps rule
 * out): then the fixed failure, never strlen(NULL). */
static void emit(struct run_cli *c, struct json_object *doc)
{
	int fd = c->result_fd >= 0 ? c->result_fd : c->json ? 1 : -1;
	size_t len = 0;
	const char *text = doc ? json_object_to_json_string_length(
					 doc, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len)
			       : NULL;

	if (fd < 0)
		return;
	if (!text) {
		text = unrenderable;
		len = strlen(unrenderable);
	}
	(void)fd_write_all(fd, text, len);
	(void)fd_write_all(fd, "\n", 1);
}

/* Print the document (or the error line) and say what to exit with. */
static int finish(struct run_cli *c, struct json_object *doc)
{
	int status = result_exit_status(doc);

	emit(c, doc);
	if (c->explain && doc) {
		result_print_explain(doc);
		result_print_network_explain(doc);
	}
	if (!c->json && doc) {
		result_print_error(doc);
		result_print_network_hint(doc, c->explain);
	}
	else if (!c->json)
		fputs("hutch: internal: internal error: cannot render the result\n", stderr);
	json_object_put(doc);
	return c->json ? EXIT_SUCCESS : status;
}

/* A limit's value in the units its option takes: "1h", "16G", "1024". */
static void format_limit(const struct limit_flag *f, uint64_t v, char *buf, size_t cap)
{
	size_t len = strlen(f->field);

	if (f->is_duration)
		units_format_duration(v, buf, cap);
	else if (len > 6 && strcmp(f->field + len - 6, "_bytes") == 0)
		units_format_size(v, buf, cap);
	else
		snprintf(buf, cap, "%" PRIu64, v);
}

/* "--timeout 2h is above the policy's maximum of 1h", "--timeout 0: out
 * of range; accepted: 1ms to 168h": a limit's error in the words of the
 * command line. False when no option set it. */
static bool say_limit(const struct run_cli *c, const struct verror *v, const char *field)
{
	char lo[32], hi[32];

	for (size_t i = 0; i < N_LIMIT_FLAGS; i++) {
		const struct limit_flag *f = &limit_flags[i];
		uint64_t max;
		int k;

		if (strcmp(f->field, field) != 0 || !c->typed[i])
			continue;
		for (k = 0; k < LIM_COUNT && strcmp(limit_defs[k].name, field) != 0; k++)
			;
		if (k == LIM_COUNT)
			break;
		max = limit_defs[k].max;
		if (c->pol && c->pol->limits[k].max < max)
			max = c->pol->limits[k].max;
		format_limit(f, limit_defs[k].min, lo, sizeof(lo));
		format_limit(f, max, hi, sizeof(hi));
		if (c->pol && strcmp(v->reason, "above the policy's maximum") == 0)
			fprintf(stderr, "hutch: %s: %s %s is above the policy's maximum of %s\n",
				hutch_err_name(v->code), f->flag, c->typed[i], hi);
		else
			fprintf(stderr, "hutch: %s: %s %s: %s; accepted: %s to %s%s\n",
				hutch_err_name(v->code), f->flag, c->typed[i], v->reason, lo, hi,
				c->pol ? "" : ", within the policy's maximum");
		return true;
	}
	return false;
}

/* The option a pointer into the request names, or NULL. */
static const char *flag_for(const struct run_cli *c, const char *ptr, char *buf, size_t cap)
{
	static const char *const plain[][2] = {
		{ "/cwd", "--cwd" },	 { "/network", "--network" }, { "/collect", "--collect" },
		{ "/files", "--input" }, { "/policy", "--policy" },   { "/stdout_mode", "--frame" },
		{ "/argv", "COMMAND" },	 { "/allow_hosts", "--allow-host" }, { "/hide", "--hide" },
		{ "/allow_private", "--allow-private" },
	};
	unsigned long n;
	char *end;

	if (strncmp(ptr, "/env/", 5) == 0) {
		snprintf(buf, cap, "--env %s", ptr + 5);
		return buf;
	}
	if (strncmp(ptr, "/mounts/", 8) == 0) {
		n = strtoul(ptr + 8, &end, 10);
		if (n >= c->n_mounts || n >= MOUNT_FLAGS_MAX)
			return "--ro/--rw/--overlay";
		snprintf(buf, cap, "%s %s%s%s", c->mount_flag[n], c->mount_typed[n],
			 *end == '/' ? ": " : "", *end == '/' ? end + 1 : "");
		return buf;
	}
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		if (strncmp(ptr, plain[i][0], strlen(plain[i][0])) == 0 &&
		    (ptr[strlen(plain[i][0])] == '\0' || ptr[strlen(plain[i][0])] == '/'))
			return plain[i][1];
	return NULL;
}

/* A request error from options, said on stderr as the options were
 * typed, after its code ("hutch: policy_violation: --env NAME: ..."). False for --request documents and pointers no option sets: the
 * document's own line (code, message, pointer) is printed then. */
static bool say_as_typed(const struct run_cli *c, const struct verror *v)
{
	char buf[PATH_MAX + 64], shown[PATH_MAX + 64];
	char words[VERROR_ACCEPTED_MAX + VERROR_ALLOWED_BY_MAX + 256];
	const char *flag;

	if (c->request_file || c->json)
		return false;
	if (strncmp(v->pointer, "/limits/", 8) == 0)
		return say_limit(c, v, v->pointer + 8);
	flag = flag_for(c, v->pointer, buf, sizeof(buf));
	if (!flag)
		return false;
	verror_message(v, words, sizeof(words));
	text_shown(shown, sizeof(shown), flag);	/* --overlay PATH: as typed */
	fprintf(stderr, "hutch: %s: %s: %s\n", hutch_err_name(v->code), shown, words);
	return true;
}

static int fail_with(struct run_cli *c, const struct verrors *e, const struct jail_report *jr)
{
	const struct verror *v = &e->items[0];
	struct json_object *doc = result_for_verror(v, jr);
	int status;

	/* An error inside a policy file names the file of its extends chain;
	 * its pointer is into that policy, not the request, so it is never
	 * said as an option. */
	if (!doc || v->file || !say_as_typed(c, v))
		return finish(c, doc);
	status = result_exit_status(doc); /* said above: the document only goes to --result-fd */
	emit(c, doc);
	json_object_put(doc);
	return status;
}

/* What the steps of cmd_run fill in turn; run_job_done releases it on
 * every path. jr points into pol and digest. */
struct run_job {
	struct request req;
	struct policy pol;
	struct plan plan;
	struct verrors e;
	struct jail_report jr;
	char digest[72];
	struct exec_early *early;	/* the helper, started first; NULL once used */
	struct jail_timings tm;		/* our steps up to the run's (jail.timings) */
};

static void run_job_done(struct run_job *j)
{
	exec_early_discard(j->early);
	plan_free(&j->plan);
	policy_free(&j->pol);
	request_free(&j->req);
}

/* Step 1: the request, from --request or from the document the options
 * built (consumed here either way). */
static int job_read_request(struct run_cli *c, struct run_job *j)
{
	int r = c->request_file ? file_read_request(c->request_file, &j->req, &j->e)
				: request_from_json(c->doc, &j->req, &j->e);

	json_object_put(TAKE_PTR(c->doc));
	return r;
}

/* Step 2: the policy the request may use, and what the result's jail
 * report says of it. */
static int job_choose_policy(struct run_cli *c, struct run_job *j)
{
	int r;

	c->choice.cache = policy_cache();	/* parsed once per file and build */
	r = policy_choose(&c->choice, j->req.policy, &j->pol, &j->e);
	if (r < 0)
		return r;
	c->pol = &j->pol;
	jail_report_from_policy(&j->jr, &j->pol, NULL);
	if (j->req.network_set)
		j->jr.network = j->req.network; /* what it asked for, until narrowed */
	return 0;
}

/* Step 2b, interactive use: --tty passes the caller's TERM, so that
 * full-screen programs work, unless the request sets one or the policy
 * refuses the name (then the jail goes without, as without --tty). The
 * window size follows through pty-relay.c. */
static int job_tty_term(const struct run_cli *c, struct run_job *j)
{
	const char *term = getenv("TERM");

	if (!c->tty || c->request_file || !term || !*term || strlen(term) > 128 ||
	    !policy_env_allowed(&j->pol, "TERM"))
		return 0;
	if (request_add_env(&j->req, "TERM", term) < 0)
		return verror_add(&j->e, HUTCH_ERR_INTERNAL, "", "out of memory");
	return 0;
}

/* Step 3: the policy's digest, which names hutch-exec. A helper we
 * cannot execute is not found either: left to the probe, it would pass
 * for a failed sandbox (sandbox_probe_failed, 71). */
static int job_digest(struct run_job *j)
{
	if (policy_digest(&j->pol, execute_helper_path(), j->digest) < 0 ||
	    access(execute_helper_path(), X_OK) < 0)
		return verror_add(&j->e, HUTCH_ERR_HELPER_NOT_FOUND, "",
				  "cannot stat or execute hutch-exec");
	j->jr.digest = j->digest;
	return 0;
}

/* Step 4: the request narrowed by the policy into the plan. */
static int job_narrow(struct run_job *j)
{
	int r = narrow(&j->req, &j->pol, &j->plan, &j->e);

	if (r < 0) {
		/* The caller may pick another policy: say which would do. */
		policy_accepts_elsewhere(&j->e, &j->req, j->pol.name);
		return r;
	}
	j->plan.digest = strdup(j->digest);
	jail_report_add_plan(&j->jr, &j->plan);
	return 0;
}

/* --dry-run: the plan, pretty-printed, instead of running it. */
static int print_plan(const struct run_job *j)
{
	_cleanup_json_ struct json_object *d = plan_to_json(&j->plan, &j->pol);
	const char *t = d ? json_object_to_json_string_ext(d, JSON_C_TO_STRING_PRETTY |
								 JSON_C_TO_STRING_NOSLASHESCAPE)
			  : NULL;

	if (!t) {
		fputs("hutch: internal: internal error: cannot render the plan\n", stderr);
		return HUTCH_EXIT_FAILURE;
	}
	printf("%s\n", t);
	return EXIT_SUCCESS;
}

/* Step 5: the mechanisms the policy requires, and the canary for this
 * digest. HUTCH_ERR_NONE when the jail engages, else why[] says why not. */
static enum hutch_err job_probe_gate(const struct run_job *j, char *why, size_t why_size)
{
	int r;

	if (probe_requirements(&j->pol, why, why_size) < 0)
		return HUTCH_ERR_SANDBOX_UNAVAILABLE;
	r = probe_ensure(&j->pol, j->digest, why, why_size);
	if (r < 0)
		return r == PROBE_UNAVAILABLE ? HUTCH_ERR_SANDBOX_UNAVAILABLE
					      : HUTCH_ERR_SANDBOX_PROBE_FAILED;
	return HUTCH_ERR_NONE;
}

/* --changes-dir reports on the plan's overlays: there must be one. */
static int run_open_changes_dir(struct run_cli *c, const struct run_job *j)
{
	bool any = false;

	for (size_t i = 0; i < j->plan.n_mounts; i++)
		any = any || j->plan.mounts[i].overlay;
	if (!any)
		return usage_error("--changes-dir", "the run has no --overlay whose changes to write");
	return run_changes_dir_open(c->changes_dir, &c->changes_dir_fd);
}

/* Step 5b, outputs to the host: without --json, --collect writes into
 * --output-dir (default "."), opened before any jail exists. */
static int job_open_output_dir(struct run_cli *c, const struct run_job *j)
{
	if (c->output_dir && c->json)
		return usage_error("--output-dir", "has no effect with --json or --request "
						   "(the files are in the result document)");
	if (c->changes_dir && run_open_changes_dir(c, j) < 0)
		return -EINVAL;
	if (c->json || (!c->output_dir && j->plan.n_collect == 0))
		return 0;
	return run_output_dir_open(c->output_dir ? c->output_dir : ".", &c->output_dir_fd);
}

/* Step 5c, interactive use: --tty needs our stdin to be a terminal and
 * output that is the terminal's, not a document or a frame. */
static int job_check_tty(const struct run_cli *c, const struct run_job *j)
{
	if (!c->tty)
		return 0;
	if (c->json || c->result_fd >= 0)
		return usage_error("--tty", "cannot go with --json, --request or --result-fd "
					    "(the terminal is the output)");
	if (j->plan.stdout_mode == STDOUT_FRAME)
		return usage_error("--tty", "cannot go with --frame");
	if (!isatty(0))
		return usage_error("--tty", "standard input is not a terminal; run without --tty");
	return 0;
}

/* Step 6: run the plan and emit its result. Frame mode passes output
 * through only once the frame is whole and the command succeeded: the
 * payload, without its header. */
static int job_execute(struct run_cli *c, struct run_job *j)
{
	struct exec_opts eo = {
		.passthrough = !c->json || c->result_fd >= 0,
		.forward_stdin = !c->request_file && !j->plan.stdin_given,
		.early = TAKE_PTR(j->early),
		.explain = c->explain,
		.collect_dirs = c->output_dir_fd >= 0,
		.tty = c->tty,
		.changes_data = c->changes_dir_fd >= 0,
		.drop_privileges = true, /* the probe's canary has run */
	};
	struct outcome o;
	struct collected files;
	struct json_object *doc;
	size_t off, len;
	int status;
	bool unwritten;

	if (c->tty && run_tty_enter(0) < 0) {
		fputs("hutch run: --tty: cannot set the terminal's mode\n", stderr);
		return HUTCH_EXIT_FAILURE;
	}
	execute_plan(&j->plan, &eo, &o, &files);
	run_tty_restore();
	/* Before the error line, so it comes last; a file asked for and
	 * not written fails a run that otherwise succeeded. */
	unwritten = c->output_dir_fd >= 0 &&
		    run_output_dir_write(c->output_dir_fd, &j->plan, &o, &files) > 0;
	if (c->changes_dir_fd >= 0 && run_changes_dir_write(c->changes_dir_fd, &o) > 0)
		unwritten = true;
	jail_report_add_timings(&j->jr, &j->tm, &o.timings);
	doc = result_for_outcome(&j->plan, &o, &files, &j->jr);
	if (eo.passthrough && j->plan.stdout_mode == STDOUT_FRAME &&
	    o.status == OUTCOME_EXITED && o.exit_code == 0 &&
	    result_check_frame(&o.out, &off, &len) == HUTCH_ERR_NONE)
		(void)fd_write_all(1, o.out.buf + off, len);
	status = finish(c, doc);
	if (unwritten && status == EXIT_SUCCESS)
		status = HUTCH_EXIT_FAILURE;
	outcome_free(&o);
	collected_free(&files);
	return status;
}

int cmd_run(int argc, char **argv)
{
	struct run_cli c = { 0 };
	_cleanup_(run_job_done) struct run_job j = { .jr.cgroup = "unavailable" };
	enum hutch_err pe;
	char why[256] = "";
	int r;

	timings_begin(&j.tm);
	r = parse_options(argc, argv, &c);
	if (r != 0) {
		json_object_put(c.doc);
		return r > 0 ? EXIT_SUCCESS : HUTCH_EXIT_FAILURE;
	}
	timings_mark(&j.tm, TIMING_REQUEST);
	/* The helper's exec overlaps everything up to job_execute. */
	if (!c.dry_run && !c.request_file)
		j.early = exec_early_start();
	timings_mark(&j.tm, TIMING_SPAWN);
	if (job_read_request(&c, &j) < 0)
		return fail_with(&c, &j.e, NULL);
	timings_mark(&j.tm, TIMING_REQUEST);
	if (job_choose_policy(&c, &j) < 0)
		return fail_with(&c, &j.e, NULL);
	if (job_tty_term(&c, &j) < 0)
		return fail_with(&c, &j.e, &j.jr);
	if (job_digest(&j) < 0)
		return fail_with(&c, &j.e, &j.jr);
	timings_mark(&j.tm, TIMING_POLICY);
	if (job_narrow(&j) < 0)
		return fail_with(&c, &j.e, &j.jr);
	timings_mark(&j.tm, TIMING_PLAN);
	if (c.dry_run)
		return print_plan(&j);
	if (job_check_tty(&c, &j) < 0 || job_open_output_dir(&c, &j) < 0)
		return HUTCH_EXIT_FAILURE;
	pe = job_probe_gate(&j, why, sizeof(why));
	timings_mark(&j.tm, TIMING_PROBE);
	if (pe == HUTCH_ERR_NONE)
		r = job_execute(&c, &j);
	else
		r = finish(&c, result_for_error(pe, NULL, NULL, why, &j.jr));
	if (c.output_dir_fd >= 0)
		close(c.output_dir_fd);
	if (c.changes_dir_fd >= 0)
		close(c.changes_dir_fd);
	return r;
}
