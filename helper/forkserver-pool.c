/* forkserver-pool.c: the forkserver's pool of jails built before they
 * are asked for (`hutch-exec --forkserver --pool N`, hutch-exec(8),
 * FORKSERVER). The frontend says, per request, whether the spec may take
 * a pooled jail and what its shape is (forkserver-wire.h); the shape of
 * the last such request is what the pool is filled with, one jail per
 * idle turn of the loop, up to N, while fewer jobs run than we have
 * processors (fs_pool_timeout). A request of that shape takes one: its
 * descriptors go straight to the jail's pid 1 on pid 1's own socket, its
 * status pipe also to the outer process on the outer's, and from then on
 * it is a job like any other (reaped, its status on its exit pipe). A
 * request of another shape, or when none waits, forks a one-shot helper
 * as before. Jails of a shape no longer asked for go at once; all of
 * them go after HUTCH_FS_POOL_IDLE_MS without a request, and with us
 * (their parent-death signal); one filled longer ago than that is
 * dropped instead of taken (its binds made ahead would be that old).
 * A shape with a template (forkserver-wire.h, prefix_id) is filled only
 * while we hold that template's memfd, the last one the frontend sent,
 * which each fill inherits. A root forkserver pools nothing: each of
 * its jails runs as a host id leased for that run (hutch(1), "Host
 * ids"), which no jail built beforehand can know. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "fd-pass.h"
#include "forkserver-pool.h"
#include "helper.h"
#include "hutch-abi.h"

#define POOL_QUIET_MS 50

struct pooled {
	pid_t pid;	/* 0: free */
	int pidfd, sock, sock1;	/* sock: the outer process's; sock1: pid 1's */
	struct hutch_fs_shape shape;
	uint64_t born_ms;	/* when it was forked: its binds are as of then */
};

static struct pooled pool[HUTCH_FS_POOL_MAX];
static size_t pool_max, n_pool;
static struct hutch_fs_shape want;	/* the last poolable request's */
static bool have_want;
/* The last template the frontend sent (forkserver-wire.h, prefix_id),
 * kept across the pool's teardown: the frontend sends it only once. */
static int tmpl_fd = -1;
static uint8_t tmpl_id[32];
/* A fill that failed, or a pooled jail that died unused (the user's
 * namespace or process limit, say): no more fills until the next
 * request, or the forkserver would spin on them. */
static bool stalled;
static uint64_t last_ms;		/* when it came */
static size_t cores;			/* the processors we may run on */
/* Fills made since the last request or reaped child: jails still being
 * built, as far as we can tell (a pooled jail says nothing when it is
 * ready), each of them on a processor as a job is. */
