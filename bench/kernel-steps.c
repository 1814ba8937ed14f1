/* kernel-steps.c: the kernel's own cost of each step of hutch's jail
 * (the steps of the result's jail.timings), measured without hutch: for
 * each step, the least system calls that make the kernel do the same work
 * for the jail a spec describes, in a fresh process per run, timed the
 * way the helper times its steps (CLOCK_MONOTONIC from the end of one step
 * to the end of the next) plus the CPU time of the process doing it.
 *
 *   kernel-steps -p PLAN -f FILTER -b BASE [-n RUNS] [-w WARMUP]
 *                [-s STEP [-W STEP,...] | -a] [-c CLONEFLAGS] [-x /ABS/CMD]
 *
 * PLAN is what spec-plan prints for a captured spec (its mounts, ids, cwd,
 * limits); FILTER and BASE the spec's seccomp program and the helper's
 * base program, raw BPF. One run: clone() into the namespaces (floor.c's
 * set, or -c), the id maps written from outside (uid_inside to our
 * effective uid; as root, the clone is made with the spec's outside id as
 * effective uid, as the helper does, and that id is mapped), then pid 1
 * does the steps, forks the command (default /bin/true), waits for its
 * execve (a close-on-exec pipe's EOF, as the helper does) and reaps it,
 * and exits: that exit, until our wait4 returns, is the teardown.
 *
 * -s STEP: that step alone. Only what it needs first is done (untimed):
 * the binds need the private propagation and the root tmpfs; Landlock's
 * rules need the whole tree and pivot_root, so that they land on the same
 * inodes; seccomp needs no_new_privs; exec needs fork. -a: every step in
 * order, the whole jail with nothing of hutch's (no frontend, no status
 * pipe, no supervisor, no mirror, no error reporting).
 *
 * -W: more steps done with -s STEP (and what they need), their time
 * not printed: "-s teardown -W mount_private,root,pivot_root" is the
 * teardown of a jail that has pivoted into an empty tmpfs, "-s pivot_root
 * -W binds_dir,..." the pivot after the plan's mounts.
 *
 * -c: the namespaces as a number of CLONE_NEW* bits (without
 * CLONE_NEWUSER no id maps are written). -x: the command instead of
 * /bin/true.
 *
 * Output, "STEP WALL_MEDIAN_US CPU_MEDIAN_US": the step of -s, or with -a
 * every step and a line "sum" (the median of each run's total, teardown
 * left out). The CPU of
 * clone and id_maps is the outer process's (the one doing the work), of
 * exec the target's from fork to exit (it cannot be cut at the execve),
 * of teardown pid 1's total from wait4 less what it had used before its
 * exit (the network namespace's cleanup runs later in a kernel worker
 * and is in no process's time). The filesystem and Landlock steps are in
 * kernel-steps-tree.c. Built like floor.c (static with musl where musl-gcc
 * exists): build-kernel-steps.sh. A benchmark aid (bench/README). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/securebits.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench-median.h"
#include "kernel-steps.h"

static const char *const step_name[S_MAX] = {
	"prepare", "clone", "id_maps", "mount_private", "binds_dir", "binds_file", "root",
	"tmpfs", "proc", "devpts", "files", "pivot_root", "network", "landlock", "rlimits",
	"privileges", "session", "seccomp", "fork", "exec", "teardown",
};
static char paths[65536];	/* the mounts' strings */
static struct sock_fprog filt, base;
static const char *cmd;

struct plan plan;
struct rec *rec;
unsigned run_mask;
static double last_wall, last_cpu;
int tree_fd[MAX_MOUNTS], tree_dir[MAX_MOUNTS], ruleset_fd;
static int count_fd[12], last_cap, ctl[2];	/* zero, in .bss: see prefault() */

_Noreturn void die(const char *what)
{
	fprintf(stderr, "kernel-steps: %s: %s\n", what, strerror(errno));
	_exit(70);
}

