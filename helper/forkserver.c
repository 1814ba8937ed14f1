/* forkserver.c: `hutch-exec --forkserver`, the long-lived helper of `hutch
 * serve` (hutch-exec(8), "FORKSERVER"). It reads no spec and runs nothing
 * of a request: per message on its socket it forks one child, which takes
 * the message's descriptors as fds 0-6 (and a client's bind sources as 7
 * and up, hutch-abi.h) and then is exactly the one-shot
 * hutch-exec (helper_run_one: spec read, fresh namespaces, jail, exec).
 * The forkserver is that child's parent, so it alone can reap it: it sends
 * the frontend the child's pidfd at once (for signals) and its wait status
 * on the job's exit pipe when it is gone.
 *
 * It dies with the server: SIGKILL on its parent's death, and exit on EOF
 * of its socket; each child has SIGKILL on the forkserver's death, and
 * every jail dies with its outer process (reaper.c). So nothing outlives
 * the server. Only libc; the child makes async-signal-safe calls until it
 * is the one-shot helper, whose phase 1 may allocate (we are single
 * threaded, so the forked heap is consistent). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fd-pass.h"
#include "fd-util.h"
#include "forkserver-wire.h"
#include "helper.h"
#include "hutch-abi.h"
#include "sys.h"

/* Our own fds live at or above this, clear of every fd a child puts in
 * place (0-6 and the bind descriptors after them), and low enough for a
 * server under a small RLIMIT_NOFILE (`ulimit -n 64`): F_DUPFD above the
 * limit fails (EINVAL), and a forkserver that cannot start leaves a root
 * server that has dropped its capabilities unable to start any jail. */
#define FS_HIGH_FD (HUTCH_BIND_FD_FIRST + HUTCH_BIND_FDS_MAX)

struct job {
	pid_t pid;	/* 0: free */
	int exit_fd;
};

static struct job jobs[HUTCH_FS_MAX_JOBS];
static size_t n_jobs;
static int sock_fd, sig_fd;
static pid_t self;

/* Where each slot goes in the child; -1: not passed on. */
static const int slot_target[FS_SLOTS] = {
	[FS_SLOT_STDIN] = 0,
	[FS_SLOT_STDOUT] = 1,
	[FS_SLOT_STDERR] = 2,
	[FS_SLOT_SPEC] = HUTCH_SPEC_FD,
	[FS_SLOT_STATUS] = HUTCH_STATUS_FD,
	[FS_SLOT_CONTROL] = HUTCH_CONTROL_FD,
	[FS_SLOT_CGROUP] = -1,
	[FS_SLOT_EXIT] = -1,
};

/* A failure before the one-shot helper runs: a helper_exec record on the
 * job's status pipe, wherever it is by then, as run/spawn.c writes one. */
static _Noreturn void child_fail(int status_fd, uint32_t site, int err)
{
	fail_to(status_fd, HUTCH_SETUP_FAILED, STAGE_HELPER_EXEC, site, err);
}

static const int *bind_fds;	/* this request's bind sources, for child_start */
static uint32_t n_bind_fds;

/* The child's half: the job's fds into place, nothing else of ours, our
 * signal state undone, then the one-shot helper. */
