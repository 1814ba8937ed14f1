/* job-fds.c: a job's descriptors, as the forkserver received them, put
 * where hutch-exec(8) says they are: stdio at 0-2, the spec, status and
 * control at HUTCH_SPEC_FD, HUTCH_STATUS_FD and HUTCH_CONTROL_FD, a
 * client's bind sources from HUTCH_BIND_FD_FIRST on, nothing else open
 * but keep_fd. Used by the forkserver's child before it is the one-shot
 * helper, and by a pooled jail's pid 1 (pool.c), which keeps its mirror
 * pipe. Async-signal-safe; a failure is a record on the job's status
 * pipe, wherever it is by then, and exit 71. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <unistd.h>

#include "forkserver-wire.h"
#include "helper.h"
#include "hutch-abi.h"
#include "sys.h"

/* Where each slot goes; -1: not passed on (the forkserver keeps it). */
static const int slot_target[FS_SLOTS] = {
	[FS_SLOT_STDIN] = 0,
	[FS_SLOT_STDOUT] = 1,
	[FS_SLOT_STDERR] = 2,
	[FS_SLOT_SPEC] = HUTCH_SPEC_FD,
	[FS_SLOT_STATUS] = HUTCH_STATUS_FD,
	[FS_SLOT_CONTROL] = HUTCH_CONTROL_FD,
	[FS_SLOT_CGROUP] = -1,
	[FS_SLOT_EXIT] = -1,
	[FS_SLOT_TEMPLATE] = -1,
};

static _Noreturn void fds_fail(int status_fd, int err)
{
	fail_to(status_fd, HUTCH_SETUP_FAILED, STAGE_HELPER_EXEC, SITE_HELPER_EXEC_FDS, err);
}

/* Each source above every target first, so that no dup2 clobbers
 * another source; the status pipe's copy is where a failure goes. */
static int move_high(const int slot_fd[FS_SLOTS], const int *bind_fds, uint32_t n_bind,
		     int moved[FS_SLOTS], int moved_bind[HUTCH_BIND_FDS_MAX])
{
	int status_fd = slot_fd[FS_SLOT_STATUS];

	for (int i = 0; i < FS_SLOTS; i++) {
		moved[i] = -1;
		if (slot_fd[i] >= 0 && slot_target[i] >= 0 &&
		    (moved[i] = fcntl(slot_fd[i], F_DUPFD_CLOEXEC, JOB_FDS_HIGH)) < 0)
			fds_fail(status_fd, errno);
		if (i == FS_SLOT_STATUS && moved[i] >= 0)
			status_fd = moved[i];	/* the source may be closed below */
	}
	for (uint32_t i = 0; i < n_bind; i++)
		if ((moved_bind[i] = fcntl(bind_fds[i], F_DUPFD_CLOEXEC, JOB_FDS_HIGH)) < 0)
			fds_fail(status_fd, errno);
	return status_fd;
}

void job_fds_place(const int slot_fd[FS_SLOTS], const int *bind_fds, uint32_t n_bind,
		   int keep_fd)
{
	job_fds_place_keeping(slot_fd, bind_fds, n_bind, keep_fd, 0);
}

void job_fds_place_keeping(const int slot_fd[FS_SLOTS], const int *bind_fds, uint32_t n_bind,
			   int keep_fd, unsigned n_high)
{
	int moved[FS_SLOTS], moved_bind[HUTCH_BIND_FDS_MAX], status_fd;
	int end = HUTCH_BIND_FD_FIRST + (int)n_bind;

	if (n_bind > HUTCH_BIND_FDS_MAX)
		fds_fail(slot_fd[FS_SLOT_STATUS], E2BIG);
	status_fd = move_high(slot_fd, bind_fds, n_bind, moved, moved_bind);
	for (int t = 0; t < end; t++)
		if (t != keep_fd)
			close(t);
	for (int i = 0; i < FS_SLOTS; i++)
		if (moved[i] >= 0 && dup2(moved[i], slot_target[i]) < 0)
			fds_fail(status_fd, errno);
	for (uint32_t i = 0; i < n_bind; i++)
		if (dup2(moved_bind[i], HUTCH_BIND_FD_FIRST + (int)i) < 0)
			fds_fail(HUTCH_STATUS_FD, errno);
	/* keep_fd, when there is one, is below end (HUTCH_MIRROR_FD); the
	 * kept high ones were taken before move_high looked for free
	 * numbers, so no copy of ours is among them. */
	if (sys_close_range((unsigned)end, n_high ? JOB_KEEP_FD_FIRST - 1 : ~0U, 0) < 0 ||
	    (n_high && sys_close_range(JOB_KEEP_FD_FIRST + n_high, ~0U, 0) < 0))
		fds_fail(HUTCH_STATUS_FD, errno);
}

int job_fds_split(const struct hutch_fs_request *rq, ssize_t len, const int *fds, size_t n_fds,
		  bool pooled, int slot_fd[FS_SLOTS], const int **ret_bind)
{
	uint32_t required = HUTCH_FS_REQUIRED_SLOTS, allowed = (1u << FS_SLOTS) - 1;
	size_t k = 0;

	/* A pooled jail's message: the forkserver kept the cgroup (a pooled
	 * jail is never asked to join one), the exit pipe and the template
	 * (the jail had its own since it was built). */
	if (pooled) {
		required &= ~(1u << FS_SLOT_EXIT);
		allowed &= ~((1u << FS_SLOT_CGROUP) | (1u << FS_SLOT_EXIT) |
			     (1u << FS_SLOT_TEMPLATE));
	}
	for (int i = 0; i < FS_SLOTS; i++)
		slot_fd[i] = -1;
	if (len != (ssize_t)sizeof(*rq) || rq->magic != HUTCH_FS_MAGIC || (rq->slots & ~allowed) ||
	    (rq->slots & required) != required || rq->n_bind > HUTCH_BIND_FDS_MAX ||
	    (size_t)__builtin_popcount(rq->slots) + rq->n_bind != n_fds)
		return -EBADMSG;
	for (int i = 0; i < FS_SLOTS; i++)
		if (rq->slots & (1u << i))
			slot_fd[i] = fds[k++];
	*ret_bind = fds + k;	/* the rest, in order */
	return 0;
}