static double clock_us(clockid_t id)
{
	struct timespec t;

	clock_gettime(id, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

void mark(enum step s)
{
	double w = clock_us(CLOCK_MONOTONIC), c = clock_us(CLOCK_THREAD_CPUTIME_ID);

	rec->wall[s] += w - last_wall;
	rec->cpu[s] += c - last_cpu;
	last_wall = w;
	last_cpu = c;
}

static void restart_clock(void)
{
	last_wall = clock_us(CLOCK_MONOTONIC);
	last_cpu = clock_us(CLOCK_THREAD_CPUTIME_ID);
}

static void user_counts_open(void)
{
	static const char *const f[12] = {
		"max_user_namespaces", "max_mnt_namespaces", "max_pid_namespaces",
		"max_net_namespaces", "max_ipc_namespaces", "max_uts_namespaces",
		"max_cgroup_namespaces", "max_time_namespaces", "max_inotify_instances",
		"max_inotify_watches", "max_fanotify_groups", "max_fanotify_marks",
	};
	char path[64];

	for (int i = 0; i < 12; i++) {
		snprintf(path, sizeof(path), "/proc/sys/user/%s", f[i]);
		count_fd[i] = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
	}
}

static void rlimits(void)
{
	static const int res[5] = { RLIMIT_DATA, RLIMIT_CPU, RLIMIT_FSIZE, RLIMIT_NOFILE,
				    RLIMIT_NPROC };
	struct rlimit r;

	for (int i = 0; i < 5; i++) {
		r.rlim_cur = r.rlim_max = plan.rlim[i] == ~0ULL ? RLIM_INFINITY : plan.rlim[i];
		if (setrlimit(res[i], &r) < 0 && errno != EPERM)
			die("setrlimit");
	}
	r.rlim_cur = r.rlim_max = RLIM_INFINITY;
	setrlimit(RLIMIT_AS, &r);
	r.rlim_cur = r.rlim_max = 0;
	setrlimit(RLIMIT_CORE, &r);
	for (int i = 0; i < 2; i++) {
		int which = i ? RLIMIT_MSGQUEUE : RLIMIT_SIGPENDING;

		getrlimit(which, &r);
		r.rlim_cur = r.rlim_max = plan.ucap[i ? 2 : 3] < r.rlim_max ? plan.ucap[i ? 2 : 3]
									 : r.rlim_max;
		setrlimit(which, &r);
	}
	for (int i = 0; i < 12; i++) {
		char num[24];
		int len = snprintf(num, sizeof(num), "%llu", i == 8 ? plan.ucap[0] : i == 9 ? plan.ucap[1] : 0ULL);

		if (count_fd[i] >= 0 && (write(count_fd[i], num, (size_t)len) < 0 || close(count_fd[i]) < 0))
			die("user counts");
	}
}

static void privileges(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = { { 0 }, { 0 } };

	for (int c = 0; c <= last_cap; c++)
		prctl(PR_CAPBSET_DROP, c, 0, 0, 0);
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (setresgid(plan.gid_in, plan.gid_in, plan.gid_in) < 0 ||
	    setresuid(plan.uid_in, plan.uid_in, plan.uid_in) < 0)
		die("setresuid");
	if (syscall(SYS_capset, &hdr, data) < 0 || syscall(SYS_capget, &hdr, data) < 0)
		die("capset");
	prctl(PR_CAPBSET_READ, last_cap + 1, 0, 0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		die("no_new_privs");
}

static void session(int *exec_p)
{
	char cwd[4096];
	const char *dir = RUN(S_PIVOT_ROOT) ? plan.cwd : "/";

	if (chdir(dir) < 0 || !getcwd(cwd, sizeof(cwd)))
		die("chdir");
	/* keep 0-2, the control socket and the shared page (not an fd) */
	if (syscall(__NR_close_range, 3, ctl[1] - 1, 0) < 0 ||
	    syscall(__NR_close_range, ctl[1] + 1, ~0U, 0) < 0)
		die("close_range");
	if (setsid() < 0 || pipe2(exec_p, O_CLOEXEC) < 0)
		die("setsid");
}

/* Both programs, the spec's with a listener, which is sent out. */
static void seccomp_load(void)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = "L", .iov_len = 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			      .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
	long fd;

	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &base) < 0)
		die("seccomp base");
	fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER, &filt);
	if (fd < 0)
		die("seccomp");
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &(int){ (int)fd }, sizeof(int));
	if (sendmsg(ctl[1], &msg, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		die("sendmsg");
	close((int)fd);
}

static void network(void)
{
	struct ifreq ifr = { 0 };
	int fd;

	if (plan.hostname[0] && sethostname(plan.hostname, strlen(plan.hostname)) < 0)
		die("sethostname");
	if (!(plan.flags & 0x20))	/* HUTCH_SPEC_NET_LOOPBACK */
		return;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	memcpy(ifr.ifr_name, "lo", 3);
	if (fd < 0 || ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		die("lo");
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		die("lo up");
	close(fd);
}

static void fork_exec(void)
{
	char *argv[] = { (char *)cmd, NULL }, *envp[] = { "PATH=/usr/bin:/bin", NULL };
	int exec_p[2], st;
	struct rusage ru;
	char c;
	pid_t t;

	if (pipe2(exec_p, O_CLOEXEC) < 0)
		die("pipe2");
	restart_clock();
	t = fork();
	if (t < 0)
		die("fork");
	if (t == 0) {
		close(exec_p[0]);
		execve(cmd, argv, envp);
		_exit(127);
	}
	mark(S_FORK);
	close(exec_p[1]);
	while (read(exec_p[0], &c, 1) < 0 && errno == EINTR)
		;
	mark(S_EXEC);
	if (wait4(t, &st, 0, &ru) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		_exit(72);
	rec->cpu[S_EXEC] = (double)ru.ru_utime.tv_sec * 1e6 + (double)ru.ru_utime.tv_usec +
			   (double)ru.ru_stime.tv_sec * 1e6 + (double)ru.ru_stime.tv_usec;
}

static double rusage_us(int who)
{
	struct rusage ru;

	getrusage(who, &ru);
	return (double)ru.ru_utime.tv_sec * 1e6 + (double)ru.ru_utime.tv_usec +
	       (double)ru.ru_stime.tv_sec * 1e6 + (double)ru.ru_stime.tv_usec;
}

/* pid 1: everything after the id maps, each step when it is in run_mask. */
static _Noreturn void jail(void)
{
	int exec_p[2];

	restart_clock();
	if (RUN(S_MOUNT_PRIVATE)) {
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		user_counts_open();
		mount_private();
		mark(S_MOUNT_PRIVATE);
	}
	if (RUN(S_ROOT))
		build_tree();		/* mounts.c: binds .. pivot_root, each marked */
	if (RUN(S_NETWORK)) {
		network();
		mark(S_NETWORK);
	}
	if (RUN(S_LANDLOCK)) {
		landlock_rules();
		mark(S_LANDLOCK);
	}
	if (RUN(S_RLIMITS)) {
		rlimits();
		mark(S_RLIMITS);
	}
	if (RUN(S_PRIVILEGES)) {
		privileges();
		mark(S_PRIVILEGES);
	}
	if (RUN(S_LANDLOCK)) {
		if (syscall(__NR_landlock_restrict_self, ruleset_fd, 0) < 0)
			die("landlock_restrict_self");
		close(ruleset_fd);
		mark(S_LANDLOCK);
	}
	if (RUN(S_SESSION)) {
		session(exec_p);
		close(exec_p[0]);
		close(exec_p[1]);
		mark(S_SESSION);
	}
	if (RUN(S_SECCOMP)) {
		seccomp_load();
		mark(S_SECCOMP);
	}
	if (RUN(S_FORK))
		fork_exec();
	rec->cpu_before_exit = rusage_us(RUSAGE_SELF) + rusage_us(RUSAGE_CHILDREN);
	rec->t_exit = clock_us(CLOCK_MONOTONIC);
	_exit(0);
}

/* ---- the outer process: one run ---- */

#define CTL_FD 6	/* the helper's control socket's number */

static void write_file(pid_t pid, const char *name, const char *text)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, text, strlen(text)) < 0)
		die(path);
	close(fd);
}

