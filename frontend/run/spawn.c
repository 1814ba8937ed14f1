/* spawn.c: clone and exec hutch-exec. Everything the child needs (argv,
 * envp, the fd map) is built before fork; between fork and execve the child
 * makes only async-signal-safe calls. Frontend only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <linux/sched.h>
#include <sched.h>
#include <stdint.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "fd-util.h"
#include "hutch-abi.h"
#include "status.h"
#include "run/spawn.h"

void jail_proc_close(struct jail_proc *jp)
{
	fd_close(&jp->pidfd);
	fd_close(&jp->status_rd);
	fd_close(&jp->stdin_wr);
	fd_close(&jp->stdout_rd);
	fd_close(&jp->stderr_rd);
	fd_close(&jp->exit_rd);
	fd_close(&jp->spec_wr);
}

void spawn_spec_start(int *spec_wr, const uint8_t *spec, size_t spec_len, struct jail_proc *ret)
{
	size_t off = 0;

	ret->spec_wr = -1;
	ret->spec_off = 0;
	if (fcntl(*spec_wr, F_SETFL, O_NONBLOCK) < 0) {
		fd_close(spec_wr); /* the helper reads EOF and refuses: its status says */
		return;
	}
	while (off < spec_len) {
		ssize_t n = write(*spec_wr, spec + off, spec_len - off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN) {
			ret->spec_wr = TAKE_FD(*spec_wr);
			ret->spec_off = off;
			return;
		}
		if (n < 0)
			break; /* EPIPE: a dead helper, told by its status */
		off += (size_t)n;
	}
	fd_close(spec_wr);
}

#define CHILD_FDS (HUTCH_BIND_FD_FIRST + HUTCH_BIND_FDS_MAX)

/* The child's half: fds into place, signals to defaults, exec. fds[i]
 * becomes fd i (-1: none); the helper's fixed ones, then bind sources. */
