/* try-syscall.c: run inside a jail by the integration tests. For each NAME on
 * the command line, makes one real attempt at that system call with harmless
 * arguments (bad fds, NULL pointers, invalid flags or magic, read-only
 * actions) and prints "NAME RESULT": OK, an errno name (EPERM), SIG<NAME>
 * when the attempt was killed (SIGSYS), NOTDEFINED when this architecture
 * has no number for it, NOTTRIED when the attempt could not be made safe.
 *
 * Each attempt runs in a child of its own, so one that is allowed and
 * changes the calling process (unshare, personality) or one that the filter
 * kills does not affect the next. Exit 0; 2 when a NAME is unknown, so a
 * typo in a test cannot pass as a refusal. Not linked with anything of ours. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/reboot.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/timex.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#define NOT_DEFINED (-1)	/* no system call number on this architecture */
#define NOT_TRIED (-2)		/* could not be attempted harmlessly */

#define BAD_FLAGS 0xffffffffUL	/* rejected by every flag check */
#define BAD_CLOCK 0x7ffffff0	/* beyond MAX_CLOCKS, not a CPU clock id */

#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif

/* The errno of a raw call: 0 when it succeeded. */
static int result(long r)
{
	return r < 0 ? errno : 0;
}

#define RAW(nr, ...) result(syscall(nr, ##__VA_ARGS__))

/* Module and kexec loading: NULL images, bad fds; kexec flags carry an
 * invalid architecture, so even a privileged caller gets EINVAL rather
 * than "unload the current image" (nr_segments 0). */
static int try_init_module(void)
{
	return RAW(SYS_init_module, NULL, 0UL, "");
}

static int try_finit_module(void)
{
	return RAW(SYS_finit_module, -1, "", 0);
}

static int try_delete_module(void)
{
	return RAW(SYS_delete_module, NULL, 0);
}

static int try_kexec_load(void)
{
	return RAW(SYS_kexec_load, 0UL, 0UL, NULL, 0xffff0000UL);
}

static int try_kexec_file_load(void)
{
	return RAW(SYS_kexec_file_load, -1, -1, 0UL, NULL, BAD_FLAGS);
}

static int try_bpf(void)
{
	return RAW(SYS_bpf, 0xffff, NULL, 0);
}

static int try_perf_event_open(void)
{
	return RAW(SYS_perf_event_open, NULL, 0, -1, -1, 0UL);
}

static int try_userfaultfd(void)
{
	return RAW(SYS_userfaultfd, BAD_FLAGS);
}

static int try_keyctl(void)
{
	return RAW(SYS_keyctl, 0xdead, 0UL, 0UL, 0UL, 0UL);
}

static int try_add_key(void)
{
	return RAW(SYS_add_key, NULL, NULL, NULL, 0UL, 0);
}

static int try_request_key(void)
{
	return RAW(SYS_request_key, NULL, NULL, NULL, 0);
}

static int try_io_uring_setup(void)
{
	return RAW(SYS_io_uring_setup, 0, NULL);
}

static int try_io_uring_enter(void)
{
	return RAW(SYS_io_uring_enter, -1, 0, 0, 0, NULL, 0UL);
}

static int try_io_uring_register(void)
{
	return RAW(SYS_io_uring_register, -1, 0, NULL, 0);
}

static int try_open_by_handle_at(void)
{
	return RAW(SYS_open_by_handle_at, -1, NULL, 0);
}

static int try_name_to_handle_at(void)
{
	return RAW(SYS_name_to_handle_at, -1, NULL, NULL, NULL, 0);
}

/* The mount API: NULL paths, bad fds, invalid flags. */
static int try_mount(void)
{
	return RAW(SYS_mount, NULL, NULL, NULL, 0UL, NULL);
}

static int try_umount2(void)
{
	return RAW(SYS_umount2, "", BAD_FLAGS);
}

static int try_pivot_root(void)
{
	return RAW(SYS_pivot_root, NULL, NULL);
}

