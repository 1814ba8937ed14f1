/* main.c: hutch-exec. Reads one jail spec from fd 3, builds the jail, execs
 * the target; any failure is one record on fd 4 and exit 71 (hutch-exec(8)).
 *
 * Processes: outer (this one; stays in the caller's pid namespace and mirrors
 * the target's status) -> pid 1 of the new pid namespace (builds the jail,
 * then reaps) -> the target (pid 2). The order of steps is a design decision;
 * each step says why it sits where it does. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helper.h"
#include "hutch-abi.h"
#include "sys.h"

/* The status pipe must close on the target's successful execve. */
static void seal_status_fd(void)
{
	if (fcntl(HUTCH_STATUS_FD, F_SETFD, FD_CLOEXEC) < 0)
		_exit(HUTCH_EXIT_SETUP); /* no status pipe: 71 alone says refused */
}

void make_mirror_pipe(int *ret_rd)
{
	int p[2], rd;

	if (pipe2(p, O_CLOEXEC) < 0)
		fail(STAGE_FORK, SITE_FORK_MIRROR_PIPE, errno);
	/* pid 1 writes on a fixed fd number; the outer process reads the
	 * other end. Move the read end clear of that number first: pipe2 may
	 * have put it there. */
	rd = fcntl(p[0], F_DUPFD_CLOEXEC, HUTCH_MIRROR_FD + 1);
	if (rd < 0 || (p[1] != HUTCH_MIRROR_FD && dup3(p[1], HUTCH_MIRROR_FD, O_CLOEXEC) < 0))
		fail(STAGE_FORK, SITE_FORK_MIRROR_FD, errno);
	if (p[0] != HUTCH_MIRROR_FD)
		close(p[0]);
	if (p[1] != HUTCH_MIRROR_FD)
		close(p[1]);
	*ret_rd = rd;
}

/* Whether pid 1 will send anything on the control socket. */
static bool spec_uses_control(const struct spec *sp)
{
	if (sp->flags & (HUTCH_SPEC_SECCOMP_NOTIFY | HUTCH_SPEC_TTY | HUTCH_SPEC_NET_PROXY))
		return true;
	for (uint32_t i = 0; i < sp->n_mounts; i++)
		if ((sp->mounts[i].flags & HUTCH_MF_SEND_FD) ||
		    sp->mounts[i].kind == HUTCH_MOUNT_OVERLAY)
			return true;
	return false;
}

/* Keep 0-2, the status, mirror and control descriptors; close the rest. */
static int close_other_fds(void)
{
	_Static_assert(HUTCH_SPEC_FD + 1 == HUTCH_STATUS_FD, "fd layout");
	_Static_assert(HUTCH_STATUS_FD + 1 == HUTCH_MIRROR_FD, "fd layout");
	_Static_assert(HUTCH_MIRROR_FD + 1 == HUTCH_CONTROL_FD, "fd layout");
	if (sys_close_range(HUTCH_SPEC_FD, HUTCH_SPEC_FD, 0) < 0)
		return -1;
	return sys_close_range(HUTCH_CONTROL_FD + 1, ~0U, 0);
}

/* pid 1 of the jail: everything from the mounts to the seccomp filter.
 * A pooled jail's pid 1 did its shape's steps before its job (pool.c),
 * and the spec has that shape (pool_check_spec); one built whole also
 * the root and the Landlock rules, of a template the spec equals
 * (pool_check_prefix): their steps' times stay 0 in this run's record. */