static _Noreturn void child_exec(const char *helper_path, pid_t parent, int fds[CHILD_FDS],
				 int status_wr, char *const argv[]) /* as-safe */
{
	static char *const envp[] = { NULL };
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	struct hutch_status st = { .magic = HUTCH_STATUS_MAGIC, .code = HUTCH_SETUP_FAILED,
				   .stage = STAGE_HELPER_EXEC };
	sigset_t none;
	/* -1 until moved: the failure path reads moved[HUTCH_STATUS_FD]
	 * whichever step failed. */
	int moved[CHILD_FDS];

	/* If we die, the helper dies, and with it pid 1 and the whole jail. */
	st.item = SITE_HELPER_EXEC_PDEATHSIG;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		goto fail;
	errno = ESRCH; /* we outlived the parent that forked us */
	if (getppid() != parent)
		goto fail;
	st.item = SITE_HELPER_EXEC_EXECVE;
	/* Out of the terminal's process group: a ^C reaches us alone, and we
	 * forward it once (the jail has no terminal of its own). */
	setpgid(0, 0);
	/* Handlers to defaults before unblocking: a vforked child shares our
	 * memory and must never run one of our handlers; and no SIG_IGN may
	 * reach the helper. All of them: knowing which are set costs a read
	 * of /proc/self/status, about what the 62 calls cost. */
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			sigaction(s, &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* Move every source above the targets first, so no dup2 clobbers a
	 * source another dup2 still needs. */
	for (int i = 0; i < CHILD_FDS; i++)
		moved[i] = -1;
	for (int i = 0; i < CHILD_FDS; i++) {
		moved[i] = fds[i] < 0 ? -1 : fcntl(fds[i], F_DUPFD_CLOEXEC, CHILD_FDS);
		if (fds[i] >= 0 && moved[i] < 0)
			goto fail;
	}
	for (int i = 0; i < CHILD_FDS; i++)
		if (moved[i] >= 0 && dup2(moved[i], i) < 0)
			goto fail;
	execve(helper_path, argv, envp);
fail:
	st.err = errno;
	(void)fd_write_all(moved[HUTCH_STATUS_FD] >= 0 ? moved[HUTCH_STATUS_FD] : status_wr, &st,
			   sizeof(st));
	_exit(HUTCH_EXIT_SETUP);
}

/* clone3 hands us a pidfd with the child, and can start it inside the
 * jail's cgroup, so nothing of the jail ever runs outside it. Without
 * clone3 (old kernels, or a seccomp profile that answers ENOSYS), fork and
 * pidfd_open; a cgroup then cannot be joined race-free, so it is refused. */
static pid_t clone_helper(int cgroup_fd, int *ret_pidfd)
{
	struct clone_args args = {
		.flags = CLONE_PIDFD | (cgroup_fd >= 0 ? CLONE_INTO_CGROUP : 0),
		.pidfd = (uint64_t)(uintptr_t)ret_pidfd,
		.exit_signal = SIGCHLD,
		.cgroup = cgroup_fd >= 0 ? (uint64_t)cgroup_fd : 0,
	};
	pid_t pid = (pid_t)syscall(SYS_clone3, &args, sizeof(args));

	if (pid >= 0)
		return pid;
	if (errno != ENOSYS || cgroup_fd >= 0)
		return -errno;
	pid = fork();
	if (pid <= 0)
		return pid < 0 ? -errno : 0;
	*ret_pidfd = pidfd_or_reap(pid);
	return *ret_pidfd < 0 ? *ret_pidfd : pid;
}

/* AddressSanitizer cannot follow a child running on a borrowed stack
 * (it reports the clone stack itself): sanitizer builds fork instead. */
#if defined(__SANITIZE_ADDRESS__)
#define SPAWN_VFORK 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SPAWN_VFORK 0
#endif
#endif
#ifndef SPAWN_VFORK
#define SPAWN_VFORK 1
#endif

struct child_args {
	const char *helper_path;
	pid_t parent;
	int *fds;
	int status_wr;
	char *const *argv;
};

static int child_start(void *p) /* as-safe */
{
	const struct child_args *a = p;

	child_exec(a->helper_path, a->parent, a->fds, a->status_wr, a->argv);
}

/* No cgroup to join: the child borrows our memory until its execve
 * (CLONE_VM | CLONE_VFORK, as posix_spawn does), so no page table is
 * copied and none of our pages turns copy-on-write; we wait only until
 * its execve has begun. All signals stay blocked across it. */
static pid_t vfork_helper(struct child_args *a, int *ret_pidfd)
{
	static char stack[64 << 10] __attribute__((aligned(16)));
	sigset_t all, old;
	pid_t pid;

	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid = clone(child_start, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | CLONE_PIDFD | SIGCHLD,
		    a, ret_pidfd);
	if (pid < 0)
		pid = -errno;
	sigprocmask(SIG_SETMASK, &old, NULL);
	return pid;
}

int spawn_pipes_open(struct spawn_pipes *sp, const struct spawn_stdio *io)
{
	*sp = (struct spawn_pipes){ { -1, -1 }, { -1, -1 }, { -1, -1 }, { -1, -1 }, { -1, -1 }, -1 };
	if (pipe2(sp->spec, O_CLOEXEC) < 0 || pipe2(sp->status, O_CLOEXEC) < 0 ||
	    pipe2(sp->out, O_CLOEXEC) < 0 || pipe2(sp->err, O_CLOEXEC) < 0 ||
	    (io->pipe_stdin && pipe2(sp->in, O_CLOEXEC) < 0) ||
	    (io->null_stdin && (sp->null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)) {
		int r = -errno;

		spawn_pipes_close(sp);
		return r;
	}
	/* Larger pipes for the target's output: fewer wake-ups for bulk
	 * output (the limit, fs.pipe-max-size, may refuse: then as it is). */
	fcntl(sp->out[0], F_SETPIPE_SZ, 1 << 20);
	fcntl(sp->err[0], F_SETPIPE_SZ, 256 << 10);
	return 0;
}

int spawn_pipes_stdin(const struct spawn_pipes *sp, const struct spawn_stdio *io)
{
	return io->pipe_stdin ? sp->in[0] : io->null_stdin ? sp->null_fd : 0;
}

void spawn_pipes_keep(struct spawn_pipes *sp, struct jail_proc *ret)
{
	ret->status_rd = TAKE_FD(sp->status[0]);
	ret->stdin_wr = TAKE_FD(sp->in[1]); /* -1 when not piped */
	ret->stdout_rd = TAKE_FD(sp->out[0]);
	ret->stderr_rd = TAKE_FD(sp->err[0]);
	fd_close(&sp->spec[0]);

	/* Our ends never block an event loop, whatever a watch asks of them
	 * (issue 18: a read on a stale readiness would have hung serve). The
	 * flag is on our descriptions only: the helper's ends are others. */
	int *ours[] = { &ret->status_rd, &ret->stdin_wr, &ret->stdout_rd, &ret->stderr_rd };

	for (size_t i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
		if (*ours[i] >= 0)
			fcntl(*ours[i], F_SETFL, fcntl(*ours[i], F_GETFL) | O_NONBLOCK);
}

void spawn_pipes_close(struct spawn_pipes *sp)
{
	int *all[] = { sp->spec, sp->status, sp->in, sp->out, sp->err };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		fd_close(&all[i][0]);
		fd_close(&all[i][1]);
	}
	fd_close(&sp->null_fd);
}

/* spawn_helper, or with ret_spec_wr the same without the spec: the write
 * end is handed back and the helper waits on it (spawn_helper_early). */
static int spawn(const char *helper_path, const uint8_t *spec, size_t spec_len,
		 const struct spawn_stdio *io, struct jail_proc *ret, int *ret_spec_wr)
{
	struct spawn_pipes sp;
	int fds[CHILD_FDS];
	pid_t parent = getpid(), pid;
	int r;

	if (io->n_bind_fds > HUTCH_BIND_FDS_MAX)
		return -EINVAL;
	r = spawn_pipes_open(&sp, io);
	if (r < 0)
		return r;
	for (int i = 0; i < CHILD_FDS; i++)
		fds[i] = -1;
	for (size_t i = 0; i < io->n_bind_fds; i++)
		fds[HUTCH_BIND_FD_FIRST + i] = io->bind_fds[i];
	fds[0] = spawn_pipes_stdin(&sp, io);
	fds[1] = sp.out[1];
	fds[2] = sp.err[1];
	fds[HUTCH_SPEC_FD] = sp.spec[0];
	fds[HUTCH_STATUS_FD] = sp.status[1];
	fds[HUTCH_MIRROR_FD] = -1;
	fds[HUTCH_CONTROL_FD] = io->control_sock;

	char owner[16];
	char *argv[] = { "hutch-exec", io->ahead ? "--ahead" : NULL, NULL, NULL };

	if (io->ahead && io->ahead_owner) {
		snprintf(owner, sizeof(owner), "%" PRIu32, io->ahead_owner);
		argv[2] = owner;
	}

	struct child_args args = { helper_path, parent, fds, sp.status[1], argv };

	pid = io->cgroup_fd < 0 && SPAWN_VFORK ? vfork_helper(&args, &ret->pidfd)
					       : clone_helper(io->cgroup_fd, &ret->pidfd);
	if (pid < 0) {
		spawn_pipes_close(&sp);
		return pid;
	}
	if (pid == 0)
		child_exec(helper_path, parent, fds, sp.status[1], argv);

	ret->pid = pid;
	ret->exit_rd = -1;
	ret->spec_wr = -1;
	spawn_pipes_keep(&sp, ret);
	/* One write for the usual small spec; a dead helper is EPIPE (we
	 * ignore SIGPIPE) and is then told by its status record. */
	if (ret_spec_wr)
		*ret_spec_wr = TAKE_FD(sp.spec[1]);
	else
		spawn_spec_start(&sp.spec[1], spec, spec_len, ret);
	spawn_pipes_close(&sp);
	return 0;
}

int spawn_helper(const char *helper_path, const uint8_t *spec, size_t spec_len,
		 const struct spawn_stdio *io, struct jail_proc *ret)
{
	return spawn(helper_path, spec, spec_len, io, ret, NULL);
}

int spawn_helper_early(const char *helper_path, const struct spawn_stdio *io,
		       struct jail_proc *ret, int *ret_spec_wr)
{
	return spawn(helper_path, NULL, 0, io, ret, ret_spec_wr);
}
