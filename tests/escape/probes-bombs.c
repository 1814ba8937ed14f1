/* probes-bombs.c: the lifetime and bomb probes of tests/escape: processes that try to
 * outlive the jail, fork, memory and disk bombs. Linked into probes
 * (probes.c).
 */
#include "probes.h"

/* ------------------------------------------------------------------ */
/* Lifetime and bombs */

static void name_self(const char *marker)
{
	prctl(PR_SET_NAME, marker, 0, 0, 0);
}

/* A lingerer: new session, SIGTERM/HUP/INT ignored, named marker; sleeps at
 * most 30 s so that a failure never leaves it around for long. keep_stdout
 * keeps the output pipe open (a hutch that waits for EOF would hang). */
static void spawn_lingerer(const char *marker, int keep_stdout)
{
	pid_t p = fork();

	if (p == 0) {
		setsid();
		if (fork() == 0) {
			int null = open("/dev/null", O_RDWR);

			signal(SIGTERM, SIG_IGN);
			signal(SIGHUP, SIG_IGN);
			signal(SIGINT, SIG_IGN);
			signal(SIGPIPE, SIG_IGN);
			name_self(marker);
			if (null >= 0) {
				dup2(null, 0);
				if (!keep_stdout)
					dup2(null, 1);
				dup2(null, 2);
			}
			for (int i = 0; i < 30; i++)
				sleep(1);
			_exit(0);
		}
		_exit(0);
	}
	if (p > 0)
		waitpid(p, NULL, 0);
}

void p_outlive(void)
{
	const char *marker = need("lmarker");

	spawn_lingerer(marker, 0);
	spawn_lingerer(marker, 1);
	note("two lingerers named %s started (setsid, double fork, SIGTERM ignored); the harness looks for them",
	     marker);
	finish(NULL);
}

void p_outlive_timeout(void)
{
	const char *marker = need("lmarker");

	spawn_lingerer(marker, 0);
	spawn_lingerer(marker, 1);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	printf("CONTAINED lingerers named %s started; probe ignores SIGTERM and outstays the timeout\n",
	       marker);
	fflush(stdout);
	for (int i = 0; i < 60; i++)
		sleep(1);
	exit(0);
}

void p_fork_bomb(void)
{
	const char *marker = need("lmarker");
	long cap = 4 * num("procs");
	long n = 0;
	int err = 0;

	signal(SIGCHLD, SIG_DFL);
	for (; n < cap; n++) {
		pid_t p = fork();

		if (p == 0) {
			name_self(marker);
			alarm(60); /* bounded even if nothing else kills it */
			for (;;)
				pause();
		}
		if (p < 0) {
			err = errno;
			break;
		}
	}
	if (n >= cap)
		esc("forked %ld processes, 4x the policy's %ld, without refusal", n, cap / 4);
	else
		held(err, "fork #%ld refused", n + 1);
	note("children named %s left running for the harness to look for", marker);
	finish(NULL);
}

/* Allocate and touch up to cap MiB in 16 MiB steps; returns MiB held. */
static long touch_mib(long cap, int *err)
{
	long got = 0;

	*err = 0;
	while (got < cap) {
		char *p = mmap(NULL, 16 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);

		if (p == MAP_FAILED) {
			*err = errno;
			break;
		}
		for (size_t i = 0; i < (16u << 20); i += 4096)
			p[i] = 1;
		got += 16;
	}
	return got;
}

void p_mem_bomb(void)
{
	long limit = num("mem"), got;
	int err;

	got = touch_mib(2 * limit, &err);
	if (got >= 2 * limit)
		esc("touched %ld MiB, twice the policy's %ld MiB", got, limit);
	else
		held(err, "mmap refused after %ld MiB (limit %ld MiB)", got, limit);
	finish(NULL);
}

void p_mem_bomb_multi(void)
{
	long limit = num("mem"), each = limit * 3 / 4, total = 0, max1 = 0;
	long *got = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int go[2], done[2];
	pid_t kids[4];
	int n = 0;

	if (got == MAP_FAILED || pipe(go) < 0 || pipe(done) < 0)
		usage_error("no shared page");
	for (int i = 0; i < 4; i++) {
		pid_t p = fork();

		if (p == 0) {
			int err;
			char c;

			close(go[1]);
			got[i] = touch_mib(each, &err);
			(void)!write(done[1], "x", 1);
			(void)!read(go[0], &c, 1); /* hold it until the parent has summed */
			_exit(0);
		}
		if (p < 0) {
			held(errno, "fork #%d", i + 1);
			break;
		}
		kids[n++] = p;
	}
	close(done[1]); /* a child killed before it reports ends the wait */
	for (int i = 0; i < n; i++) {
		char c;

		if (read(done[0], &c, 1) != 1)
			break;
	}
	for (int i = 0; i < n; i++) {
		total += got[i];
		if (got[i] > max1)
			max1 = got[i];
	}
	close(go[1]);
	for (int i = 0; i < n; i++)
		waitpid(kids[i], NULL, 0);
	if (max1 > limit)
		esc("one process held %ld MiB > %ld MiB", max1, limit);
	note("%d processes held %ld MiB together (largest %ld MiB; memory limit %ld MiB per process)",
	     n, total, max1, limit);
	if (!st->escaped)
		miss("per-process bound held");
	printf("%s %s aggregate_mib=%ld\n", st->escaped ? "ESCAPED" : "CONTAINED", st->ev, total);
	exit(0);
}

void p_disk_fill(void)
{
	long limit = num("disk");
	const char *files[] = { "/work/hx-fill", "/tmp/hx-fill", "/dev/shm/hx-fill" };
	static char chunk[1 << 20];

	signal(SIGXFSZ, SIG_IGN);
	memset(chunk, 'x', sizeof(chunk));
	for (size_t i = 0; i < 3; i++) {
		int fd = open(files[i], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		long mib = 0;
		int err = 0;

		if (fd < 0) {
			held(errno, "create %s", files[i]);
			continue;
		}
		while (mib < 2 * limit) {
			ssize_t w = write(fd, chunk, sizeof(chunk));

			if (w != (ssize_t)sizeof(chunk)) {
				err = w < 0 ? errno : ENOSPC;
				break;
			}
			mib++;
		}
		if (mib >= 2 * limit)
			esc("%s took %ld MiB, twice the policy's %ld MiB", files[i], mib, limit);
		else
			held(err, "%s stopped at %ld MiB", files[i], mib);
		close(fd);
		unlink(files[i]); /* the next file gets the room back */
	}
	finish(NULL);
}