_Noreturn void jail_init(const struct spec *sp, int ruleset_fd,
			 const struct pool_built *ahead)
{
	bool whole = ahead && ahead->whole;
	pid_t target;

	if (!ahead) {
		parent_death_guard();
		root_private(sp->uid_inside, sp->gid_inside);
		timing_step(HUTCH_STEP_MOUNT_PRIVATE);
	}
	if (!whole)
		build_root(sp);		/* mounts need CAP_SYS_ADMIN in our userns */
	if (!ahead)
		set_hostname(sp->flags, sp->hostname);
	if (loopback_wanted(sp->flags) && !(ahead && loopback_wanted(ahead->shape->flags)))
		bring_up_loopback();
	if (sp->flags & HUTCH_SPEC_NET_PROXY)
		proxy_listen();		/* on the lo just brought up */
	timing_step(HUTCH_STEP_NETWORK);
	if (!whole)
		landlock_add_rules(ruleset_fd, sp);	/* by path, so after pivot_root */
	timing_step(HUTCH_STEP_LANDLOCK);
	apply_rlimits(sp);		/* after the mounts, which need open files */
	limit_user_counts(sp);		/* after the mounts, which count as namespaces */
	timing_step(HUTCH_STEP_RLIMITS);
	drop_privileges(sp);		/* bounding and ambient, ids, then caps */
	parent_death_guard();		/* a credential change cleared it */
	set_no_new_privs();		/* Landlock and seccomp both require it */
	timing_step(HUTCH_STEP_PRIVILEGES);
	landlock_enforce(ruleset_fd);
	timing_step(HUTCH_STEP_LANDLOCK);
	tty_prepare(sp);		/* --tty: from the jail's devpts, before 0-2 are final */
	/* chdir inside the jail and check where we landed: an inherited
	 * directory fd or cwd must not leave us outside (runc CVE-2024-21626). */
	if (chdir(sp->cwd) < 0)
		fail(STAGE_CHDIR, SITE_CHDIR_CWD, errno);
	{
		static char cwd[4096];

		errno = 0;
		if (!getcwd(cwd, sizeof(cwd)) || strcmp(cwd, sp->cwd) != 0)
			fail(STAGE_CWD_CHECK, SITE_CWD_CHECK_GETCWD, errno ? errno : ENOENT);
	}
	/* 0-2 for the target, the status pipe (close-on-exec), the mirror
	 * pipe and the control socket for us; nothing else crosses. */
	if (close_other_fds() < 0)
		fail(STAGE_CLOSE_FDS, SITE_CLOSE_FDS_RANGE, errno);
	if (setsid() < 0)	/* no controlling terminal: TIOCSTI needs one */
		fail(STAGE_SETSID, SITE_SETSID_SESSION, errno);
	tty_take_controlling(sp);	/* --tty: the jail's own pty, never the caller's */
	timings_exec_pipe();		/* a pipe2 the spec's filter may refuse */
	timing_step(HUTCH_STEP_SESSION);
	seccomp_enforce(sp);		/* last: base filter, then the spec's */
	timing_step(HUTCH_STEP_SECCOMP);

	target = fork();
	if (target < 0)
		fail(STAGE_FORK, SITE_FORK_TARGET, errno);
	if (target == 0) {
		close(HUTCH_MIRROR_FD); /* the target must not fake its status */
		timings_in_target();	/* nor see the control socket */
		signals_release_target();
		exec_target(sp);
	}
	close(HUTCH_STATUS_FD);	/* only the target's copy decides EOF */
	reaper_run(target);	/* sends the timings once the target's execve is done */
}

/* Phase 1 once the spec is in, in whichever process read it: prepare.
 * May allocate; changes nothing yet. */
void helper_prepare(struct spec *sp, int *ret_ruleset_fd)
{
	bind_fd_check(sp);		/* a client's descriptors: there, close-on-exec */
	timings_start();		/* from here: spawn and spec are the frontend's */
	seccomp_check_spec(sp);		/* no filter, no jail: before any namespace */
	if (!spec_uses_control(sp) && !timings_enabled())
		close(HUTCH_CONTROL_FD);	/* before any open can reuse the number */
	/* NULL: a pooled jail built whole made its ruleset and read
	 * cap_last_cap before its job (pool.c pool_whole) */
	if (!ret_ruleset_fd)
		return;
	*ret_ruleset_fd = landlock_prepare(sp);
	privileges_prepare();
}

/* Phase 1, in whichever process reads the spec: read and prepare. */
static void read_and_prepare(struct spec *sp, int *ret_ruleset_fd)
{
	spec_read(sp);			/* bounded, versioned, counts checked */
	helper_prepare(sp, ret_ruleset_fd);
}

void helper_start(void)
{
	seal_status_fd();
	signals_hold();			/* until the forwarders are in place */
	self_check();			/* setuid, setgid or file caps: stop */
}

_Noreturn void helper_outer_run(pid_t child, int mirror_rd)
{
	close(HUTCH_MIRROR_FD);	/* the status pipe stays: see reaper.c */
	if (dup2(mirror_rd, HUTCH_MIRROR_FD) < 0) {
		int err = errno;

		kill(child, SIGKILL);
		while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
			;
		fail(STAGE_FORK, SITE_FORK_MIRROR_REOPEN, err);
	}
	close(mirror_rd);
	outer_wait(child);
}