static _Noreturn void child_start(const int slot_fd[FS_SLOTS])
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	int moved[FS_SLOTS], moved_bind[HUTCH_BIND_FDS_MAX], status_fd = slot_fd[FS_SLOT_STATUS];
	sigset_t none;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		child_fail(status_fd, SITE_HELPER_EXEC_PDEATHSIG, errno);
	if (getppid() != self)
		child_fail(status_fd, SITE_HELPER_EXEC_PDEATHSIG, ESRCH);
	sigaction(SIGPIPE, &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* Above every target first, so no dup2 clobbers a source. */
	for (int i = 0; i < FS_SLOTS; i++) {
		moved[i] = -1;
		if (slot_fd[i] >= 0 && slot_target[i] >= 0 &&
		    (moved[i] = fcntl(slot_fd[i], F_DUPFD_CLOEXEC, FS_HIGH_FD)) < 0)
			child_fail(status_fd, SITE_HELPER_EXEC_FDS, errno);
		if (i == FS_SLOT_STATUS && moved[i] >= 0)
			status_fd = moved[i];	/* the source may be closed below */
	}
	for (uint32_t i = 0; i < n_bind_fds; i++)
		if ((moved_bind[i] = fcntl(bind_fds[i], F_DUPFD_CLOEXEC, FS_HIGH_FD)) < 0)
			child_fail(status_fd, SITE_HELPER_EXEC_FDS, errno);
	for (int t = 0; t < HUTCH_BIND_FD_FIRST + (int)n_bind_fds; t++)
		close(t);
	for (int i = 0; i < FS_SLOTS; i++)
		if (moved[i] >= 0 && dup2(moved[i], slot_target[i]) < 0)
			child_fail(status_fd, SITE_HELPER_EXEC_FDS, errno);
	for (uint32_t i = 0; i < n_bind_fds; i++)
		if (dup2(moved_bind[i], HUTCH_BIND_FD_FIRST + (int)i) < 0)
			child_fail(HUTCH_STATUS_FD, SITE_HELPER_EXEC_FDS, errno);
	if (sys_close_range(HUTCH_BIND_FD_FIRST + n_bind_fds, ~0U, 0) < 0)
		child_fail(HUTCH_STATUS_FD, SITE_HELPER_EXEC_FDS, errno);
	helper_run_one();
}

/* clone3 puts the child straight into the jail's cgroup, so nothing of
 * the jail runs outside it, and gives its pidfd. Without clone3 (ENOSYS),
 * fork and pidfd_open; a cgroup then cannot be joined race-free. */
static pid_t spawn_child(const int slot_fd[FS_SLOTS], int *ret_pidfd)
{
	int cg = slot_fd[FS_SLOT_CGROUP];
	struct clone_args args = {
		.flags = CLONE_PIDFD | (cg >= 0 ? CLONE_INTO_CGROUP : 0),
		.pidfd = (uint64_t)(uintptr_t)ret_pidfd,
		.exit_signal = SIGCHLD,
		.cgroup = cg >= 0 ? (uint64_t)cg : 0,
	};
	pid_t pid = (pid_t)syscall(SYS_clone3, &args, sizeof(args));

	if (pid == 0)
		child_start(slot_fd);
	if (pid > 0)
		return pid;
	if (errno != ENOSYS || cg >= 0)
		return -errno;
	pid = fork();
	if (pid == 0)
		child_start(slot_fd);
	if (pid < 0)
		return -errno;
	*ret_pidfd = pidfd_or_reap(pid);
	return *ret_pidfd < 0 ? *ret_pidfd : pid;
}

static struct job *free_job(void)
{
	if (n_jobs >= HUTCH_FS_MAX_JOBS)
		return NULL;
	for (size_t i = 0; i < HUTCH_FS_MAX_JOBS; i++)
		if (jobs[i].pid == 0)
			return &jobs[i];
	return NULL;
}

/* One request: check it, fork its child, answer. The descriptors are
 * closed here whatever happens, except the exit pipe of a started job. */
