/* pool.c: a pooled jail, `hutch serve --pool` (hutch-exec(8),
 * FORKSERVER). The forkserver forks one of these before any request
 * exists and gives it one end of each of two sockets, the outer
 * process's and pid 1's. It does what a jail's clone depends on, the
 * shape (forkserver-wire.h): the mirror pipe, the clone into fresh
 * namespaces, the id maps; then, in pid 1, the steps of the jail that
 * the shape alone decides (pool_ahead): the parent-death signal armed,
 * the jail user's fs ids, the root's propagation private, the hostname,
 * lo up when the shape has it; and, when the forkserver gave it the
 * shape's template (forkserver-wire.h), the policy's mounts into the
 * staged root (rootfs.c build_prefix), or, for a whole template (a
 * request with no mounts of its own), the whole root pivoted into and
 * the template's Landlock rules (pool_whole). Then both processes wait
 * and do nothing else, each on its own socket, pid 1 with the forwarded
 * signals held.
 * A job comes as one message with its descriptors straight to pid 1 (no
 * process in between to wake), which reads the spec, refuses one of
 * another shape, and goes on as the one-shot helper does from the mounts
 * on (main.c:helper_run_pooled); and as the job's status pipe to the
 * outer process, which keeps it (forkserver-pool.c:hand_over). One
 * pooled jail takes one job and is gone with it: nothing is reused.
 *
 * Until the job, pid 1's status descriptor is a pipe to the outer
 * process, which passes a record on it to a job handed over while pid 1
 * was still building (reaper.c outer_wait); the forkserver drops the
 * jail. EOF on its socket
 * (the pool torn down, the forkserver gone) ends either process, pid 1
 * also with its parent. Only async-signal-safe calls, no allocation
 * (but pid 1 decoding its template, its phase 1, before any job). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fd-pass.h"
#include "fd-util.h"
#include "forkserver-wire.h"
#include "helper.h"
#include "hutch-abi.h"
#include "spec-compare.h"
#include "sys.h"

#define POOL_SOCK_FD JOB_FDS_HIGH		/* the outer process's socket */
#define POOL_PID1_FD (JOB_FDS_HIGH + 1)	/* pid 1's */
#define POOL_TEMPLATE_FD (JOB_FDS_HIGH + 2)	/* pid 1's until it read it */

/* What jail_init does first, for the shape (its ahead argument): a
 * failure is a record to the outer process (no job's status pipe yet)
 * and exit 71, a jail the forkserver drops. A job whose spec has
 * another shape is refused after this, by pool_check_spec: lo is never
 * up for a spec that did not ask for it. */
static void pool_ahead(const struct hutch_fs_shape *shape)
{
	parent_death_guard();	/* the outer process may already be gone */
	root_private(shape->uid_inside, shape->gid_inside);
	if (!memchr(shape->hostname, 0, sizeof(shape->hostname)))
		_exit(HUTCH_EXIT_SETUP);	/* the frontend's shape_hostname: cannot be */
	set_hostname(shape->flags, shape->hostname);
	if (loopback_wanted(shape->flags))
		bring_up_loopback();
}

/* Whether sp was cloned as shape says: its namespaces and lo, ids and
 * hostname (forkserver-wire.h). The template and each job are held to it. */
static bool spec_has_shape(const struct spec *sp, const struct hutch_fs_shape *shape)
{
	return (sp->flags & HUTCH_FS_SHAPE_FLAGS) == shape->flags &&
	       sp->uid_inside == shape->uid_inside && sp->gid_inside == shape->gid_inside &&
	       sp->uid_outside == shape->uid_outside && sp->gid_outside == shape->gid_outside &&
	       strcmp(sp->hostname, shape->hostname) == 0;
}