/* Phase 2: enact. No malloc, no stdio, async-signal-safe calls only. */
_Noreturn void helper_clone_and_run(const struct spec *sp, int ruleset_fd, int mirror_rd)
{
	pid_t child;

	bind_fd_prepare(sp);		/* passed descriptors: in the host's mount namespace */
	idmap_prepare(sp);		/* needs our privileges over the host's filesystems */
	timing_step(HUTCH_STEP_PREPARE);
	child = clone_into_namespaces(sp);	/* pid 1 of the new pid namespace */
	if (child == 0) {
		close(mirror_rd);
		jail_init(sp, ruleset_fd, NULL);
	}
	if (ruleset_fd >= 0)
		close(ruleset_fd);
	idmap_close(sp);		/* pid 1 holds its own copies */
	bind_fd_close(sp);		/* and of the passed descriptors */
	if (spec_uses_control(sp) || timings_enabled())
		close(HUTCH_CONTROL_FD);	/* pid 1's business */
	helper_outer_run(child, mirror_rd);
}

_Noreturn void helper_run_one(void)
{
	struct spec sp;
	int ruleset_fd, mirror_rd;

	helper_start();
	read_and_prepare(&sp, &ruleset_fd);
	make_mirror_pipe(&mirror_rd);
	helper_clone_and_run(&sp, ruleset_fd, mirror_rd);
}

/* pid 1 of an early clone (ahead.c), released: the spec the outer process
 * checked, whose id maps it wrote, comes on HUTCH_SPEC_FD; the same phase
 * 1 and jail_init as the one-shot helper's pid 1, the timings charged as
 * hutch-exec(8) says. */
_Noreturn void helper_run_released(uint64_t clone_ns, uint64_t spec_in_ns,
				   uint64_t released_ns)
{
	struct spec sp;
	int ruleset_fd;

	read_and_prepare(&sp, &ruleset_fd);
	ahead_check_spec(&sp);		/* fail closed: the bytes the outer checked */
	bind_fd_prepare_none(&sp);	/* no bind by descriptor in an early jail */
	timings_ahead(clone_ns, spec_in_ns, released_ns);
	timing_step(HUTCH_STEP_PREPARE);
	jail_init(&sp, ruleset_fd, NULL);
}

/* pid 1 of a pooled jail (pool.c), its job's descriptors in place: the
 * same phase 1, the spec checked against the shape we were cloned with
 * and whose steps we did ahead (pool_pid1), and against the template
 * whose mounts we built ahead (built->tpl, or NULL; build_root adds the
 * rest, or nothing is left when built->whole), then the same jail as the
 * one-shot helper's pid 1 builds. A whole-built jail makes no ruleset
 * for the job: its own, with the template's rules, is the job's once the
 * job is the template. The outer
 * steps before the clone have nothing to do for a spec of a pooled
 * shape: bind_fd_prepare clones only as root, and a root server pools
 * nothing; idmapped binds are refused by pool_check_spec. */
_Noreturn void helper_run_pooled(const struct pool_built *built)
{
	struct spec sp;
	int ruleset_fd = built->ruleset_fd;

	seal_status_fd();
	spec_read(&sp);			/* bounded, versioned, counts checked */
	helper_prepare(&sp, built->whole ? NULL : &ruleset_fd);
	pool_check_spec(&sp, built->shape);	/* fail closed: another shape, another jail */
	pool_check_prefix(&sp, built);	/* and mounts (and rules) built for another job */
	bind_fd_prepare_none(&sp);	/* every bind by descriptor resolved by us */
	timing_step(HUTCH_STEP_PREPARE);
	jail_init(&sp, ruleset_fd, built);
}

int main(int argc, char **argv)
{
	/* `hutch serve` starts one of us as its forkserver (forkserver.c),
	 * which forks a helper_run_one per jail. */
	if (argc >= 2 && strcmp(argv[1], "--forkserver") == 0)
		forkserver_run(argc - 2, argv + 2);
	/* `hutch run` starts us before its spec exists: clone ahead. */
	if (argc >= 2 && strcmp(argv[1], "--ahead") == 0)
		helper_run_ahead(argc - 2, argv + 2);
	helper_run_one();
}