static void handle_request(const struct hutch_fs_request *rq, ssize_t len, int *fds,
			   size_t n_fds)
{
	struct hutch_fs_reply rep = { .magic = HUTCH_FS_MAGIC };
	int slot_fd[FS_SLOTS], pidfd = -1;
	struct job *j = free_job();
	size_t k = 0;

	for (int i = 0; i < FS_SLOTS; i++)
		slot_fd[i] = -1;
	if (len != (ssize_t)sizeof(*rq) || rq->magic != HUTCH_FS_MAGIC ||
	    (rq->slots & ~((1u << FS_SLOTS) - 1)) ||
	    (rq->slots & HUTCH_FS_REQUIRED_SLOTS) != HUTCH_FS_REQUIRED_SLOTS ||
	    rq->n_bind > HUTCH_BIND_FDS_MAX ||
	    (size_t)__builtin_popcount(rq->slots) + rq->n_bind != n_fds) {
		rep.err = EBADMSG;
	} else {
		for (int i = 0; i < FS_SLOTS; i++)
			if (rq->slots & (1u << i))
				slot_fd[i] = fds[k++];
		bind_fds = fds + k;	/* the rest, in order */
		n_bind_fds = rq->n_bind;
		if (!j) {
			rep.err = EAGAIN;
		} else {
			pid_t pid = spawn_child(slot_fd, &pidfd);

			rep.err = pid < 0 ? -pid : 0;
			if (pid > 0) {
				j->pid = rep.pid = pid;
				j->exit_fd = slot_fd[FS_SLOT_EXIT];
				slot_fd[FS_SLOT_EXIT] = -1;
				n_jobs++;
			}
		}
	}
	for (size_t i = 0; i < n_fds; i++)
		if (fds[i] != (j && rep.err == 0 ? j->exit_fd : -1))
			close(fds[i]);
	/* A frontend that cannot take the answer is gone: EOF ends us soon. */
	(void)fdpass_send_msg(sock_fd, &rep, sizeof(rep), &pidfd, pidfd >= 0 ? 1 : 0);
	if (pidfd >= 0)
		close(pidfd);
}

static uint64_t tv_us(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
}

/* Every child that is gone: its wait status to its exit pipe. */
static void reap_children(void)
{
	struct signalfd_siginfo si;
	struct rusage ru;
	int status;
	pid_t pid;

	while (read(sig_fd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		;
	while ((pid = wait4(-1, &status, WNOHANG, &ru)) > 0) {
		for (size_t i = 0; i < HUTCH_FS_MAX_JOBS; i++) {
			struct hutch_fs_exit ex = { .magic = HUTCH_FS_MAGIC, .status = status };

			if (jobs[i].pid != pid)
				continue;
			ex.utime_us = tv_us(ru.ru_utime);
			ex.stime_us = tv_us(ru.ru_stime);
			ex.maxrss_kb = (uint64_t)ru.ru_maxrss;
			/* An empty pipe takes the record whole; a reader that
			 * went away is EPIPE (SIGPIPE is ignored). */
			(void)fd_write_all(jobs[i].exit_fd, &ex, sizeof(ex));
			close(jobs[i].exit_fd);
			jobs[i].pid = 0;
			n_jobs--;
			break;
		}
	}
}

/* Our fds high, our signals ready: SIGPIPE ignored, SIGCHLD by signalfd. */
static void forkserver_setup(void)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };
	sigset_t chld;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		_exit(HUTCH_EXIT_SETUP);
	sigaction(SIGPIPE, &ign, NULL);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &chld, NULL) < 0)
		_exit(HUTCH_EXIT_SETUP);
	sock_fd = fcntl(HUTCH_FS_SOCK_FD, F_DUPFD_CLOEXEC, FS_HIGH_FD);
	sig_fd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sock_fd < 0 || sig_fd < 0)
		_exit(HUTCH_EXIT_SETUP);
	close(HUTCH_FS_SOCK_FD);
	self = getpid();
}

_Noreturn void forkserver_run(void)
{
	self_check();	/* setuid, setgid or file caps: stop */
	forkserver_setup();
	for (;;) {
		struct pollfd p[2] = { { .fd = sock_fd, .events = POLLIN },
				       { .fd = sig_fd, .events = POLLIN } };
		struct hutch_fs_request rq;
		int fds[FDPASS_MAX];
		size_t n_fds = FDPASS_MAX;
		ssize_t n;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			_exit(HUTCH_EXIT_SETUP);
		}
		if (p[1].revents)
			reap_children();
		if (!p[0].revents)
			continue;
		n = fdpass_recv_msg(sock_fd, &rq, sizeof(rq), fds, &n_fds);
		if (n == 0 || (n < 0 && n != -EMSGSIZE))
			_exit(0);	/* the server is gone; our children follow us */
		handle_request(&rq, n, fds, n_fds);
	}
}
