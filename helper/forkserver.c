/* forkserver.c: `hutch-exec --forkserver`, the long-lived helper of `hutch
 * serve` (hutch-exec(8), "FORKSERVER"). It reads no spec and runs nothing
 * of a request: per message on its socket it forks one child, which takes
 * the message's descriptors as fds 0-6 (and a client's bind sources as 7
 * and up, hutch-abi.h) and then is exactly the one-shot
 * hutch-exec (helper_run_one: spec read, fresh namespaces, jail, exec).
 * The forkserver is that child's parent, so it alone can reap it: it sends
 * the frontend the child's pidfd at once (for signals) and its wait status
 * on the job's exit pipe when it is gone. With --pool N, a job whose
 * shape matches goes to a jail built ahead instead (forkserver-pool.c,
 * pool.c), which the forkserver reaps the same way.
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
#include "forkserver-pool.h"
#include "forkserver-wire.h"
#include "helper.h"
#include "hutch-abi.h"
#include "sys.h"

#define FS_HIGH_FD JOB_FDS_HIGH	/* our own fds: clear of every job's (helper.h) */

struct job {
	pid_t pid;	/* 0: free */
	int exit_fd;
};

static struct job jobs[HUTCH_FS_MAX_JOBS];
static size_t n_jobs;
static int sock_fd, sig_fd;
static pid_t self;

static const int *bind_fds;	/* this request's bind sources, for child_start */
static uint32_t n_bind_fds;

/* The child's half: the job's fds into place, nothing else of ours, our
 * signal state undone, then the one-shot helper. */
static _Noreturn void child_start(const int slot_fd[FS_SLOTS])
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t none;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		fail_to(slot_fd[FS_SLOT_STATUS], HUTCH_SETUP_FAILED, STAGE_HELPER_EXEC,
			SITE_HELPER_EXEC_PDEATHSIG, errno);
	if (getppid() != self)
		fail_to(slot_fd[FS_SLOT_STATUS], HUTCH_SETUP_FAILED, STAGE_HELPER_EXEC,
			SITE_HELPER_EXEC_PDEATHSIG, ESRCH);
	sigaction(SIGPIPE, &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	job_fds_place(slot_fd, bind_fds, n_bind_fds, -1);
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

/* A pooled jail of the request's shape, else a one-shot helper: its pid
 * and pidfd, or -errno. */
static pid_t start_job(const struct hutch_fs_request *rq, const int slot_fd[FS_SLOTS],
		       int *ret_pidfd, uint32_t *ret_pooled)
{
	pid_t pid = fs_pool_take(rq, slot_fd, bind_fds, ret_pidfd);

	*ret_pooled = pid > 0;
	return pid > 0 ? pid : spawn_child(slot_fd, ret_pidfd);
}

/* One request: check it, fork its child (or hand it to a pooled jail),
 * answer. The descriptors are closed here whatever happens, except the
 * exit pipe of a started job. */
static void handle_request(const struct hutch_fs_request *rq, ssize_t len, int *fds,
			   size_t n_fds)
{
	struct hutch_fs_reply rep = { .magic = HUTCH_FS_MAGIC };
	int slot_fd[FS_SLOTS], pidfd = -1;
	struct job *j = free_job();
	int split = job_fds_split(rq, len, fds, n_fds, false, slot_fd, &bind_fds);

	if (split == 0)	/* the frontend counts it sent, whatever the answer */
		fs_pool_keep_template(rq, slot_fd[FS_SLOT_TEMPLATE]);
	if (split < 0) {
		rep.err = EBADMSG;
	} else if (!j) {
		rep.err = EAGAIN;
	} else {
		pid_t pid;

		n_bind_fds = rq->n_bind;
		pid = start_job(rq, slot_fd, &pidfd, &rep.pooled);
		rep.err = pid < 0 ? -pid : 0;
		if (pid > 0) {
			j->pid = rep.pid = pid;
			j->exit_fd = slot_fd[FS_SLOT_EXIT];
			n_jobs++;
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
		(void)fs_pool_reaped(pid);	/* one that died unused: dropped */
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

/* Wait for a request or a reaped child; when neither comes and the pool
 * wants a jail, build one (fs_pool_timeout 0): the pool fills only on
 * turns on which nothing waits, so always after the request that took a
 * pooled jail has had its answer (handle_request), never before it. */
static void wait_events(struct pollfd p[2])
{
	int timeout = fs_pool_timeout(n_jobs), r;

	for (;;) {
		r = poll(p, 2, timeout);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			_exit(HUTCH_EXIT_SETUP);
		if (r > 0 || timeout != 0)
			return;
		fs_pool_fill_one();
		timeout = fs_pool_timeout(n_jobs);
	}
}

_Noreturn void forkserver_run(int argc, char **argv)
{
	self_check();	/* setuid, setgid or file caps: stop */
	if (fs_pool_init(argc, argv) < 0)
		_exit(HUTCH_EXIT_SETUP);
	forkserver_setup();
	for (;;) {
		struct pollfd p[2] = { { .fd = sock_fd, .events = POLLIN },
				       { .fd = sig_fd, .events = POLLIN } };
		struct hutch_fs_request rq;
		int fds[FDPASS_MAX];
		size_t n_fds = FDPASS_MAX;
		ssize_t n;

		wait_events(p);
		if (p[1].revents)
			reap_children();
		if (!p[0].revents)
			continue;
		n = fdpass_recv_msg(sock_fd, &rq, sizeof(rq), fds, &n_fds);
		if (n == 0 || (n < 0 && n != -EMSGSIZE)) {
			fs_pool_drop_all();
			_exit(0);	/* the server is gone; our children follow us */
		}
		handle_request(&rq, n, fds, n_fds);
	}
}
