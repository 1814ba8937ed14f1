/* probes-kernel.c: the privilege probes of tests/escape that aim at the kernel: keys, bpf,
 * perf, userfaultfd, io_uring, kexec, modules, personality, clocks,
 * reboot, swap, scheduling and rlimits, port I/O, obscure calls and the
 * 32-bit entry points. Linked into probes (probes.c).
 */
#include "probes.h"

static int c_ioperm(void *a)
{
	(void)a;
	REACH("iopl(3)", syscall(SYS_iopl, 3));
	REACH("ioperm(0x80, 1, on)", syscall(SYS_ioperm, 0x80UL, 1UL, 1));
	return 0; /* the child exits: nothing was touched */
}

void p_ioperm(void)
{
	in_child(c_ioperm, NULL, 10);
	finish(NULL);
}

void p_obscure_calls(void)
{
	char ubuf[64];

	REACH("acct of a missing file", syscall(SYS_acct, "/hx-no-such-acct-file"));
	REACH("uselib of a missing file", syscall(SYS_uselib, "/hx-no-such-lib"));
	REACH("ustat(0)", syscall(SYS_ustat, 0UL, ubuf));
	REACH("sysfs(3)", syscall(SYS_sysfs, 3));
	{
		long r = syscall(SYS_fanotify_init, 0x200UL /* FAN_REPORT_FID */, O_RDONLY);
		int e = errno;

		reach("fanotify_init(FAN_REPORT_FID)", r, e);
		if (r >= 0)
			close((int)r);
	}
	finish(NULL);
}

void p_keyctl(void)
{
	long r;

	r = syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -4 /* KEY_SPEC_USER_KEYRING */, 0);
	reach("keyctl(GET_KEYRING_ID, user keyring)", r, errno);
	r = syscall(SYS_add_key, "hx-no-such-type", "hx", "x", 1, -2 /* process keyring */);
	reach("add_key of an unknown type", r, errno);
	r = syscall(SYS_request_key, "user", "hx-no-such-key", NULL, 0);
	reach("request_key of a missing key", r, errno);
	finish(NULL);
}

void p_bpf(void)
{
	union {
		struct {
			uint32_t map_type, key_size, value_size, max_entries;
		} m;
		char pad[128];
	} attr;
	long r;

	memset(&attr, 0, sizeof(attr));
	attr.m.map_type = 2; /* BPF_MAP_TYPE_ARRAY */
	attr.m.key_size = 4;
	attr.m.value_size = 4;
	attr.m.max_entries = 1;
	r = syscall(SYS_bpf, 0 /* BPF_MAP_CREATE */, &attr, sizeof(attr));
	reach("bpf(BPF_MAP_CREATE)", r, errno);
	if (r >= 0)
		close((int)r);
	memset(&attr, 0, sizeof(attr));
	r = syscall(SYS_bpf, 0x7fff, &attr, sizeof(attr));
	reach("bpf(invalid command)", r, errno);
	finish(NULL);
}

void p_perf(void)
{
	struct perf_event_attr pa;
	long r;

	memset(&pa, 0, sizeof(pa));
	pa.type = PERF_TYPE_SOFTWARE;
	pa.size = sizeof(pa);
	pa.config = PERF_COUNT_SW_TASK_CLOCK;
	pa.exclude_kernel = 1;
	pa.exclude_hv = 1;
	pa.disabled = 1;
	r = syscall(SYS_perf_event_open, &pa, 0, -1, -1, 0);
	reach("perf_event_open(task-clock, self)", r, errno);
	if (r >= 0)
		close((int)r);
	finish(NULL);
}

void p_userfaultfd(void)
{
	long r = syscall(SYS_userfaultfd, O_CLOEXEC | 1 /* UFFD_USER_MODE_ONLY */);
	int fd;

	reach("userfaultfd(UFFD_USER_MODE_ONLY)", r, errno);
	if (r >= 0)
		close((int)r);
	fd = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		esc("open /dev/userfaultfd: ok");
		close(fd);
	} else {
		held(errno, "open /dev/userfaultfd");
	}
	finish(NULL);
}

