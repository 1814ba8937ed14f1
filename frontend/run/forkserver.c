/* forkserver.c: the frontend's end of `hutch-exec --forkserver` (see
 * forkserver.h and hutch-exec(8), "FORKSERVER"). Frontend only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "fd-pass.h"
#include "fd-util.h"
#include "forkserver-wire.h"
#include "hutch-abi.h"
#include "spec-compare.h"
#include "spec.h"
#include "time-util.h"
#include "run/forkserver.h"

#define REPLY_TIMEOUT_MS 5000	/* a fork; a forkserver that takes longer is broken */

/* The child: PDEATHSIG, default signals, /dev/null as 0-2, the socket as
 * fd 3, nothing else; exec. Async-signal-safe. */
static _Noreturn void child_exec(const char *helper, char *const argv[], pid_t parent, int sock,
				  int null_fd)
{
	static char *const envp[] = { NULL };
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t none;
	int s, n;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != parent)
		_exit(HUTCH_EXIT_SETUP);
	setpgid(0, 0);	/* a terminal's ^C is the server's to handle */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int i = 1; i < NSIG; i++)
		if (i != SIGKILL && i != SIGSTOP)
			sigaction(i, &dfl, NULL);
	s = fcntl(sock, F_DUPFD_CLOEXEC, 16);
	n = fcntl(null_fd, F_DUPFD_CLOEXEC, 16);
	if (s < 0 || n < 0 || dup2(n, 0) < 0 || dup2(n, 1) < 0 || dup2(n, 2) < 0 ||
	    dup2(s, HUTCH_FS_SOCK_FD) < 0)
		_exit(HUTCH_EXIT_SETUP);
	execve(helper, argv, envp);
	_exit(HUTCH_EXIT_SETUP);
}

int forkserver_start(const char *helper, unsigned pool, struct forkserver *ret)
{
	_cleanup_close_ int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	struct clone_args args = { .flags = CLONE_PIDFD, .exit_signal = SIGCHLD };
	char n[16];
	char *argv[] = { "hutch-exec", "--forkserver", "--pool", n, NULL };
	int sock[2], pidfd = -1;
	pid_t parent = getpid(), pid;

	*ret = (struct forkserver){ .sock = -1, .pid = -1, .pidfd = -1 };
	if (pool > HUTCH_FS_POOL_MAX)
		return -EINVAL;
	snprintf(n, sizeof(n), "%u", pool);
	if (null_fd < 0 || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sock) < 0)
		return -errno;
	args.pidfd = (uint64_t)(uintptr_t)&pidfd;
	pid = (pid_t)syscall(SYS_clone3, &args, sizeof(args));
	if (pid == 0)
		child_exec(helper, argv, parent, sock[1], null_fd);
	close(sock[1]);
	if (pid < 0) {
		int r = -errno;

		close(sock[0]);
		return r;	/* ENOSYS too: the one-shot path has its fallbacks */
	}
	*ret = (struct forkserver){ .sock = sock[0], .pid = pid, .pidfd = pidfd, .pool = pool };
	return 0;
}

/* Every request still awaiting its reply fails with r: its run learns
 * that no jail was started (the forkserver's end closed what it held of
 * the run's pipes); one let go of is freed. */
static void fail_queue(struct forkserver *fs, int r)
{
	while (fs->head) {
		struct fs_ticket *t = fs->head;

		fs->head = t->next;
		t->next = NULL;
		t->queued = false;
		t->done = true;
		t->err = r;
		if (!t->jp && t->heap)
			free(t);
	}
	fs->tail = NULL;
}

/* The timer first: the watch's teardown forgets both (on_teardown). */
static void detach(struct forkserver *fs)
{
	struct evtimer *t = fs->timer;
	struct evwatch *w = fs->ev;

	fs->timer = NULL;
	fs->ev = NULL;
	evtimer_del(t);
	evwatch_del(w);
}

static void stop(struct forkserver *fs, int r)
{
	if (fs->pid < 0)
		return;
	detach(fs);	/* before its socket closes: the number is reused */
	fd_close(&fs->sock);	/* EOF: it exits, its children die with it */
	if (fs->pidfd >= 0)
		(void)syscall(SYS_pidfd_send_signal, fs->pidfd, SIGKILL, NULL, 0);
	while (waitpid(fs->pid, NULL, 0) < 0 && errno == EINTR)
		;
	fd_close(&fs->pidfd);
	fs->pid = -1;
	free(fs->tmpl.buf);	/* a new forkserver has no template yet */
	fs->tmpl = (struct fs_template){ 0 };
	fail_queue(fs, r);
}

void forkserver_stop(struct forkserver *fs)
{
	stop(fs, -ENOTCONN);
}