static void prepare(void)
{
	char buf[8] = { 0 };
	int fd = open("/proc/sys/kernel/cap_last_cap", O_RDONLY | O_CLOEXEC), p[2];

	if (fd < 0 || read(fd, buf, sizeof(buf) - 1) < 0)
		die("cap_last_cap");
	close(fd);
	last_cap = atoi(buf);
	if (RUN(S_LANDLOCK))
		landlock_create();
	if (pipe2(p, O_CLOEXEC) < 0)	/* the mirror pipe */
		die("pipe2");
	close(p[0]);
	close(p[1]);
}

/* A forked process's first write to a page of its own is a copy-on-write
 * fault: taken here, untimed, for the stack and every page of .bss (all
 * our writable statics are there), so that a step measured alone is not
 * charged for faults that any earlier step would have taken. */
extern char __bss_start[], _end[];

static void __attribute__((noinline)) prefault(void)
{
	volatile char stack[64 * 1024];
	long page = sysconf(_SC_PAGESIZE);

	for (size_t i = 0; i < sizeof(stack); i += (size_t)page)
		stack[i] = 0;
	/* from the page of __bss_start to the one _end is in */
	for (uintptr_t a = (uintptr_t)__bss_start & ~(uintptr_t)(page - 1); a < (uintptr_t)_end;
	     a += (uintptr_t)page)
		*(volatile char *)(a < (uintptr_t)__bss_start ? (uintptr_t)__bss_start : a) =
			*(volatile char *)(a < (uintptr_t)__bss_start ? (uintptr_t)__bss_start : a);
}

