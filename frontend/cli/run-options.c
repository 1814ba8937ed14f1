/* run-options.c: `hutch run`'s options. The option table and its --help,
 * each option parsed into struct run_cli and into the request document it
 * builds (so the CLI and --request share one validator), and the one-line
 * usage errors that name the option as typed. Frontend only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "fd-util.h"
#include "spec.h"
#include "cli/file-words.h"
#include "cli/run-options.h"
#include "doc/host-pattern.h"
#include "doc/json-util.h"
#include "doc/policy-choice.h"
#include "doc/text.h"
#include "doc/units.h"
#include "run/explain.h"

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
const struct limit_flag run_limit_flags[] = {
	{ "wall_ms", "--timeout", true },	  { "cpu_ms", "--cpu", true },
	{ "idle_ms", "--idle-timeout", true },	  { "memory_bytes", "--memory", false },
	{ "stdout_bytes", "--max-output", false }, { "stderr_bytes", "--max-stderr", false },
	{ "file_size_bytes", "--file-size", false }, { "processes", "--processes", false },
	{ "open_files", "--open-files", false },
};

/* One line naming the option or argument and the problem, then a hint. */
int run_usage_error(const char *what, const char *problem)
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
	return run_usage_error(what, why);
}

static int set_limit(struct run_cli *c, const char *name, const char *arg, const char *opt,
		     int (*parse)(const char *, uint64_t *))
{
	uint64_t v;

	if (parse(arg, &v) < 0 || v > INT64_MAX)
		return bad_value(opt, arg, parse);
	for (size_t i = 0; i < N_LIMIT_FLAGS; i++)
		if (strcmp(run_limit_flags[i].field, name) == 0)
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
		return run_usage_error(opt, why);
	}
	if (fd < 0) {
		file_words_errno(path, "cannot open", errno, why, sizeof(why));
		return run_usage_error(opt, why);
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, sizeof(why), "%s: not a regular file (a FIFO, device or directory is "
			 "refused); copy it to a file", path);
		return run_usage_error(opt, why);
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
		return run_usage_error("--input", "expected NAME=FILE");
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
		return run_usage_error("--input", why);
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
		return run_usage_error("--env", "expected NAME=VALUE");
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
		return run_usage_error("--result-fd", "not an open descriptor above 2");
	c->result_fd = (int)fd;
	/* Ours alone: the jail must never inherit it. */
	fcntl(c->result_fd, F_SETFD, FD_CLOEXEC);
	return 0;
}

static int set_allowed(struct run_cli *c, const char *arg)
{
	if (policy_choice_check_list(arg) < 0)
		return run_usage_error("--allow-policies", "expected policy names separated by commas");
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
		return run_usage_error("--allow-host", "expected HOST[:PORT]: a name, *.suffix, *, an "
				   "IPv4 literal or [IPv6], and a port 1-65535");
	jpush(c, sub(c, c->doc, "allow_hosts", json_type_array), json_object_new_string(arg));
	return 0;
}

static int set_explain(struct run_cli *c)
{
	char why[160];

	if (!explain_supported(why, sizeof(why)))
		return run_usage_error("--explain", why);
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
			return run_usage_error("--request", "use the document's fields instead of other options");
		c->json = true;
		return 0;
	}
	if (optind >= argc)
		return run_usage_error("COMMAND", "missing (give it after the options, or --request FILE)");
	a = sub(c, c->doc, "argv", json_type_array);
	for (int i = optind; i < argc; i++)
		jpush(c, a, json_object_new_string(argv[i]));
	return c->oom ? run_usage_error("COMMAND", "out of memory building the request") : 0;
}

/* 0 with *c filled (c->doc is the caller's either way), 1 after --help,
 * or -errno with the problem said. */
int run_parse_options(int argc, char **argv, struct run_cli *c)
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
		return run_usage_error("options", "out of memory building the request");
	return parse_operands(argc, argv, c);
}