/* A broken forkserver is stopped for good: later runs take the one-shot
 * path (the caller's choice), which is as strict, only slower. */
static int broken(struct forkserver *fs, int r)
{
	stop(fs, r);
	return r;
}

/* The oldest request's deadline on the loop's timer, if attached. */
static void arm(struct forkserver *fs)
{
	if (fs->timer)
		evtimer_set(fs->timer, fs->head ? fs->head->deadline : EVTIMER_NEVER);
}

static void enqueue(struct forkserver *fs, struct fs_ticket *t, struct jail_proc *jp)
{
	t->next = NULL;
	t->jp = jp;
	t->deadline = time_add_ms(time_now_ms(), REPLY_TIMEOUT_MS);
	t->queued = true;
	t->done = false;
	t->err = 0;
	if (fs->tail)
		fs->tail->next = t;
	else
		fs->head = t;
	fs->tail = t;
	fs->n_queued++;
	arm(fs);
}

/* The reply to the oldest request: its ticket done. A ticket let go of
 * gets its jail killed now; the forkserver reaps it, and its exit record
 * goes to a pipe no one reads. */
static void answer(struct forkserver *fs, const struct hutch_fs_reply *rep, int pidfd)
{
	struct fs_ticket *t = fs->head;

	fs->head = t->next;
	if (!fs->head)
		fs->tail = NULL;
	fs->n_queued--;
	t->next = NULL;
	t->queued = false;
	arm(fs);
	if (!t->jp) {
		if (pidfd >= 0) {
			(void)syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
			close(pidfd);
		}
		if (t->heap)
			free(t);
		return;
	}
	t->done = true;
	t->err = rep->err != 0 ? -rep->err : 0;
	if (rep->err == 0) {
		t->jp->pid = rep->pid;
		t->jp->pidfd = pidfd;
	}
}

/* One reply off the socket (it is readable): 0, or -errno when the
 * forkserver broke (then stopped, every waiting request failed). */
static int read_reply(struct forkserver *fs)
{
	struct hutch_fs_reply rep;
	int got[FDPASS_MAX];
	size_t n_got = FDPASS_MAX;
	ssize_t len = fdpass_recv_msg(fs->sock, &rep, sizeof(rep), got, &n_got);

	if (len != (ssize_t)sizeof(rep) || rep.magic != HUTCH_FS_MAGIC || !fs->head ||
	    n_got != (rep.err == 0 ? 1u : 0u)) {
		for (size_t i = 0; i < n_got; i++)
			close(got[i]);
		return broken(fs, len < 0 ? (int)len : -EPROTO);
	}
	answer(fs, &rep, rep.err == 0 ? got[0] : -1);
	return 0;
}

void forkserver_ticket_wait(struct forkserver *fs, struct fs_ticket *t)
{
	while (t->queued && fs->pid >= 0) {
		struct pollfd p = { .fd = fs->sock, .events = POLLIN };
		uint64_t now = time_now_ms(), end = fs->head->deadline;
		int r = poll(&p, 1, end > now ? (int)(end - now) : 0);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			(void)broken(fs, r < 0 ? -errno : -ETIMEDOUT);
			break;
		}
		if (read_reply(fs) < 0)
			break;
	}
}

static void on_reply(struct evwatch *w, uint32_t events, void *data)
{
	struct forkserver *fs = data;
	struct pollfd p = { .fd = fs->sock, .events = POLLIN };

	(void)w;
	(void)events;
	/* Every reply there is, and not one more: the loop must not wait. */
	while (fs->pid >= 0 && poll(&p, 1, 0) > 0)
		if (read_reply(fs) < 0)
			break;
}

static void on_deadline(struct evtimer *tm, void *data)
{
	struct forkserver *fs = data;

	(void)tm;
	if (fs->head && time_now_ms() >= fs->head->deadline)
		(void)broken(fs, -ETIMEDOUT);
	else
		arm(fs);
}

/* The loop is freed before the forkserver stops (serve.c): both its
 * watch and its timer go with it. */
static void on_teardown(int fd, void *data)
{
	struct forkserver *fs = data;

	(void)fd;
	fs->ev = NULL;
	fs->timer = NULL;
}

int forkserver_attach(struct forkserver *fs, struct evloop *l)
{
	if (fs->pid < 0)
		return -ENOTCONN;
	fs->timer = evtimer_add(l, EVTIMER_NEVER, on_deadline, fs);
	if (!fs->timer)
		return -ENOMEM;
	fs->ev = evwatch_add(l, fs->sock, EPOLLIN, on_reply, on_teardown, fs);
	if (!fs->ev) {
		evtimer_del(fs->timer);
		fs->timer = NULL;
		return -ENOMEM;
	}
	arm(fs);
	return 0;
}