/* pid 1 from its first instruction to the id maps' release */
static _Noreturn void pid1(int go_fd, int bits)
{
	char go;

	rec->wall[S_CLONE] = clock_us(CLOCK_MONOTONIC) - last_wall;
	rec->cpu[S_CLONE] += clock_us(CLOCK_THREAD_CPUTIME_ID);
	restart_clock();
	if (read(go_fd, &go, 1) != 1)
		_exit(71);
	close(go_fd);
	rec->wall[S_ID_MAPS] = clock_us(CLOCK_MONOTONIC) - last_wall;
	prefault();
	if (bits >= 0)
		prctl(PR_SET_SECUREBITS, (unsigned long)bits, 0, 0, 0);
	jail();
}

/* One jail; its record in *rec. 0, or -1 if it failed. */
static int one_run(unsigned long flags)
{
	unsigned out_u = geteuid(), out_g = getegid();
	int sync_p[2], bits = -1, st;
	struct rusage ru;
	char map[64];
	pid_t child;
	double c0;

	memset(rec, 0, sizeof(*rec));
	restart_clock();
	if (RUN(S_PREPARE)) {
		prepare();
		mark(S_PREPARE);
	}
	if (pipe2(sync_p, O_CLOEXEC) < 0)
		die("pipe2");
	restart_clock();
	if (out_u == 0) {	/* as namespaces.c's become_owner */
		out_u = plan.uid_out;
		out_g = plan.gid_out;
		bits = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
		if (setgroups(0, NULL) < 0 ||
		    prctl(PR_SET_SECUREBITS, (unsigned long)bits | SECBIT_NO_SETUID_FIXUP, 0, 0, 0) < 0 ||
		    setresuid((uid_t)-1, out_u, (uid_t)-1) < 0)
			die("owner");
	}
	child = (pid_t)syscall(SYS_clone, flags | SIGCHLD, NULL, NULL, NULL, NULL);
	if (child < 0)
		die("clone");
	if (child == 0) {
		close(sync_p[1]);
		pid1(sync_p[0], bits);
	}
	rec->cpu[S_CLONE] += clock_us(CLOCK_THREAD_CPUTIME_ID) - last_cpu;
	close(sync_p[0]);
	if (bits >= 0 && (setresuid((uid_t)-1, 0, (uid_t)-1) < 0 ||
			  prctl(PR_SET_SECUREBITS, (unsigned long)bits, 0, 0, 0) < 0))
		die("owner back");
	c0 = clock_us(CLOCK_THREAD_CPUTIME_ID);
	if (flags & CLONE_NEWUSER) {	/* -c without one: root's namespaces alone */
		write_file(child, "setgroups", "deny");
		snprintf(map, sizeof(map), "%u %u 1\n", plan.uid_in, out_u);
		write_file(child, "uid_map", map);
		snprintf(map, sizeof(map), "%u %u 1\n", plan.gid_in, out_g);
		write_file(child, "gid_map", map);
	}
	if (write(sync_p[1], "g", 1) != 1)
		die("release");
	rec->cpu[S_ID_MAPS] = clock_us(CLOCK_THREAD_CPUTIME_ID) - c0;
	close(sync_p[1]);
	while (wait4(child, &st, 0, &ru) < 0)
		if (errno != EINTR)
			die("wait4");
	rec->wall[S_TEARDOWN] = clock_us(CLOCK_MONOTONIC) - rec->t_exit;
	rec->cpu[S_TEARDOWN] = (double)ru.ru_utime.tv_sec * 1e6 + (double)ru.ru_utime.tv_usec +
			       (double)ru.ru_stime.tv_sec * 1e6 + (double)ru.ru_stime.tv_usec -
			       rec->cpu_before_exit;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* The listeners pid 1 sent: closed, or the socket's buffer fills up. */
static void drain(int fd)
{
	for (;;) {
		char cbuf[CMSG_SPACE(sizeof(int))], b;
		struct iovec iov = { .iov_base = &b, .iov_len = 1 };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
				      .msg_controllen = sizeof(cbuf) };
		struct cmsghdr *c;
		int got;

		if (recvmsg(fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC) <= 0)
			return;
		c = CMSG_FIRSTHDR(&msg);
		if (c && c->cmsg_type == SCM_RIGHTS) {
			memcpy(&got, CMSG_DATA(c), sizeof(int));
			close(got);
		}
	}
}

