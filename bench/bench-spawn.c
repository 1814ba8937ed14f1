/* bench-spawn.c: whole-process latency of starting a command, several
 * commands side by side in one run, interleaved.
 *
 * Not part of the build or of `make check`; bench/run.sh compiles it with
 * plain `cc -O2` and passes the variants. Usage:
 *
 *   bench-spawn [-n ITERS] [-w WARMUP] [-j JSON_FILE|-] [-r] [-b BASELINE] [-q]
 *               NAME [FD<PATH|FD>PATH|VAR=VALUE]... ARGV... [:: NAME ...]...
 *
 * Each variant is a name, optional fd redirections ("3<spec.bin" opens the
 * file read-only on fd 3, "4>/dev/null" write-only on fd 4) and environment
 * overrides for that variant alone, then an argv whose first word is an
 * absolute path. Variants are separated by "::".
 * stdin is /dev/null and stdout/stderr go to /dev/null while timing.
 *
 * Method: each variant is probed once (must exit 0, else it is skipped with
 * its exit status and first stderr line); then WARMUP untimed rounds and
 * ITERS timed rounds. A round runs every variant once, starting at a
 * different variant each round (round i starts at variant i mod k), so
 * machine noise and ordering effects hit all of them alike. One sample is
 * CLOCK_MONOTONIC from just before posix_spawn() to the return of wait4()
 * for that process: fork/exec, everything the command does, and its exit
 * and reaping. The CPU column is the user+system time wait4() reports for
 * the process and every descendant it reaped.
 *
 * Output: a table (microseconds: median, p10, p90, min, mean, CPU median,
 * median / baseline's median), then one line per variant such as
 * "hutch: median 1234us = 3.1x plain". With -j, a JSON document too (to
 * the file, or to stdout with "-", in which case the table goes to stderr);
 * -r adds the raw samples to it. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define MAX_VARIANTS 16
#define MAX_REDIRS 8

struct redir {
	int fd;
	int flags;
	const char *path;
};

struct variant {
	const char *name;
	char **argv;
	struct redir redir[MAX_REDIRS];
	int n_redir;
	char **envp;
	bool skipped;
	char reason[512];
	double *wall_us; /* timed samples */
	double *cpu_us;
	int n;
	int failures; /* timed runs that did not exit 0 */
	/* results */
	double median, p10, p90, min, max, mean, cpu_median;
};