struct fs_ticket *forkserver_ticket_new(void)
{
	struct fs_ticket *t = calloc(1, sizeof(*t));

	if (t)
		t->heap = true;
	return t;
}

void forkserver_ticket_drop(struct forkserver *fs, struct fs_ticket *t)
{
	(void)fs;
	if (!t)
		return;
	if (t->queued)
		t->jp = NULL;	/* answer() or fail_queue() frees it */
	else
		free(t);
}

static uint32_t le32_at(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The spec's hostname (spec.h: a str after the header's flags, ids,
 * rlimits and user caps) into the shape; false when it is not there as
 * spec_decode would take it. */
static bool shape_hostname(const uint8_t *spec, size_t spec_len, char *out, size_t size)
{
	size_t off = HUTCH_SPEC_HEADER_BYTES + 20 + 8 * (HUTCH_RLIM_COUNT + HUTCH_UCAP_COUNT);
	uint32_t n;

	if (spec_len < off + 4)
		return false;
	n = le32_at(spec + off);
	off += 4;
	if (n > HUTCH_SPEC_MAX_HOSTNAME || n >= size || spec_len < off + n + 1 ||
	    memchr(spec + off, 0, n) || spec[off + n] != 0)
		return false;
	memcpy(out, spec + off, n);
	return true;
}

/* Whether a pooled jail may take the spec, and its shape (forkserver-wire.h),
 * from the spec's header (spec.h: flags, then the four ids, from byte
 * 12) and its hostname. Not with a cgroup to clone into. A root server has no pool
 * (serve-options.c), so no spec of it needs idmapped or privileged binds
 * prepared before the clone; pid 1 of a pooled jail checks both anyway. */
static void pool_shape(const struct forkserver *fs, const uint8_t *spec, size_t spec_len,
		       const struct spawn_stdio *io, struct hutch_fs_request *rq)
{
	if (fs->pool == 0 || io->cgroup_fd >= 0 || spec_len < HUTCH_SPEC_HEADER_BYTES + 20)
		return;
	rq->shape = (struct hutch_fs_shape){
		.flags = le32_at(spec + 12) & HUTCH_FS_SHAPE_FLAGS,
		.uid_inside = le32_at(spec + 16),
		.gid_inside = le32_at(spec + 20),
		.uid_outside = le32_at(spec + 24),
		.gid_outside = le32_at(spec + 28),
	};
	rq->poolable = shape_hostname(spec, spec_len, rq->shape.hostname,
				      sizeof(rq->shape.hostname));
}

/* A poolable spec's template (forkserver-template.c) into its shape, and
 * its memfd into *ret_fd when the forkserver does not have it yet. A
 * template that cannot be made: the spec pools as one without (its
 * jails then build every mount on the request's path). */
static void pool_template(struct forkserver *fs, const struct spawn_stdio *io,
			  struct hutch_fs_request *rq, struct fs_template *ret_new, int *ret_fd)
{
	*ret_fd = -1;
	if (!rq->poolable || !io->prefix_spec)
		return;
	if (io->n_prefix != io->prefix_spec->n_mounts)
		fs->whole_streak = 0;
	else if (fs->whole_streak < FS_WHOLE_AFTER)
		fs->whole_streak++;
	/* a source where the root is staged: no template (spec-compare.h) */
	if (spec_own_sources_staged(io->prefix_spec, io->n_prefix))
		return;
	if (forkserver_template(&fs->tmpl, io->prefix_spec, io->n_prefix,
				fs->whole_streak >= FS_WHOLE_AFTER, rq->shape.prefix_id, ret_new,
				ret_fd) < 0)
		memset(rq->shape.prefix_id, 0, sizeof(rq->shape.prefix_id));
}

/* Send the slots and the bind sources (*ret_sent: they went); then,
 * unless the caller takes the reply later (fs->next_async), wait
 * (bounded) for it with the pidfd, answering older requests' replies on
 * the way. */
static int request(struct forkserver *fs, const int slot_fd[FS_SLOTS],
		   const struct spawn_stdio *io, const struct hutch_fs_request *shape,
		   struct jail_proc *ret, bool *ret_sent)
{
	struct hutch_fs_request rq = *shape;
	struct fs_ticket own = { 0 }, *t = fs->next_async ? fs->next_async : &own;
	int fds[FS_SLOTS + HUTCH_BIND_FDS_MAX];
	size_t n = 0;
	int r;