/* ---- the plan (spec-plan's output) and the filters ---- */

static void load_filter(const char *path, struct sock_fprog *prog)
{
	static char buf[2][4096 * 8];
	static int used;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf[used], sizeof(buf[0])) : -1;

	if (n <= 0 || n % 8 != 0)
		die(path);
	close(fd);
	prog->len = (unsigned short)(n / 8);
	prog->filter = (struct sock_filter *)(void *)buf[used++];
}

static void load_plan(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[9000], src[4096], dst[4096];
	size_t used = 0;

	if (!f)
		die(path);
	while (fgets(line, sizeof(line), f)) {
		struct mnt *m = &plan.m[plan.n];
		struct stat st;

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "flags %x", &plan.flags) == 1 ||
		    sscanf(line, "ids %u %u %u %u", &plan.uid_in, &plan.gid_in, &plan.uid_out,
			   &plan.gid_out) == 4 ||
		    sscanf(line, "hostname %64s", plan.hostname) == 1 ||
		    sscanf(line, "cwd %255s", plan.cwd) == 1 ||
		    sscanf(line, "rlimit %llu %llu %llu %llu %llu", &plan.rlim[0], &plan.rlim[1],
			   &plan.rlim[2], &plan.rlim[3], &plan.rlim[4]) == 5 ||
		    sscanf(line, "ucap %llu %llu %llu %llu", &plan.ucap[0], &plan.ucap[1],
			   &plan.ucap[2], &plan.ucap[3]) == 4)
			continue;
		if (plan.n == MAX_MOUNTS ||
		    sscanf(line, "mount %d %x %o %llu %llu %llu %4095s %4095s", &m->kind, &m->flags,
			   &m->mode, &m->size, &m->inodes, &m->data_len, src, dst) != 8 ||
		    used + strlen(src) + strlen(dst) + 2 > sizeof(paths)) {
			fprintf(stderr, "kernel-steps: %s: cannot read: %s\n", path, line);
			exit(64);
		}
		if (m->kind < K_BIND || m->kind > K_DEVPTS) {
			fprintf(stderr, "kernel-steps: %s: mount kind %d (masks, overlays) is not "
				"modelled\n", path, m->kind);
			exit(64);
		}
		if (strcmp(src, "-") == 0)
			src[0] = '\0';
		m->source = strcpy(paths + used, src);
		used += strlen(src) + 1;
		m->target = strcpy(paths + used, dst);
		used += strlen(dst) + 1;
		tree_dir[plan.n] = m->kind == K_BIND && stat(m->source, &st) == 0 && S_ISDIR(st.st_mode);
		plan.n++;
	}
	fclose(f);
	if (strcmp(plan.hostname, "-") == 0)
		plan.hostname[0] = '\0';
}

/* ---- main: the runs, the medians ---- */

/* What step s needs done first, untimed (see the header). */
static unsigned needs(enum step s)
{
	const unsigned tree = BIT(S_MOUNT_PRIVATE) | BIT(S_ROOT);

	switch (s) {
	case S_BINDS_DIR: case S_BINDS_FILE: case S_ROOT: case S_TMPFS: case S_PROC:
	case S_DEVPTS: case S_FILES: case S_PIVOT_ROOT:
		return tree;
	case S_LANDLOCK:
		return BIT(S_PREPARE) | tree | BIT(S_BINDS_DIR) | BIT(S_BINDS_FILE) | BIT(S_TMPFS) |
		       BIT(S_PROC) | BIT(S_DEVPTS) | BIT(S_FILES) | BIT(S_PIVOT_ROOT);
	case S_RLIMITS: return BIT(S_MOUNT_PRIVATE);
	case S_PRIVILEGES: return BIT(S_PREPARE);
	case S_SECCOMP: return BIT(S_PREPARE) | BIT(S_PRIVILEGES);
	case S_EXEC: return BIT(S_FORK);
	default: return 0;
	}
}

