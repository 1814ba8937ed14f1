/* floor.c: the kernel's share of any jail with fresh namespaces, as a
 * reference row for run.sh and serve.sh. One run: clone() into new user,
 * mount, pid, net, ipc, uts and cgroup namespaces (the set hutch's shipped
 * policies ask for), write the one-id maps, then pid 1 forks the command,
 * reaps it and exits with its status. Nothing else: no mounts, no
 * pivot_root, no Landlock, no seccomp, no limits, no supervisor. No
 * sandbox with fresh namespaces can start a command faster on the same
 * kernel, so the distance to it is what a sandbox's own work costs.
 *
 *   floor [-n RUNS] [-p PARALLEL] [-N] [-t [-x | -F]] CMD [ARG...]
 *
 * With -n 1 (the default) it is one jailed run, exit status the command's,
 * for bench-spawn. With more runs it prints runs/s over PARALLEL workers
 * (serve.sh's floor row). -N leaves the network namespace out.
 * -t: RUNS runs one at a time, each timed in-process, and prints the
 * medians "WALL_US CPU_US" (CPU: ours and every reaped descendant's);
 * costs.sh splits floor1 with it: -x, pid 1 exits once the maps are
 * written (clone, maps, exit and reaping, no command); -F, no namespaces:
 * fork, exec CMD, wait (what every run pays for its command anyway).
 * Built like hutch-exec (static with musl where musl-gcc exists), so that
 * its own exec costs what the helper's does. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench-median.h"

static int mode;	/* 0, or -t's 'x' (no command) or 'F' (no namespaces) */

static void die(const char *what)
{
	fprintf(stderr, "floor: %s: %s\n", what, strerror(errno));
	exit(70);
}

static void write_proc(pid_t pid, const char *name, const char *text)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, text, strlen(text)) < 0)
		die(path);
	close(fd);
}

static int wait_status(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			die("waitpid");
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* pid 1: wait for the maps, fork the command, reap it. */
static _Noreturn void jail_init(int go_fd, char **argv)
{
	pid_t target;
	char go;

	if (read(go_fd, &go, 1) != 1)
		_exit(71);
	close(go_fd);
	if (mode == 'x')
		_exit(0);
	target = fork();
	if (target < 0)
		_exit(71);
	if (target == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	_exit(wait_status(target));
}

static int run_one(unsigned long flags, char **argv)
{
	char map[32];
	int sync_p[2];
	pid_t child;

	if (mode == 'F') {
		child = fork();
		if (child == 0) {
			execv(argv[0], argv);
			_exit(127);
		}
		if (child < 0)
			die("fork");
		return wait_status(child);
	}
	if (pipe2(sync_p, O_CLOEXEC) < 0)
		die("pipe2");
	child = (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, NULL);
	if (child < 0)
		die("clone");
	if (child == 0) {
		close(sync_p[1]);
		jail_init(sync_p[0], argv);
	}
	close(sync_p[0]);
	write_proc(child, "setgroups", "deny");
	snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)geteuid());
	write_proc(child, "uid_map", map);
	snprintf(map, sizeof(map), "0 %u 1\n", (unsigned)getegid());
	write_proc(child, "gid_map", map);
	if (write(sync_p[1], "g", 1) != 1)
		die("write");
	close(sync_p[1]);
	return wait_status(child);
}

static double seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static double cpu_us(void)
{
	struct rusage s, c;

	getrusage(RUSAGE_SELF, &s);
	getrusage(RUSAGE_CHILDREN, &c);
	return (double)(s.ru_utime.tv_sec + s.ru_stime.tv_sec + c.ru_utime.tv_sec +
			c.ru_stime.tv_sec) * 1e6 +
	       (double)(s.ru_utime.tv_usec + s.ru_stime.tv_usec + c.ru_utime.tv_usec +
			c.ru_stime.tv_usec);
}

/* -t: each run timed, after 3 untimed ones; the medians printed */
static int timed(long runs, unsigned long flags, char **argv)
{
	double *wall = calloc((size_t)runs, sizeof(double));
	double *cpu = calloc((size_t)runs, sizeof(double));

	if (!wall || !cpu)
		die("calloc");
	for (long i = -3; i < runs; i++) {
		double t0 = seconds(), c0 = cpu_us();

		if (run_one(flags, argv) != 0) {
			fprintf(stderr, "floor: a run failed\n");
			return 1;
		}
		if (i >= 0) {
			wall[i] = (seconds() - t0) * 1e6;
			cpu[i] = cpu_us() - c0;
		}
	}
	printf("%.0f %.0f\n", median(wall, (int)runs), median(cpu, (int)runs));
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET |
			      CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP;
	long runs = 1, par = 1;
	int opt, failed = 0, time_each = 0;
	double t0;

	while ((opt = getopt(argc, argv, "+n:p:NtxF")) != -1) {
		switch (opt) {
		case 'n': runs = strtol(optarg, NULL, 10); break;
		case 'p': par = strtol(optarg, NULL, 10); break;
		case 'N': flags &= ~(unsigned long)CLONE_NEWNET; break;
		case 't': time_each = 1; break;
		case 'x': case 'F': mode = opt; break;
		default: goto usage;
		}
	}
	if (optind >= argc || argv[optind][0] != '/' || runs < 1 || par < 1 || par > runs ||
	    (mode && !time_each) || (time_each && par != 1))
		goto usage;
	if (time_each)
		return timed(runs, flags, argv + optind);
	if (runs == 1)
		return run_one(flags, argv + optind);
	t0 = seconds();
	for (long w = 0; w < par; w++) {
		pid_t p = fork();

		if (p < 0)
			die("fork");
		if (p == 0) {
			for (long i = w; i < runs; i += par)
				if (run_one(flags, argv + optind) != 0)
					_exit(1);
			_exit(0);
		}
	}
	for (long w = 0; w < par; w++) {
		int st;

		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			failed = 1;
	}
	if (failed) {
		fprintf(stderr, "floor: a run failed\n");
		return 1;
	}
	printf("%.0f\n", (double)runs / (seconds() - t0));
	return 0;
usage:
	fprintf(stderr, "usage: floor [-n RUNS] [-p PARALLEL] [-N] [-t [-x | -F]] /ABSOLUTE/CMD "
			"[ARG...]\n");
	return 64;
}