	_Static_assert(FS_SLOTS + HUTCH_BIND_FDS_MAX <= FDPASS_MAX, "one message");
	if (io->n_bind_fds > HUTCH_BIND_FDS_MAX)
		return -EINVAL;
	for (int i = 0; i < FS_SLOTS; i++)
		if (slot_fd[i] >= 0) {
			rq.slots |= 1u << i;
			fds[n++] = slot_fd[i];
		}
	for (size_t i = 0; i < io->n_bind_fds; i++)
		fds[n++] = io->bind_fds[i];
	rq.n_bind = (uint32_t)io->n_bind_fds;
	r = fdpass_send_msg(fs->sock, &rq, sizeof(rq), fds, n);
	if (r < 0)
		return broken(fs, r);
	*ret_sent = true;
	ret->pid = 0;	/* until the reply: watch.c reaps by the exit pipe */
	ret->pidfd = -1;
	enqueue(fs, t, ret);
	if (t != &own) {
		fs->next_async = NULL;	/* one spawn's */
		return 0;
	}
	forkserver_ticket_wait(fs, t);
	return t->done ? t->err : -ETIMEDOUT;
}

int forkserver_spawn(struct forkserver *fs, const uint8_t *spec, size_t spec_len,
		     const struct spawn_stdio *io, struct jail_proc *ret)
{
	struct hutch_fs_request rq = { .magic = HUTCH_FS_MAGIC };
	struct fs_template tmpl = { 0 };
	struct spawn_pipes sp;
	int exit_p[2] = { -1, -1 };
	_cleanup_close_ int tmpl_fd = -1;
	int slot_fd[FS_SLOTS];
	bool sent = false;
	int r;

	if (fs->pid < 0)
		return -ENOTCONN;
	if ((r = spawn_pipes_open(&sp, io)) < 0)
		return r;
	if (pipe2(exit_p, O_CLOEXEC | O_NONBLOCK) < 0) {
		r = -errno;
		goto out;
	}
	slot_fd[FS_SLOT_STDIN] = spawn_pipes_stdin(&sp, io);
	slot_fd[FS_SLOT_STDOUT] = sp.out[1];
	slot_fd[FS_SLOT_STDERR] = sp.err[1];
	slot_fd[FS_SLOT_SPEC] = sp.spec[0];
	slot_fd[FS_SLOT_STATUS] = sp.status[1];
	slot_fd[FS_SLOT_CONTROL] = io->control_sock;
	slot_fd[FS_SLOT_CGROUP] = io->cgroup_fd;
	slot_fd[FS_SLOT_EXIT] = exit_p[1];
	pool_shape(fs, spec, spec_len, io, &rq);
	pool_template(fs, io, &rq, &tmpl, &tmpl_fd);
	slot_fd[FS_SLOT_TEMPLATE] = tmpl_fd;
	r = request(fs, slot_fd, io, &rq, ret, &sent);
	/* Sent, the forkserver has it (it keeps a poolable request's
	 * template whatever its answer), unless it broke: then it is gone. */
	if (tmpl_fd >= 0 && sent && fs->pid >= 0)
		forkserver_template_keep(&fs->tmpl, &tmpl);
	free(tmpl.buf);
	if (r < 0) {
		ret->pid = -1;	/* no jail: the caller may spawn its own */
		goto out;
	}
	spawn_pipes_keep(&sp, ret);
	ret->exit_rd = TAKE_FD(exit_p[0]);
	/* As spawn.c: a dead helper is EPIPE here and told by its status. */
	spawn_spec_start(&sp.spec[1], spec, spec_len, ret);
out:
	spawn_pipes_close(&sp);
	fd_close(&exit_p[0]);
	fd_close(&exit_p[1]);
	return r;
}

int forkserver_reap(struct jail_proc *jp, int flags, struct rusage *ru)
{
	struct pollfd p = { .fd = jp->exit_rd, .events = POLLIN };
	struct hutch_fs_exit ex;
	long n;

	do
		n = poll(&p, 1, (flags & WNOHANG) ? 0 : -1);
	while (n < 0 && errno == EINTR);
	if (n == 0)
		return -EAGAIN;
	n = fd_read_full(jp->exit_rd, &ex, sizeof(ex));
	if (n == -EAGAIN)
		return -EAGAIN;
	fd_close(&jp->exit_rd);
	if (n != (long)sizeof(ex) || ex.magic != HUTCH_FS_MAGIC)
		return -ECHILD;	/* the forkserver died; so did the jail */
	if (ru) {
		memset(ru, 0, sizeof(*ru));
		ru->ru_utime.tv_sec = (time_t)(ex.utime_us / 1000000u);
		ru->ru_utime.tv_usec = (suseconds_t)(ex.utime_us % 1000000u);
		ru->ru_stime.tv_sec = (time_t)(ex.stime_us / 1000000u);
		ru->ru_stime.tv_usec = (suseconds_t)(ex.stime_us % 1000000u);
		ru->ru_maxrss = (long)ex.maxrss_kb;
	}
	return ex.status;
}