static size_t building;

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static bool same_shape(const struct hutch_fs_shape *a, const struct hutch_fs_shape *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

static bool has_template(const struct hutch_fs_shape *shape)
{
	static const uint8_t none[32];

	return memcmp(shape->prefix_id, none, sizeof(none)) != 0;
}

/* A poolable request's template, when it brings one: kept (above our
 * job's descriptor numbers) in place of the last. One that is not a
 * memfd sealed against change is not kept: a jail might read other
 * bytes than the ones its id was computed from (harmless, pid 1
 * compares field by field, but then no job would fit). */
void fs_pool_keep_template(const struct hutch_fs_request *rq, int fd)
{
	const int seals = F_SEAL_SEAL | F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK;
	int kept;

	if (!rq->poolable || fd < 0 || !has_template(&rq->shape))
		return;
	if ((fcntl(fd, F_GET_SEALS) & seals) != seals)
		return;
	kept = fcntl(fd, F_DUPFD_CLOEXEC, JOB_FDS_HIGH);
	if (kept < 0)
		return;
	if (tmpl_fd >= 0)
		close(tmpl_fd);
	tmpl_fd = kept;
	memcpy(tmpl_id, rq->shape.prefix_id, sizeof(tmpl_id));
}

/* A shape we can build: without a template, or with the one we keep. */
static bool can_build(const struct hutch_fs_shape *shape)
{
	return !has_template(shape) ||
	       (tmpl_fd >= 0 && memcmp(shape->prefix_id, tmpl_id, sizeof(tmpl_id)) == 0);
}

/* The processors this process may run on (its affinity, which a
 * daemon's unit or taskset may narrow), read once: a fill beside fewer
 * jobs than that runs on a processor no job wants. */
static size_t online_cores(void)
{
	cpu_set_t set;
	long n;

	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
		return (size_t)CPU_COUNT(&set);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (size_t)n : 1;
}

int fs_pool_init(int argc, char **argv)
{
	unsigned long n = 0;
	char *end;

	if (argc == 0)
		return 0;
	if (argc != 2 || strcmp(argv[0], "--pool") != 0)
		return -EINVAL;
	errno = 0;
	n = strtoul(argv[1], &end, 10);
	if (errno || end == argv[1] || *end || n > HUTCH_FS_POOL_MAX)
		return -EINVAL;
	pool_max = geteuid() == 0 ? 0 : (size_t)n;
	cores = online_cores();
	return 0;
}

/* The jail goes: its socket closed (EOF ends it), SIGKILL for good
 * measure; reap_children reaps it like any child. */
static void drop(struct pooled *p)
{
	(void)syscall(SYS_pidfd_send_signal, p->pidfd, SIGKILL, NULL, 0);
	close(p->pidfd);
	close(p->sock);
	close(p->sock1);
	p->pid = 0;
	n_pool--;
}

void fs_pool_drop_all(void)
{
	for (size_t i = 0; i < HUTCH_FS_POOL_MAX; i++)
		if (pool[i].pid)
			drop(&pool[i]);
	have_want = false;
}

bool fs_pool_reaped(pid_t pid)
{
	building = 0;
	for (size_t i = 0; i < HUTCH_FS_POOL_MAX; i++)
		if (pool[i].pid == pid) {
			drop(&pool[i]);	/* died unused: the next request refills */
			stalled = true;
			return true;
		}
	return false;
}

int fs_pool_timeout(size_t jobs)
{
	uint64_t now = now_ms(), end = last_ms + HUTCH_FS_POOL_IDLE_MS;

	if (!have_want)
		return -1;
	if (now >= end) {
		fs_pool_drop_all();
		return -1;
	}
	/* Fill while no job runs, or while fewer jobs and fills are being
	 * built or run than we have processors: so right after a job took
	 * a jail (its answer already sent) the fill runs on a free
	 * processor beside it and is ready for the next request, even at
	 * one in flight, back to back. With every processor busy, a fill
	 * would take CPU from a jail being built and save none; then only
	 * once requests have been quiet for a while (a session's worker
	 * runs for long). Measured and not taken (bench/serve.sh, pool 4,
	 * as nobody, 2026-12-05): a fill held back 1, 2 or 3 ms past the
	 * take while the pool still had a jail made the job's own steps
	 * faster (pivot_root_us 279 -> 153: the fill's clone and mounts no
	 * longer beside them) but not a run at one in flight (paired
	 * medians 0.98x to 1.03x, identical builds 1.00x); held until no
	 * job ran, the next job's spawn_us went 303 -> 900. At one in
	 * flight the fill's kernel work lands on the run's path wherever
	 * it goes. */
	if (n_pool < pool_max && !stalled) {
		if (jobs == 0 || jobs + building < cores || now >= last_ms + POOL_QUIET_MS)
			return 0;	/* fill on the next idle turn */
		return (int)(last_ms + POOL_QUIET_MS - now);
	}
	return (int)(end - now);
}

/* The child's half: our signal state undone, then pool.c. */
static _Noreturn void pool_child(pid_t parent, int sock, int sock1,
				  const struct hutch_fs_shape *shape, int template_fd)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	sigset_t none;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != parent)
		_exit(HUTCH_EXIT_SETUP);
	sigaction(SIGPIPE, &dfl, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	pool_child_run(sock, sock1, shape, template_fd);
}

void fs_pool_fill_one(void)
{
	struct pooled *p = NULL;
	struct clone_args args = { .flags = CLONE_PIDFD, .exit_signal = SIGCHLD };
	int sock[2], sock1[2], pidfd = -1;
	pid_t pid, parent = getpid();

	for (size_t i = 0; i < HUTCH_FS_POOL_MAX && !p; i++)
		if (!pool[i].pid)
			p = &pool[i];
	if (!p || !have_want || n_pool >= pool_max)
		return;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sock) < 0) {
		stalled = true;
		return;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sock1) < 0) {
		close(sock[0]);
		close(sock[1]);
		stalled = true;
		return;
	}
	args.pidfd = (uint64_t)(uintptr_t)&pidfd;
	pid = (pid_t)syscall(SYS_clone3, &args, sizeof(args));
	if (pid == 0)
		pool_child(parent, sock[1], sock1[1], &want,
			   has_template(&want) ? tmpl_fd : -1);
	close(sock[1]);
	close(sock1[1]);
	if (pid < 0) {
		close(sock[0]);
		close(sock1[0]);
		if (errno == ENOSYS)
			pool_max = 0;	/* no pidfd to hand out: no pool */
		stalled = true;
		return;
	}
	*p = (struct pooled){ .pid = pid, .pidfd = pidfd, .sock = sock[0], .sock1 = sock1[0],
			      .shape = want, .born_ms = now_ms() };
	n_pool++;
	building++;
}