static int try_move_mount(void)
{
	return RAW(SYS_move_mount, -1, NULL, -1, NULL, BAD_FLAGS);
}

static int try_open_tree(void)
{
	return RAW(SYS_open_tree, -1, NULL, BAD_FLAGS);
}

static int try_fsopen(void)
{
	return RAW(SYS_fsopen, NULL, BAD_FLAGS);
}

static int try_fsconfig(void)
{
	return RAW(SYS_fsconfig, -1, 0xffff, NULL, NULL, 0);
}

static int try_fsmount(void)
{
	return RAW(SYS_fsmount, -1, BAD_FLAGS, 0);
}

static int try_fspick(void)
{
	return RAW(SYS_fspick, -1, NULL, BAD_FLAGS);
}

static int try_mount_setattr(void)
{
	return RAW(SYS_mount_setattr, -1, NULL, BAD_FLAGS, NULL, 0UL);
}

/* Namespaces. These run in a child of their own: allowed, they change
 * only that child. */
static int try_setns(void)
{
	return RAW(SYS_setns, -1, 0);
}

static int try_unshare(void)
{
	return RAW(SYS_unshare, (unsigned long)CLONE_NEWUSER);
}

static int try_unshare_newns(void)
{
	return RAW(SYS_unshare, (unsigned long)CLONE_NEWNS);
}

static int try_unshare_zero(void)
{
	return RAW(SYS_unshare, 0UL);
}

/* clone(CLONE_NEWUSER): if a child is created it exits at once. */
static int try_clone_newuser(void)
{
	long pid = syscall(SYS_clone, (unsigned long)(CLONE_NEWUSER | SIGCHLD), NULL, NULL, NULL,
			   NULL);

	if (pid == 0)
		_exit(0);
	if (pid < 0)
		return errno;
	while (waitpid((pid_t)pid, NULL, 0) < 0 && errno == EINTR)
		;
	return 0;
}

/* clone3 with a zero-sized argument: EINVAL if it gets through. */
static int try_clone3(void)
{
	return RAW(SYS_clone3, NULL, 0UL);
}

/* Terminal injection: NULL argument pointers, so an allowed call faults
 * before it could push a character. */
static int try_ioctl_tiocsti(void)
{
	return RAW(SYS_ioctl, 0, (unsigned long)TIOCSTI, NULL);
}

/* CVE-2019-10063: the kernel truncates cmd to 32 bits; a filter comparing
 * all 64 would let this through as TIOCSTI. */
static int try_ioctl_tiocsti_highbit(void)
{
	return RAW(SYS_ioctl, 0, (unsigned long)TIOCSTI | 0xffffffff00000000UL, NULL);
}

static int try_ioctl_tioclinux(void)
{
	return RAW(SYS_ioctl, 0, (unsigned long)TIOCLINUX, NULL);
}

/* Invalid magic: EINVAL when allowed, never a reboot. */
static int try_reboot(void)
{
	return RAW(SYS_reboot, 0, 0, LINUX_REBOOT_CMD_CAD_OFF, NULL);
}

static int try_swapon(void)
{
	return RAW(SYS_swapon, NULL, 0);
}

static int try_swapoff(void)
{
	return RAW(SYS_swapoff, NULL);
}

/* Clocks: invalid clock ids and out-of-range values. */
static int try_clock_settime(void)
{
	struct timespec ts = { 0, 0 };

	return RAW(SYS_clock_settime, BAD_CLOCK, &ts);
}

static int try_clock_adjtime(void)
{
	struct timex tx = { .modes = 0 };

	return RAW(SYS_clock_adjtime, BAD_CLOCK, &tx);
}

static int try_settimeofday(void)
{
	struct timeval tv = { .tv_sec = 0, .tv_usec = 2000000 }; /* invalid */

	return RAW(SYS_settimeofday, &tv, NULL);
}

/* ADJ_ADJTIME without ADJ_OFFSET_SINGLESHOT is refused before anything. */
static int try_adjtimex(void)
{
	struct timex tx = { .modes = 0x8000 /* ADJ_ADJTIME */ };

	return RAW(SYS_adjtimex, &tx);
}