void p_io_uring(void)
{
	char params[120]; /* struct io_uring_params */
	long r;

	memset(params, 0, sizeof(params));
	r = syscall(SYS_io_uring_setup, 2, params);
	reach("io_uring_setup(2)", r, errno);
	if (r >= 0)
		close((int)r);
	finish(NULL);
}

void p_kexec(void)
{
	/* 17 segments > KEXEC_SEGMENT_MAX and a foreign architecture: EINVAL
	 * once the permission check passed; nothing is ever loaded. */
	long r = syscall(SYS_kexec_load, 0UL, 17UL, NULL, 40UL << 16);

	reach("kexec_load (17 segments, foreign arch)", r, errno);
	r = syscall(SYS_kexec_file_load, -1, -1, 0UL, "", 0x80000000UL);
	reach("kexec_file_load (bad flags)", r, errno);
	finish(NULL);
}

void p_modules(void)
{
	static char img[64];
	long r;

	r = syscall(SYS_init_module, img, 0UL, "");
	reach("init_module (empty image)", r, errno);
	r = syscall(SYS_finit_module, -1, "", 0);
	reach("finit_module(-1)", r, errno);
	r = syscall(SYS_delete_module, "hx_no_such_module", O_NONBLOCK);
	reach("delete_module of a missing module", r, errno);
	finish(NULL);
}

void p_personality(void)
{
	int old = personality(0xffffffff);
	long r = syscall(SYS_personality, READ_IMPLIES_EXEC | ADDR_NO_RANDOMIZE);

	reach("personality(READ_IMPLIES_EXEC|ADDR_NO_RANDOMIZE)", r, errno);
	if (r >= 0)
		personality((unsigned long)old);
	finish(NULL);
}

void p_clock(void)
{
	struct timex tx = { .modes = ADJ_TICK, .tick = 1 };
	struct timespec now;
	long r;

	/* with CAP_SYS_TIME a tick of 1 is EINVAL; without, EPERM */
	r = syscall(SYS_adjtimex, &tx);
	reach("adjtimex(ADJ_TICK, tick 1)", r, errno);
	tx = (struct timex){ .modes = ADJ_TICK, .tick = 1 };
	r = syscall(SYS_clock_adjtime, CLOCK_REALTIME, &tx);
	reach("clock_adjtime(REALTIME, ADJ_TICK, tick 1)", r, errno);
	r = syscall(SYS_settimeofday, NULL, NULL); /* a no-op once permitted */
	reach("settimeofday(NULL, NULL)", r, errno);
	clock_gettime(CLOCK_MONOTONIC, &now);
	r = syscall(SYS_clock_settime, CLOCK_MONOTONIC, &now); /* never settable */
	reach("clock_settime(MONOTONIC)", r, errno);
	finish(NULL);
}

void p_reboot(void)
{
	long r = syscall(SYS_reboot, LINUX_REBOOT_MAGIC1, 0x12345678, LINUX_REBOOT_CMD_CAD_OFF,
			 NULL);

	reach("reboot (bad magic2)", r, errno);
	finish(NULL);
}

void p_swap(void)
{
	REACH("swapon of a missing file", swapon("/hx-no-such-swapfile", 0));
	REACH("swapoff of a missing file", swapoff("/hx-no-such-swapfile"));
	finish(NULL);
}

static int c_nice(void *a)
{
	struct sched_param sp = { .sched_priority = 1 };

	(void)a;
	if (setpriority(PRIO_PROCESS, 0, -5) == 0)
		esc("setpriority -5: ok");
	else
		held(errno, "setpriority -5");
	if (sched_setscheduler(0, SCHED_FIFO, &sp) == 0)
		esc("SCHED_FIFO: ok");
	else
		held(errno, "SCHED_FIFO");
	return 0;
}

void p_nice(void)
{
	in_child(c_nice, NULL, 10);
	finish(NULL);
}