/* Jails of a shape no longer asked for are of no use. */
static void want_shape(const struct hutch_fs_shape *shape)
{
	last_ms = now_ms();
	stalled = false;
	if (have_want && same_shape(&want, shape))
		return;
	for (size_t i = 0; i < HUTCH_FS_POOL_MAX; i++)
		if (pool[i].pid && !same_shape(&pool[i].shape, shape))
			drop(&pool[i]);
	want = *shape;
	have_want = true;
}

/* pid 1's part of the job to pid 1, then the status pipe to the outer
 * process, which reaps pid 1 and writes its record if it dies without
 * one. Each socket carries one message, once: no jail sees another run's
 * job. false when pid 1's socket refused it (EPIPE: only pid 1 holds its
 * end, so pid 1 is gone and has read nothing): the jail goes, the job to
 * the next one or a new child. Once pid 1 has it, the job is this jail's
 * whatever happens next, never handed on a second time (a pid 1 that may
 * have read the spec must be the only one that did): with the outer
 * process gone, pid 1 dies with it and the outer's wait status is the
 * job's, a signal or 71, never 0. */
static bool hand_over(struct pooled *p, const struct hutch_fs_request *fwd, const int *fds,
		      size_t n, int status_fd)
{
	struct pool_outer_msg m = { .magic = HUTCH_FS_MAGIC };

	if (fdpass_send_msg(p->sock1, fwd, sizeof(*fwd), fds, n) < 0)
		return false;
	/* The outer process gone before we reaped it (it failed before any
	 * job, or was killed): pid 1, which may have the job, dies with it,
	 * and no one is left to write the job's record. Without one, the
	 * outer's exit status would pass for the command's. */
	if (fdpass_send_msg(p->sock, &m, sizeof(m), &status_fd, 1) < 0)
		record_to(status_fd, HUTCH_HELPER_CRASHED, STAGE_HELPER_EXEC,
			  SITE_HELPER_EXEC_POOL_PASS, EPIPE);
	return true;
}

pid_t fs_pool_take(const struct hutch_fs_request *rq, const int slot_fd[FS_SLOTS],
		   const int *bind_fds, int *ret_pidfd)
{
	struct hutch_fs_request fwd = *rq;
	int fds[FDPASS_MAX];
	size_t n = 0;

	building = 0;
	if (pool_max == 0 || !rq->poolable || slot_fd[FS_SLOT_CGROUP] >= 0 ||
	    !can_build(&rq->shape))
		return 0;
	want_shape(&rq->shape);
	/* the template is ours to keep (fs_pool_keep_template): pid 1 had
	 * its own since it was built, and refuses a job that brings one */
	fwd.slots &= ~((1u << FS_SLOT_CGROUP) | (1u << FS_SLOT_EXIT) | (1u << FS_SLOT_TEMPLATE));
	for (int i = 0; i < FS_SLOTS; i++)
		if (fwd.slots & (1u << i))
			fds[n++] = slot_fd[i];
	for (uint32_t i = 0; i < rq->n_bind; i++)
		fds[n++] = bind_fds[i];
	for (size_t i = 0; i < HUTCH_FS_POOL_MAX; i++) {
		struct pooled *p = &pool[i];
		pid_t pid = p->pid;

		if (!pid || !same_shape(&p->shape, &rq->shape))
			continue;
		/* Its binds are clones of the host's trees as they were when
		 * it was built: past the idle time, too old to hand out. */
		if (now_ms() - p->born_ms > HUTCH_FS_POOL_IDLE_MS) {
			drop(p);
			continue;
		}
		if (!hand_over(p, &fwd, fds, n, slot_fd[FS_SLOT_STATUS])) {
			drop(p);
			continue;
		}
		*ret_pidfd = p->pidfd;	/* the caller's now */
		close(p->sock);
		close(p->sock1);
		p->pid = 0;
		n_pool--;
		return pid;
	}
	return 0;
}