/* n bytes at off of the template, all of them, or false. */
static bool pread_all(int fd, void *buf, size_t n, off_t off)
{
	for (size_t got = 0; got < n;) {
		ssize_t r = pread(fd, (char *)buf + got, n - got, off + (off_t)got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		got += (size_t)r;
	}
	return true;
}

/* The template (forkserver-wire.h), read as spec_read reads a spec:
 * bounded by the length its header gives, nothing after it, decoded
 * strictly. pread: every jail of the pool shares the memfd's offset.
 * Phase 1 for pid 1 (it allocates), before any job. Not of our shape,
 * or a mount in it no jail may build ahead: we go unused. */
static const struct spec *pool_template(const struct hutch_fs_shape *shape)
{
	static struct spec tpl;
	uint8_t hdr[HUTCH_SPEC_HEADER_BYTES], extra, *buf;
	uint32_t total;

	if (!pread_all(POOL_TEMPLATE_FD, hdr, sizeof(hdr), 0) ||
	    spec_peek_length(hdr, sizeof(hdr), &total) < 0 || !(buf = malloc(total)) ||
	    !pread_all(POOL_TEMPLATE_FD, buf, total, 0) ||
	    pread(POOL_TEMPLATE_FD, &extra, 1, (off_t)total) != 0 ||
	    spec_decode(buf, total, &tpl) < 0)
		_exit(HUTCH_EXIT_SETUP);
	close(POOL_TEMPLATE_FD);
	if (!spec_has_shape(&tpl, shape))
		_exit(HUTCH_EXIT_SETUP);
	for (uint32_t i = 0; i < tpl.n_mounts; i++)
		if (!spec_mount_prebuildable(&tpl.mounts[i]))
			_exit(HUTCH_EXIT_SETUP);
	return &tpl;	/* buf stays: tpl points into it, and the mounts into tpl */
}

/* A whole template (HUTCH_SPEC_TEMPLATE_WHOLE: the frontend's job adds
 * no mount of its own): the root finished and pivoted (rootfs.c
 * build_whole) and the Landlock ruleset made with the template's rules,
 * at WHOLE_RULESET_FD (-1: no Landlock). A job that is the template in
 * every mount and flag (pool_check_prefix) only enforces it; its own
 * parts (limits, counts, privileges, filter, argv) are all made at the
 * job. The rules are by path, so after pivot_root, as jail_init adds
 * them. */
static int pool_whole(const struct spec *tpl)
{
	int fd;

	privileges_prepare();	/* cap_last_cap while the host's /proc is here */
	/* first: a kernel without the Landlock a template requires refuses
	 * it before any mount is made. Its number is a low one, which no
	 * step of build_whole dup3()s onto. */
	fd = landlock_prepare(tpl);
	build_whole(tpl);
	if (fd < 0)
		return -1;
	if (dup3(fd, WHOLE_RULESET_FD, O_CLOEXEC) < 0)
		_exit(HUTCH_EXIT_SETUP);
	close(fd);
	landlock_add_rules(WHOLE_RULESET_FD, tpl);
	return WHOLE_RULESET_FD;
}

/* pid 1: the shape's steps, the template's mounts if we have one (and
 * the rest of the root and the rules, if it is whole), wait for the
 * job, its descriptors into place, then the jail. */
static _Noreturn void pool_pid1(int sock, const struct hutch_fs_shape *shape, bool has_template)
{
	struct pool_built built = { .shape = shape, .ruleset_fd = -1 };
	struct hutch_fs_request rq;
	int fds[FDPASS_MAX], slot_fd[FS_SLOTS];
	const int *bind;
	size_t n_fds = FDPASS_MAX;
	unsigned n_keep = 0;
	ssize_t n;

	pool_ahead(shape);
	/* rootfs.c, landlock.c: a failure is a record to the outer process
	 * (pool_child_run) and exit 71 */
	if (has_template) {
		built.tpl = pool_template(shape);
		built.whole = built.tpl->flags & HUTCH_SPEC_TEMPLATE_WHOLE;
		if (built.whole)
			built.ruleset_fd = pool_whole(built.tpl);
		else
			build_prefix(built.tpl);
		n_keep = built.whole ? WHOLE_KEEP_FDS : PREFIX_KEEP_FDS;
	}
	do
		n = fdpass_recv_msg(sock, &rq, sizeof(rq), fds, &n_fds);
	while (n == -EINTR);
	if (n <= 0)
		_exit(0);	/* torn down before any job: nothing to say */
	if (job_fds_split(&rq, n, fds, n_fds, true, slot_fd, &bind) < 0)
		_exit(HUTCH_EXIT_SETUP);	/* the outer process checked it: cannot be */
	/* the prefix's or whole root's descriptors stay (rootfs.c) */
	job_fds_place_keeping(slot_fd, bind, rq.n_bind, HUTCH_MIRROR_FD, n_keep);
	helper_run_pooled(&built);
}

/* The outer process: the job's status pipe, kept (reaper.c writes pid
 * 1's record if it dies without one); EOF before it ends us. pid 1's
 * death before it ends nothing here: the forkserver may have handed pid 1
 * its job a moment before, and then our message is on its way and the
 * job must get pid 1's record, not our exit status; a job that finds pid
 * 1 dead is never handed to us (forkserver-pool.c:hand_over). So a jail
 * whose pid 1 died waits, a zombie and us, until it is taken or torn
 * down. */
/* The job's status pipe from the forkserver's message on our socket:
 * its descriptor; -1 at EOF (the jail dropped: *ret_eof) or for anything
 * else. */
static int recv_job_status(bool *ret_eof)
{
	struct pool_outer_msg m;
	int fd = -1;
	size_t n_fds = 1;
	ssize_t n;

	do
		n = fdpass_recv_msg(POOL_SOCK_FD, &m, sizeof(m), &fd, &n_fds);
	while (n == -EINTR);
	*ret_eof = n == 0;
	if (n != (ssize_t)sizeof(m) || m.magic != HUTCH_FS_MAGIC || n_fds != 1 || fd < 0)
		return -1;
	return fd;
}

static void pool_handoff(pid_t child)
{
	bool eof;
	int fd = recv_job_status(&eof);

	if (fd < 0 || dup2(fd, HUTCH_STATUS_FD) < 0) {
		kill_child(child);
		_exit(eof ? 0 : HUTCH_EXIT_SETUP);
	}
	if (fd != HUTCH_STATUS_FD)
		close(fd);
	close(POOL_SOCK_FD);
}

/* The outer process failed before its job (fail.c sends its record
 * here; its status descriptor is still /dev/null). The forkserver may
 * have handed a job meanwhile to a pid 1 that took it and is now dying
 * with us, and that job must get the record, not our bare 71 (which
 * would pass for its command's). So, as a jail whose pid 1 died: every
 * descriptor but our socket closed (an unreleased pid 1 sees EOF on its
 * sync pipe and ends; its socket then refuses any job), and a job that
 * still comes gets the record; EOF (the jail dropped) ends us. */
static void outer_failed(const struct hutch_status *st)
{
	bool eof;
	int fd;

	(void)sys_close_range(0, POOL_SOCK_FD - 1, 0);
	(void)sys_close_range(POOL_SOCK_FD + 1, ~0U, 0);
	fd = recv_job_status(&eof);
	if (fd >= 0)
		(void)fd_write_all(fd, st, sizeof(*st));
	_exit(HUTCH_EXIT_SETUP);
}

/* Our descriptors: 0-2 are the forkserver's /dev/null; so are the
 * spec, status and control numbers until a job comes (pid 1's status:
 * until pool_child_run puts its pipe there), so that nothing we open
 * lands there; the two sockets at POOL_SOCK_FD and POOL_PID1_FD,
 * the template (if any) at POOL_TEMPLATE_FD; nothing else. Each first
 * above all three numbers, so that no dup3 closes another's source. */
static void pool_fds(int sock, int sock1, int template_fd)
{
	int a = fcntl(sock, F_DUPFD_CLOEXEC, POOL_TEMPLATE_FD + 1);
	int b = fcntl(sock1, F_DUPFD_CLOEXEC, POOL_TEMPLATE_FD + 1);
	int c = template_fd < 0 ? -1 : fcntl(template_fd, F_DUPFD_CLOEXEC, POOL_TEMPLATE_FD + 1);

	if (a < 0 || b < 0 || (template_fd >= 0 && c < 0) ||
	    dup3(a, POOL_SOCK_FD, O_CLOEXEC) < 0 || dup3(b, POOL_PID1_FD, O_CLOEXEC) < 0 ||
	    (c >= 0 && dup3(c, POOL_TEMPLATE_FD, O_CLOEXEC) < 0) ||
	    dup2(0, HUTCH_SPEC_FD) < 0 || dup2(0, HUTCH_STATUS_FD) < 0 ||
	    dup2(0, HUTCH_MIRROR_FD) < 0 || dup2(0, HUTCH_CONTROL_FD) < 0 ||
	    sys_close_range(HUTCH_CONTROL_FD + 1, POOL_SOCK_FD - 1, 0) < 0 ||
	    sys_close_range(c >= 0 ? POOL_TEMPLATE_FD + 1 : POOL_PID1_FD + 1, ~0U, 0) < 0)
		_exit(HUTCH_EXIT_SETUP);
}

_Noreturn void pool_child_run(int sock, int sock1, const struct hutch_fs_shape *shape,
			      int template_fd)
{
	struct spec sp = {
		.flags = shape->flags,
		.uid_inside = shape->uid_inside,
		.gid_inside = shape->gid_inside,
		.uid_outside = shape->uid_outside,
		.gid_outside = shape->gid_outside,
	};
	int mirror_rd, early[2];
	pid_t child;

	pool_fds(sock, sock1, template_fd);
	signals_hold();			/* pid 1 inherits them held */
	fail_redirect(outer_failed);	/* until the job's status pipe is ours */
	make_mirror_pipe(&mirror_rd);
	/* pid 1's status descriptor until its job: a pipe to us, so that a
	 * record of a failure while it builds reaches a job handed to it
	 * meanwhile (outer_wait passes it on) */
	if (pipe2(early, O_CLOEXEC) < 0)
		_exit(HUTCH_EXIT_SETUP);
	child = clone_into_namespaces(&sp);
	if (child == 0) {
		close(mirror_rd);
		close(POOL_SOCK_FD);	/* the outer process's business */
		if (dup3(early[1], HUTCH_STATUS_FD, O_CLOEXEC) < 0)
			_exit(HUTCH_EXIT_SETUP);
		close(early[0]);
		close(early[1]);
		pool_pid1(POOL_PID1_FD, shape, template_fd >= 0);
	}
	close(early[1]);
	/* on the number of pid 1's socket, which is pid 1's alone: its death
	 * refuses a job */
	if (dup3(early[0], POOL_PID1_FD, O_CLOEXEC) < 0) {
		kill_child(child);
		_exit(HUTCH_EXIT_SETUP);
	}
	close(early[0]);
	outer_relay_early(POOL_PID1_FD);
	fail_redirect(NULL);	/* released: a failure from here kills pid 1 first */
	if (template_fd >= 0)
		close(POOL_TEMPLATE_FD);
	if (dup2(mirror_rd, HUTCH_MIRROR_FD) < 0) {
		kill_child(child);
		_exit(HUTCH_EXIT_SETUP);
	}
	close(mirror_rd);
	pool_handoff(child);
	outer_wait(child);
}

void pool_check_prefix(const struct spec *sp, const struct pool_built *built)
{
	const struct spec *tpl = built->tpl;

	/* Field by field (shared/spec-compare.c): the mounts in our root
	 * are the template's, so a job that differs in any would run in a
	 * root it did not ask for; a whole-built root is sealed and its
	 * Landlock rules are the template's, so the job must be the
	 * template in every mount and flag, with none of its own. */
	if (!tpl)
		return;
	if (built->whole ? !spec_whole_equal(sp, tpl) : !spec_prefix_equal(sp, tpl, tpl->n_mounts))
		fail(STAGE_HELPER_EXEC, SITE_HELPER_EXEC_POOL_PREFIX, EINVAL);
	/* The staged root covers STAGING_DIR: a source there would be
	 * cloned from our root, not the host (the frontend sends a spec
	 * with one no template). */
	if (spec_own_sources_staged(sp, tpl->n_mounts))
		fail(STAGE_HELPER_EXEC, SITE_HELPER_EXEC_POOL_PREFIX, EINVAL);
}

void pool_check_spec(const struct spec *sp, const struct hutch_fs_shape *shape)
{
	/* lo included: a spec of network "none" in a jail whose lo is up
	 * would reach whatever listens on it */
	if (!spec_has_shape(sp, shape))
		fail(STAGE_HELPER_EXEC, SITE_HELPER_EXEC_POOL_SHAPE, EINVAL);
	/* An idmapped bind is cloned by the outer process before the clone,
	 * with privileges a pooled jail's never had. */
	for (uint32_t i = 0; i < sp->n_mounts; i++)
		if (sp->mounts[i].flags & HUTCH_MF_IDMAP)
			fail(STAGE_HELPER_EXEC, SITE_HELPER_EXEC_POOL_PREPARED, EINVAL);
}