static int c_rlimit(void *a)
{
	static const struct {
		int res;
		const char *name;
	} rs[] = { { RLIMIT_NPROC, "NPROC" },
		   { RLIMIT_NOFILE, "NOFILE" },
		   { RLIMIT_AS, "AS" },
		   { RLIMIT_DATA, "DATA" },
		   { RLIMIT_CPU, "CPU" },
		   { RLIMIT_FSIZE, "FSIZE" } };

	(void)a;
	for (size_t i = 0; i < sizeof(rs) / sizeof(rs[0]); i++) {
		struct rlimit rl;

		if (getrlimit(rs[i].res, &rl) < 0) {
			held(errno, "getrlimit %s", rs[i].name);
			continue;
		}
		if (rl.rlim_max == RLIM_INFINITY) {
			esc("%s hard limit is unlimited", rs[i].name);
			continue;
		}
		rl.rlim_max += 1;
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(rs[i].res, &rl) == 0)
			esc("raised %s hard limit to %llu", rs[i].name,
			    (unsigned long long)rl.rlim_max);
		else
			held(errno, "raise %s", rs[i].name);
	}
	{
		/* lowering it below 0 needs CAP_SYS_RESOURCE; this child only */
		int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);

		if (fd < 0)
			held(errno, "open oom_score_adj");
		else if (write(fd, "-1000", 5) == 5)
			esc("oom_score_adj -1000: ok");
		else
			held(errno, "oom_score_adj -1000");
		if (fd >= 0)
			close(fd);
	}
	return 0;
}

void p_rlimit(void)
{
	in_child(c_rlimit, NULL, 10);
	finish(NULL);
}

/* 32-bit entry points from a 64-bit process: a filter that checked only the
 * native architecture would let these through. */
static int c_i386_unshare(void *a)
{
	long r;

	(void)a;
	r = int80(310 /* i386 unshare */, CLONE_NEWUSER, 0, 0);
	reach("i386 unshare(CLONE_NEWUSER)", r < 0 && r > -4096 ? -1 : r, r < 0 ? (int)-r : 0);
	return 0;
}

static int c_i386_misc(void *a)
{
	long r;

	(void)a;
	r = int80(288 /* i386 keyctl */, 0, -4, 0);
	reach("i386 keyctl(GET_KEYRING_ID)", r < 0 && r > -4096 ? -1 : r, r < 0 ? (int)-r : 0);
	r = int80(88 /* i386 reboot */, (long)LINUX_REBOOT_MAGIC1, 0x12345678, LINUX_REBOOT_CMD_CAD_OFF);
	reach("i386 reboot (bad magic2)", r < 0 && r > -4096 ? -1 : r, r < 0 ? (int)-r : 0);
	return 0;
}

static int c_i386_clone(void *a)
{
	long r;

	(void)a;
	/* no new stack, no CLONE_VM: the child resumes here like fork() */
	r = int80(120 /* i386 clone */, CLONE_NEWUSER | SIGCHLD, 0, 0);
	if (r == 0)
		_exit(0);
	reach("i386 clone(CLONE_NEWUSER)", r < 0 && r > -4096 ? -1 : r, r < 0 ? (int)-r : 0);
	if (r > 0)
		waitpid((pid_t)r, NULL, 0);
	return 0;
}

static int c_x32_unshare(void *a)
{
	long r;

	(void)a;
	r = syscall(0x40000000L | 272 /* x32 unshare */, CLONE_NEWUSER);
	reach("x32 unshare(CLONE_NEWUSER)", r, errno);
	return 0;
}

void p_seccomp_abi(void)
{
	if (in_child(c_i386_unshare, NULL, 10) == 254)
		held(EINTR, "i386 unshare: killed");
	if (in_child(c_i386_misc, NULL, 10) == 254)
		held(EINTR, "i386 keyctl/reboot: killed");
	if (in_child(c_i386_clone, NULL, 10) == 254)
		held(EINTR, "i386 clone: killed");
	if (in_child(c_x32_unshare, NULL, 10) == 254)
		held(EINTR, "x32 unshare: killed");
	finish(NULL);
}