static struct variant variants[MAX_VARIANTS];
static int n_variants;

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void die(const char *what)
{
	fprintf(stderr, "bench-spawn: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* Run v once with stderr to err_fd (-1: /dev/null). Returns the wait status
 * or -1 with errno; *wall and *cpu get the sample. */
static int run_once(const struct variant *v, int err_fd, double *wall, double *cpu)
{
	posix_spawn_file_actions_t fa;
	struct rusage ru;
	double t0, t1;
	pid_t pid, r;
	int status = 0, e;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	if (err_fd >= 0)
		posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
	else
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	int sock[2] = { -1, -1 };

	for (int i = 0; i < v->n_redir; i++) {
		/* "N=socket": a fresh socketpair per run, one end on fd N (the
		 * helper's control socket), ours kept until the run is reaped. */
		if (strcmp(v->redir[i].path, "socket") == 0 && v->redir[i].flags == -1) {
			if (sock[0] < 0 && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sock) == 0) {
				/* Out of the way of the fds the other actions open. */
				int hi = fcntl(sock[1], F_DUPFD_CLOEXEC, 100);

				close(sock[1]);
				sock[1] = hi;
				posix_spawn_file_actions_adddup2(&fa, sock[1], v->redir[i].fd);
			}
			continue;
		}
		posix_spawn_file_actions_addopen(&fa, v->redir[i].fd, v->redir[i].path,
						 v->redir[i].flags, 0);
	}

	t0 = now_us();
	e = posix_spawn(&pid, v->argv[0], &fa, NULL, v->argv, v->envp);
	if (sock[1] >= 0)
		close(sock[1]);
	if (e != 0) {
		posix_spawn_file_actions_destroy(&fa);
		if (sock[0] >= 0)
			close(sock[0]);
		errno = e;
		return -1;
	}
	do
		r = wait4(pid, &status, 0, &ru);
	while (r < 0 && errno == EINTR);
	t1 = now_us();
	posix_spawn_file_actions_destroy(&fa);
	if (sock[0] >= 0)
		close(sock[0]); /* and with it the descriptors the helper sent */
	if (r < 0)
		return -1;
	*wall = t1 - t0;
	*cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
	return status;
}

static void describe_status(int status, char *buf, size_t len)
{
	if (WIFEXITED(status))
		snprintf(buf, len, "exit status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, len, "wait status 0x%x", status);
}

/* One untimed run with stderr captured; a variant that does not exit 0 is
 * skipped, with the reason. */
static void probe(struct variant *v)
{
	FILE *err = tmpfile();
	double wall, cpu;
	char line[256] = "", how[64];
	int status;

	if (!err)
		die("tmpfile");
	status = run_once(v, fileno(err), &wall, &cpu);
	if (status == -1) {
		v->skipped = true;
		snprintf(v->reason, sizeof(v->reason), "cannot start %s: %s", v->argv[0],
			 strerror(errno));
	} else if (status != 0) {
		v->skipped = true;
		describe_status(status, how, sizeof(how));
		rewind(err);
		if (fgets(line, sizeof(line), err))
			line[strcspn(line, "\n")] = '\0';
		snprintf(v->reason, sizeof(v->reason), "%s%s%s", how, line[0] ? ": " : "", line);
	}
	fclose(err);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Linear interpolation between closest ranks. */
static double quantile(const double *sorted, int n, double q)
{
	double pos = q * (n - 1);
	int lo = (int)floor(pos);

	if (n == 0)
		return NAN;
	if (lo >= n - 1)
		return sorted[n - 1];
	return sorted[lo] + (pos - lo) * (sorted[lo + 1] - sorted[lo]);
}

static void compute(struct variant *v)
{
	double *s, sum = 0;

	if (v->n == 0)
		return;
	s = malloc(sizeof(double) * (size_t)v->n);
	if (!s)
		die("malloc");
	memcpy(s, v->wall_us, sizeof(double) * (size_t)v->n);
	qsort(s, (size_t)v->n, sizeof(double), cmp_double);
	for (int i = 0; i < v->n; i++)
		sum += s[i];
	v->median = quantile(s, v->n, 0.5);
	v->p10 = quantile(s, v->n, 0.1);
	v->p90 = quantile(s, v->n, 0.9);
	v->min = s[0];
	v->max = s[v->n - 1];
	v->mean = sum / v->n;
	memcpy(s, v->cpu_us, sizeof(double) * (size_t)v->n);
	qsort(s, (size_t)v->n, sizeof(double), cmp_double);
	v->cpu_median = quantile(s, v->n, 0.5);
	free(s);
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void json_num(FILE *f, double x)
{
	if (isfinite(x))
		fprintf(f, "%.1f", x);
	else
		fputs("null", f);
}

static void emit_json(FILE *f, int iters, int warmup, const struct variant *base, bool raw)
{
	struct utsname u;
	char host_time[64];
	time_t t = time(NULL);

	uname(&u);
	strftime(host_time, sizeof(host_time), "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
	fprintf(f, "{\n  \"bench\": \"spawn-latency\",\n  \"time\": \"%s\",\n", host_time);
	fprintf(f, "  \"uid\": %u,\n  \"euid\": %u,\n  \"kernel\": ", (unsigned)getuid(),
		(unsigned)geteuid());
	json_str(f, u.release);
	fprintf(f, ",\n  \"machine\": ");
	json_str(f, u.machine);
	fprintf(f, ",\n  \"ncpu\": %ld,\n  \"iters\": %d,\n  \"warmup\": %d,\n",
		sysconf(_SC_NPROCESSORS_ONLN), iters, warmup);
	fprintf(f, "  \"baseline\": ");
	json_str(f, base ? base->name : "");
	fprintf(f, ",\n  \"unit\": \"us\",\n  \"variants\": [");
	for (int i = 0; i < n_variants; i++) {
		const struct variant *v = &variants[i];

		fprintf(f, "%s\n    {\"name\": ", i ? "," : "");
		json_str(f, v->name);
		fprintf(f, ", \"argv\": [");
		for (int a = 0; v->argv[a]; a++) {
			fprintf(f, "%s", a ? ", " : "");
			json_str(f, v->argv[a]);
		}
		fprintf(f, "]");
		if (v->skipped) {
			fprintf(f, ", \"skipped\": true, \"reason\": ");
			json_str(f, v->reason);
			fprintf(f, "}");
			continue;
		}
		fprintf(f, ", \"skipped\": false, \"n\": %d, \"failures\": %d", v->n, v->failures);
		fprintf(f, ", \"median\": ");
		json_num(f, v->median);
		fprintf(f, ", \"p10\": ");
		json_num(f, v->p10);
		fprintf(f, ", \"p90\": ");
		json_num(f, v->p90);
		fprintf(f, ", \"min\": ");
		json_num(f, v->min);
		fprintf(f, ", \"max\": ");
		json_num(f, v->max);
		fprintf(f, ", \"mean\": ");
		json_num(f, v->mean);
		fprintf(f, ", \"cpu_median\": ");
		json_num(f, v->cpu_median);
		fprintf(f, ", \"ratio\": ");
		if (base && base->n && v->n)
			fprintf(f, "%.3f", v->median / base->median);
		else
			fputs("null", f);
		if (raw) {
			fprintf(f, ",\n     \"samples\": [");
			for (int s = 0; s < v->n; s++)
				fprintf(f, "%s%.1f", s ? "," : "", v->wall_us[s]);
			fprintf(f, "],\n     \"cpu_samples\": [");
			for (int s = 0; s < v->n; s++)
				fprintf(f, "%s%.1f", s ? "," : "", v->cpu_us[s]);
			fprintf(f, "]");
		}
		fprintf(f, "}");
	}
	fprintf(f, "\n  ]\n}\n");
}

static void emit_table(FILE *f, const struct variant *base)
{
	char col[32];

	snprintf(col, sizeof(col), "x %s", base ? base->name : "?");
	fprintf(f, "%-16s %5s %9s %9s %9s %9s %9s %9s %8s\n", "variant", "n", "median", "p10",
		"p90", "min", "mean", "cpu-med", col);
	for (int i = 0; i < n_variants; i++) {
		const struct variant *v = &variants[i];

		if (v->skipped)
			continue;
		fprintf(f, "%-16s %5d %9.0f %9.0f %9.0f %9.0f %9.0f %9.0f %7.2fx", v->name, v->n,
			v->median, v->p10, v->p90, v->min, v->mean, v->cpu_median,
			base && base->n ? v->median / base->median : NAN);
		if (v->failures)
			fprintf(f, "  (%d failed runs)", v->failures);
		fputc('\n', f);
	}
	fprintf(f, "(microseconds; wall = spawn to reaped; cpu-med = user+sys of the tree)\n\n");
	for (int i = 0; i < n_variants; i++) {
		const struct variant *v = &variants[i];

		if (v->skipped)
			fprintf(f, "%s: skipped (%s)\n", v->name, v->reason);
		else
			fprintf(f, "%s: median %.0fus = %.1fx %s\n", v->name, v->median,
				base && base->n ? v->median / base->median : NAN,
				base ? base->name : "?");
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: bench-spawn [-n ITERS] [-w WARMUP] [-j FILE|-] [-r] [-b BASELINE]"
			" [-q] NAME [FD<PATH|FD>PATH]... ARGV... [:: NAME ...]...\n");
	exit(2);
}

/* environ with NAME=VALUE overrides (which replace an inherited NAME). */
static char **make_env(char **over, int n_over)
{
	size_t n = 0, k = 0;
	char **e;

	while (environ[n])
		n++;
	e = calloc(n + (size_t)n_over + 1, sizeof(char *));
	if (!e)
		die("calloc");
	for (size_t i = 0; i < n; i++) {
		size_t len = strcspn(environ[i], "=");
		bool replaced = false;

		for (int j = 0; j < n_over && !replaced; j++)
			replaced = strncmp(over[j], environ[i], len) == 0 && over[j][len] == '=';
		if (!replaced)
			e[k++] = environ[i];
	}
	for (int j = 0; j < n_over; j++)
		e[k++] = over[j];
	return e;
}

static bool is_assignment(const char *s)
{
	const char *eq = strchr(s, '=');

	if (!eq || eq == s || s[0] == '/')
		return false;
	for (const char *p = s; p < eq; p++)
		if (!(*p == '_' || (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		      (p > s && *p >= '0' && *p <= '9')))
			return false;
	return true;
}

static bool parse_redir(const char *s, struct redir *r)
{
	char *end;
	long fd = strtol(s, &end, 10);

	if (end == s || fd < 3 || fd > 100)
		return false;
	if (strcmp(end, "=socket") == 0) {
		r->fd = (int)fd;
		r->flags = -1;
		r->path = "socket";
		return true;
	}
	if ((*end != '<' && *end != '>') || !end[1])
		return false;
	r->fd = (int)fd;
	r->flags = *end == '<' ? O_RDONLY : O_WRONLY;
	r->path = end + 1;
	return true;
}

int main(int argc, char **argv)
{
	int iters = 300, warmup = 20, opt;
	const char *json = NULL, *base_name = NULL;
	bool raw = false, quiet = false;
	struct variant *base = NULL;
	FILE *tf = stdout;

	while ((opt = getopt(argc, argv, "+n:w:j:rb:q")) != -1) {
		switch (opt) {
		case 'n':
			iters = atoi(optarg);
			break;
		case 'w':
			warmup = atoi(optarg);
			break;
		case 'j':
			json = optarg;
			break;
		case 'r':
			raw = true;
			break;
		case 'b':
			base_name = optarg;
			break;
		case 'q':
			quiet = true;
			break;
		default:
			usage();
		}
	}
	if (iters < 1 || warmup < 0)
		usage();

	/* Variants: NAME [redirs] ARGV... separated by "::". */
	for (int i = optind; i < argc;) {
		struct variant *v;
		char *over[64];
		int start, n_over = 0;

		if (n_variants == MAX_VARIANTS)
			usage();
		v = &variants[n_variants++];
		v->name = argv[i++];
		for (; i < argc; i++) {
			if (v->n_redir < MAX_REDIRS && parse_redir(argv[i], &v->redir[v->n_redir]))
				v->n_redir++;
			else if (n_over < 64 && is_assignment(argv[i]))
				over[n_over++] = argv[i];
			else
				break;
		}
		v->envp = make_env(over, n_over);
		start = i;
		while (i < argc && strcmp(argv[i], "::") != 0)
			i++;
		if (i == start || argv[start][0] != '/')
			usage();
		v->argv = calloc((size_t)(i - start + 1), sizeof(char *));
		if (!v->argv)
			die("calloc");
		memcpy(v->argv, argv + start, sizeof(char *) * (size_t)(i - start));
		if (i < argc)
			i++; /* "::" */
	}
	if (n_variants == 0)
		usage();

	for (int i = 0; i < n_variants; i++) {
		struct variant *v = &variants[i];

		probe(v);
		if (v->skipped)
			fprintf(stderr, "bench-spawn: skipping %s: %s\n", v->name, v->reason);
		v->wall_us = calloc((size_t)iters, sizeof(double));
		v->cpu_us = calloc((size_t)iters, sizeof(double));
		if (!v->wall_us || !v->cpu_us)
			die("calloc");
		if (base_name ? strcmp(v->name, base_name) == 0 : i == 0)
			base = v;
	}
	if (!base || base->skipped) {
		fprintf(stderr, "bench-spawn: baseline %s unavailable\n", base_name ? base_name : "");
		return 1;
	}

	for (int round = -warmup; round < iters; round++) {
		for (int k = 0; k < n_variants; k++) {
			struct variant *v = &variants[((round + warmup) + k) % n_variants];
			double wall, cpu;
			int status;

			if (v->skipped)
				continue;
			status = run_once(v, -1, &wall, &cpu);
			if (round < 0)
				continue;
			if (status != 0) {
				v->failures++;
				continue;
			}
			v->wall_us[v->n] = wall;
			v->cpu_us[v->n] = cpu;
			v->n++;
		}
		if (!quiet && round >= 0 && (round + 1) % 50 == 0)
			fprintf(stderr, "bench-spawn: %d/%d rounds\n", round + 1, iters);
	}
	for (int i = 0; i < n_variants; i++)
		if (!variants[i].skipped)
			compute(&variants[i]);

	if (json && strcmp(json, "-") == 0)
		tf = stderr;
	emit_table(tf, base);
	if (json) {
		FILE *jf = strcmp(json, "-") == 0 ? stdout : fopen(json, "w");

		if (!jf)
			die(json);
		emit_json(jf, iters, warmup, base, raw);
		if (jf != stdout && fclose(jf) != 0)
			die(json);
	}
	return 0;
}