static void usage(void)
{
	fprintf(stderr, "usage: kernel-steps -p PLAN -f FILTER -b BASE [-n RUNS] [-w WARMUP] "
			"[-s STEP [-W STEP,...] | -a] [-c CLONEFLAGS] [-x /ABS/CMD]\n");
	exit(64);
}

static int step_of_name(const char *name, size_t len)
{
	for (int s = 0; s < S_MAX; s++)
		if (strlen(step_name[s]) == len && memcmp(name, step_name[s], len) == 0)
			return s;
	usage();
	return -1;
}

/* -W's comma-separated steps, each with what it needs */
static unsigned with_steps(const char *list)
{
	unsigned mask = 0;

	while (*list) {
		size_t len = strcspn(list, ",");
		int s = step_of_name(list, len);

		mask |= BIT(s) | needs((enum step)s);
		list += len + (list[len] == ',');
	}
	return mask;
}

int main(int argc, char **argv)
{
	unsigned long flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET |
			      CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP;
	const char *plan_path = NULL, *filt_path = NULL, *base_path = NULL;
	int runs = 100, warm = 5, only = -1, all = 0, opt, sp[2];
	unsigned with = 0;

	cmd = "/bin/true";
	double (*wall)[10000], (*cpu)[10000];
	size_t samples = sizeof(*wall) * (S_MAX + 1);

	while ((opt = getopt(argc, argv, "p:f:b:n:w:s:W:ac:x:")) != -1) {
		switch (opt) {
		case 'p': plan_path = optarg; break;
		case 'f': filt_path = optarg; break;
		case 'b': base_path = optarg; break;
		case 'n': runs = atoi(optarg); break;
		case 'w': warm = atoi(optarg); break;
		case 'a': all = 1; break;
		case 'c': flags = strtoul(optarg, NULL, 0); break;
		case 'x': cmd = optarg; break;
		case 's': only = step_of_name(optarg, strlen(optarg)); break;
		case 'W': with = with_steps(optarg); break;
		default: usage();
		}
	}
	if (!plan_path || !filt_path || !base_path || runs < 1 || runs > 10000 || warm < 0 ||
	    all == (only >= 0) || (all && with) || cmd[0] != '/' || (size_t)runs > sizeof(*wall) / sizeof(**wall))
		usage();
	/* the samples: not copied into every jail we fork */
	wall = mmap(NULL, 2 * samples, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (wall == MAP_FAILED || madvise(wall, 2 * samples, MADV_DONTFORK) < 0)
		die("mmap");
	cpu = (double (*)[10000])((char *)wall + samples);
	load_plan(plan_path);
	load_filter(filt_path, &filt);
	load_filter(base_path, &base);
	run_mask = all ? ~0u : BIT(only) | needs((enum step)only) | with;
	rec = mmap(NULL, sizeof(*rec), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (rec == MAP_FAILED || socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sp) < 0)
		die("setup");
	/* the other end at the helper's number, inherited across the clone */
	if (dup2(sp[1], CTL_FD) < 0)
		die("dup2");
	ctl[1] = CTL_FD;
	for (int i = -warm; i < runs; i++) {
		double sum_w = 0, sum_c = 0;

		if (one_run(flags) < 0) {
			fprintf(stderr, "kernel-steps: a run failed\n");
			return 1;
		}
		drain(sp[0]);
		if (i < 0)
			continue;
		for (int s = 0; s < S_MAX; s++) {
			wall[s][i] = rec->wall[s];
			cpu[s][i] = rec->cpu[s];
			if (s != S_TEARDOWN) {
				sum_w += rec->wall[s];
				sum_c += rec->cpu[s];
			}
		}
		wall[S_MAX][i] = sum_w;
		cpu[S_MAX][i] = sum_c;
	}
	for (int s = 0; s <= S_MAX; s++) {
		if (s == S_MAX ? !all : !(all ? RUN(s) : s == only))
			continue;
		printf("%s %.0f %.0f\n", s == S_MAX ? "sum" : step_name[s], median(wall[s], runs),
		       median(cpu[s], runs));
	}
	return 0;
}