/* acct(NULL) would switch accounting off: fault on the name instead. */
static int try_acct(void)
{
	return RAW(SYS_acct, (const char *)1);
}

static int try_quotactl(void)
{
	return RAW(SYS_quotactl, BAD_FLAGS, NULL, 0, NULL);
}

static int try_syslog(void)
{
	return RAW(SYS_syslog, 10 /* SYSLOG_ACTION_SIZE_BUFFER: read-only */, NULL, 0);
}

/* Personality: the one that disables ASLR, and two queries that must work. */
static int try_personality_bad(void)
{
	return RAW(SYS_personality, (unsigned long)ADDR_NO_RANDOMIZE);
}

static int try_personality_query(void)
{
	return RAW(SYS_personality, 0xffffffffUL);
}

static int try_personality_linux(void)
{
	return RAW(SYS_personality, (unsigned long)PER_LINUX);
}

/* PEEKDATA needs a tracee: a read at most, ESRCH when allowed. */
static int try_ptrace(void)
{
	long word;

	return RAW(SYS_ptrace, PTRACE_PEEKDATA, 1, NULL, &word);
}

static int try_lookup_dcookie(void)
{
#ifdef SYS_lookup_dcookie
	return RAW(SYS_lookup_dcookie, 0ULL, NULL, 0UL);
#else
	return NOT_DEFINED;
#endif
}

/* tty_nr of /proc/self/stat: 0 when we have no controlling terminal. */
static int has_ctty(void)
{
	char buf[512], *p;
	int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC), tty = -1;
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return 1;
	buf[n] = '\0';
	p = strrchr(buf, ')'); /* comm may hold anything */
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %d", &tty) != 1)
		return 1;
	return tty != 0;
}

/* vhangup hangs up the controlling terminal: lose it first, or make sure
 * there is none (a strict filter may refuse setsid). */
static int try_vhangup(void)
{
	if (setsid() < 0 && has_ctty())
		return NOT_TRIED;
	return RAW(SYS_vhangup);
}

static int try_nfsservctl(void)
{
#ifdef SYS_nfsservctl
	return RAW(SYS_nfsservctl, 0, NULL, NULL);
#else
	return NOT_DEFINED;
#endif
}

static int try_uselib(void)
{
#ifdef SYS_uselib
	return RAW(SYS_uselib, NULL);
#else
	return NOT_DEFINED;
#endif
}

static int try_ustat(void)
{
#ifdef SYS_ustat
	return RAW(SYS_ustat, 0U, NULL);
#else
	return NOT_DEFINED;
#endif
}

static int try_sysfs(void)
{
#ifdef SYS_sysfs
	return RAW(SYS_sysfs, 99, 0UL, 0UL);
#else
	return NOT_DEFINED;
#endif
}

static int try_chroot(void)
{
	return RAW(SYS_chroot, NULL);
}

/* Longer than __NEW_UTS_LEN: EINVAL, hostname untouched. */
static int try_sethostname(void)
{
	return RAW(SYS_sethostname, NULL, 1000);
}

static int try_getpid(void)
{
	return RAW(SYS_getpid);
}

