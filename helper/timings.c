/* timings.c: the setup steps timed (shared/timings-record.h) and sent to the
 * frontend. One record in static storage, filled by the outer process up
 * to the clone and by pid 1 from there on (it inherits the outer's copy);
 * pid 1 sends it on HUTCH_CONTROL_FD once the target's execve is done,
 * which it learns from a close-on-exec pipe reaching EOF.
 *
 * Best effort by design: the record says how long things took and decides
 * nothing, so no failure here fails the jail, and without a control
 * socket (a caller of hutch-exec that passes no fd 6) nothing is timed.
 * clock_gettime is the vDSO's: no syscall, async-signal-safe, allowed by
 * any filter. Phase 2 throughout. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "helper.h"
#include "hutch-abi.h"

static struct hutch_timings rec = {
	.magic = HUTCH_TIMINGS_MAGIC,
	.n_steps = HUTCH_STEP_MAX,
};
static uint64_t last_ns;
static bool enabled;
static int exec_wr = -1, exec_rd = -1;

static uint64_t now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) < 0)
		return last_ns;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void timings_start(void)
{
	struct stat st;

	enabled = fstat(HUTCH_CONTROL_FD, &st) == 0 && S_ISSOCK(st.st_mode);
	/* A pooled jail's pid 1 starts here too, its clone long done and
	 * charged to nothing of this job: its clone and id maps are 0. */
	for (int i = 0; i < HUTCH_TIMINGS_SLOTS; i++)
		rec.step_ns[i] = 0;
	rec.start_ns = last_ns = now_ns();
}

uint64_t timings_now(void)
{
	return now_ns();
}

void timings_ahead(uint64_t clone_ns, uint64_t spec_in_ns, uint64_t released_ns)
{
	uint64_t prepare_from = rec.start_ns; /* timings_start, in pid 1 */

	rec.start_ns = clone_ns;
	rec.step_ns[HUTCH_STEP_CLONE] = spec_in_ns > clone_ns ? spec_in_ns - clone_ns : 0;
	rec.step_ns[HUTCH_STEP_ID_MAPS] = released_ns > spec_in_ns ? released_ns - spec_in_ns : 0;
	rec.step_ns[HUTCH_STEP_PREPARE] =
		prepare_from > released_ns ? prepare_from - released_ns : 0;
}

bool timings_enabled(void)
{
	return enabled;
}

void timing_step(enum hutch_step s)
{
	uint64_t t = now_ns();

	/* monotonic, so never backwards; 0 if the clock failed */
	rec.step_ns[s] += t - last_ns;
	last_ns = t;
}

void timings_exec_pipe(void)
{
	int p[2];

	if (!enabled || pipe2(p, O_CLOEXEC) < 0)
		return;	/* no record then: the frontend reports no helper steps */
	exec_rd = p[0];
	exec_wr = p[1];
}

void timings_in_target(void)
{
	close(HUTCH_CONTROL_FD);	/* the target must not see it */
	if (exec_rd >= 0)
		close(exec_rd);
	/* exec_wr stays, close-on-exec: its closing is the signal */
}

void timings_send(void)
{
	char c;
	ssize_t n;

	timing_step(HUTCH_STEP_FORK);
	if (exec_wr >= 0) {
		close(exec_wr);
		/* EOF once the target's copy closed: a successful execve,
		 * or its exit after a failed one. */
		do
			n = read(exec_rd, &c, 1);
		while (n < 0 && errno == EINTR);
		close(exec_rd);
		timing_step(HUTCH_STEP_EXEC);
		/* sendmsg, as the listener's hand-over: the spec's filter
		 * is in force, and it allows what that needs */
		struct iovec iov = { .iov_base = &rec, .iov_len = sizeof(rec) };
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

		(void)sendmsg(HUTCH_CONTROL_FD, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
	}
	close(HUTCH_CONTROL_FD);	/* everything is sent; the target never saw it */
}

void timing_mount(const struct spec_mount *m, bool is_dir)
{
	switch ((enum hutch_mount_kind)m->kind) {
	case HUTCH_MOUNT_BIND:
	case HUTCH_MOUNT_HIDE:		/* masks are binds too */
	case HUTCH_MOUNT_READONLY:
	case HUTCH_MOUNT_PIN:
		timing_step(is_dir ? HUTCH_STEP_BINDS_DIR : HUTCH_STEP_BINDS_FILE);
		break;
	case HUTCH_MOUNT_TMPFS:
		timing_step(HUTCH_STEP_TMPFS);
		break;
	case HUTCH_MOUNT_PROC:
		timing_step(HUTCH_STEP_PROC);
		break;
	case HUTCH_MOUNT_DEVPTS:
		timing_step(HUTCH_STEP_DEVPTS);
		break;
	case HUTCH_MOUNT_OVERLAY:
		timing_step(HUTCH_STEP_OVERLAY);
		break;
	case HUTCH_MOUNT_SYMLINK:
	case HUTCH_MOUNT_FILE:
	case HUTCH_MOUNT_DIR:
	case HUTCH_MOUNT_KIND_MAX:
		timing_step(HUTCH_STEP_FILES);
		break;
	}
}