static const struct {
	const char *name;
	int (*attempt)(void);
} attempts[] = {
	{ "init_module", try_init_module },
	{ "finit_module", try_finit_module },
	{ "delete_module", try_delete_module },
	{ "kexec_load", try_kexec_load },
	{ "kexec_file_load", try_kexec_file_load },
	{ "bpf", try_bpf },
	{ "perf_event_open", try_perf_event_open },
	{ "userfaultfd", try_userfaultfd },
	{ "keyctl", try_keyctl },
	{ "add_key", try_add_key },
	{ "request_key", try_request_key },
	{ "io_uring_setup", try_io_uring_setup },
	{ "io_uring_enter", try_io_uring_enter },
	{ "io_uring_register", try_io_uring_register },
	{ "open_by_handle_at", try_open_by_handle_at },
	{ "name_to_handle_at", try_name_to_handle_at },
	{ "mount", try_mount },
	{ "umount2", try_umount2 },
	{ "pivot_root", try_pivot_root },
	{ "move_mount", try_move_mount },
	{ "open_tree", try_open_tree },
	{ "fsopen", try_fsopen },
	{ "fsconfig", try_fsconfig },
	{ "fsmount", try_fsmount },
	{ "fspick", try_fspick },
	{ "mount_setattr", try_mount_setattr },
	{ "setns", try_setns },
	{ "unshare", try_unshare },
	{ "unshare_newns", try_unshare_newns },
	{ "unshare_zero", try_unshare_zero },
	{ "clone_newuser", try_clone_newuser },
	{ "clone3", try_clone3 },
	{ "ioctl_tiocsti", try_ioctl_tiocsti },
	{ "ioctl_tiocsti_highbit", try_ioctl_tiocsti_highbit },
	{ "ioctl_tioclinux", try_ioctl_tioclinux },
	{ "reboot", try_reboot },
	{ "swapon", try_swapon },
	{ "swapoff", try_swapoff },
	{ "clock_settime", try_clock_settime },
	{ "clock_adjtime", try_clock_adjtime },
	{ "settimeofday", try_settimeofday },
	{ "adjtimex", try_adjtimex },
	{ "acct", try_acct },
	{ "quotactl", try_quotactl },
	{ "syslog", try_syslog },
	{ "personality_bad", try_personality_bad },
	{ "personality_query", try_personality_query },
	{ "personality_linux", try_personality_linux },
	{ "ptrace", try_ptrace },
	{ "lookup_dcookie", try_lookup_dcookie },
	{ "vhangup", try_vhangup },
	{ "nfsservctl", try_nfsservctl },
	{ "uselib", try_uselib },
	{ "ustat", try_ustat },
	{ "sysfs", try_sysfs },
	{ "chroot", try_chroot },
	{ "sethostname", try_sethostname },
	{ "getpid", try_getpid },
};

static void print_outcome(const char *name, int err)
{
	const char *s;

	if (err == 0)
		printf("%s OK\n", name);
	else if (err == NOT_DEFINED)
		printf("%s NOTDEFINED\n", name);
	else if (err == NOT_TRIED)
		printf("%s NOTTRIED\n", name);
	else if ((s = strerrorname_np(err)))
		printf("%s %s\n", name, s);
	else
		printf("%s E%d\n", name, err);
}

/* One attempt in a child; its errno comes back over a pipe. */
static void run_one(const char *name, int (*attempt)(void))
{
	int p[2], err = 0, status = 0;
	ssize_t n;
	pid_t pid;

	fflush(stdout);
	if (pipe2(p, O_CLOEXEC) < 0 || (pid = fork()) < 0) {
		printf("%s NOTTRIED\n", name);
		return;
	}
	if (pid == 0) {
		close(p[0]);
		err = attempt();
		n = write(p[1], &err, sizeof(err));
		_exit(n == (ssize_t)sizeof(err) ? 0 : 1);
	}
	close(p[1]);
	do
		n = read(p[0], &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(p[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (n == (ssize_t)sizeof(err)) {
		print_outcome(name, err);
	} else if (WIFSIGNALED(status)) {
		const char *s = sigabbrev_np(WTERMSIG(status));

		if (s)
			printf("%s SIG%s\n", name, s);
		else
			printf("%s SIG%d\n", name, WTERMSIG(status));
	} else {
		printf("%s NORESULT\n", name);
	}
}

int main(int argc, char **argv)
{
	int rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: try-syscall NAME...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		size_t k;

		for (k = 0; k < sizeof(attempts) / sizeof(attempts[0]); k++)
			if (strcmp(argv[i], attempts[k].name) == 0)
				break;
		if (k == sizeof(attempts) / sizeof(attempts[0])) {
			printf("%s UNKNOWN\n", argv[i]);
			rc = 2;
			continue;
		}
		run_one(argv[i], attempts[k].attempt);
	}
	fflush(stdout);
	return rc;
}
