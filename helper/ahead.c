/* ahead.c: `hutch-exec --ahead` (hutch-exec(8)): pid 1 is cloned into the
 * default namespace set before the spec arrives, so the clone (the
 * costliest step) runs while hutch still reads its policy. pid 1 waits,
 * unmapped and doing nothing, until the outer process has read and checked
 * the spec and written the id maps; then it reads the same spec bytes from
 * the outer process and goes on as the one-shot helper's pid 1. A spec of
 * another shape: the early pid 1 is killed and reaped, and the jail is
 * cloned as without --ahead. Phase 2 (async-signal-safe) but for the
 * spec's read and decode, which allocate as phase 1 always does. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "fd-util.h"
#include "helper.h"
#include "hutch-abi.h"

#define NS_FLAGS (HUTCH_SPEC_NS_PID | HUTCH_SPEC_NS_NET | HUTCH_SPEC_NS_IPC | \
		  HUTCH_SPEC_NS_UTS | HUTCH_SPEC_NS_CGROUP)
/* What a default-policy spec asks for (frontend/jail/layout.c): every
 * namespace, the network one included (network none or loopback; lo is
 * brought up by pid 1 after its release, as ever). */
#define AHEAD_NS NS_FLAGS

/* The outer process -> pid 1, releasing it (before the spec's bytes):
 * its clock when it began the clone and when it had the spec. */
struct ahead_go {
	uint64_t clone_ns, spec_in_ns;
};

/* As root, the host uid the early user namespace was made as (its owner,
 * namespaces.c: become_owner), from our command line; 0 otherwise. */
static uint32_t ahead_owner;

bool ahead_fits(const struct spec *sp)
{
	if ((sp->flags & NS_FLAGS) != AHEAD_NS)
		return false;
	if (ahead_owner && sp->uid_outside != ahead_owner)
		return false;	/* another owner: the kernel's counts go elsewhere */
	/* Trees the outer process prepares before the clone, with its
	 * privileges over the host's mounts (bind_fd_prepare, idmap_prepare):
	 * an early pid 1 has none of them. */
	for (uint32_t i = 0; i < sp->n_mounts; i++)
		if (sp->mounts[i].flags & (HUTCH_MF_FD | HUTCH_MF_IDMAP))
			return false;
	return true;
}

void ahead_check_spec(const struct spec *sp)
{
	if (!ahead_fits(sp)) /* the outer process checked it: cannot be */
		fail(STAGE_HELPER_EXEC, SITE_HELPER_EXEC_POOL_SHAPE, EINVAL);
}

/* The early pid 1 until its release: no step of the jail, no record on
 * the status pipe (the outer process speaks for the jail until then). The
 * spec arrives on the sync pipe, which takes the place of our copy of the
 * frontend's spec pipe at once (a helper that died would otherwise keep
 * the frontend's writes from failing). */
static _Noreturn void early_pid1(int sync)
{
	uint64_t released_ns;
	struct ahead_go go;

	/* Our parent's death kills us at once; one before this call closed
	 * its end of the sync pipe, which the read below sees as EOF
	 * (getppid() is 0 for a pid 1, so it cannot tell). */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		_exit(HUTCH_EXIT_SETUP);
	if (sync != HUTCH_SPEC_FD && (dup3(sync, HUTCH_SPEC_FD, O_CLOEXEC) < 0 || close(sync) < 0))
		_exit(HUTCH_EXIT_SETUP);
	/* EOF instead of the message: the outer process refused the spec,
	 * failed or died; it reports, we say nothing. */
	if (fd_read_full(HUTCH_SPEC_FD, &go, sizeof(go)) != (long)sizeof(go))
		_exit(HUTCH_EXIT_SETUP);
	released_ns = timings_now();
	ns_child_released();
	helper_run_released(go.clone_ns, go.spec_in_ns, released_ns);
}

/* The outer process once the spec fits: maps, then the message and the
 * spec's bytes, which pid 1 decodes and checks again itself. A pipe
 * fuller than its size blocks us until pid 1 reads: it reads right after
 * the message. */
static void release(pid_t child, int sync, const struct spec *sp, const uint8_t *buf,
		    uint32_t len, const struct ahead_go *go)
{
	ns_write_id_maps(child, sp);
	if (fd_write_all(sync, go, sizeof(*go)) < 0 || fd_write_all(sync, buf, len) < 0) {
		kill_child(child);
		fail(STAGE_FORK, SITE_FORK_SYNC_RELEASE, EPIPE);
	}
	close(sync);
}

/* "--ahead" alone, or as root "--ahead UID" (decimal, not 0): the owner
 * or 0 for none; -1 for anything else. */
static int64_t parse_owner(int argc, char **argv)
{
	uint64_t v = 0;

	if (argc == 0)
		return 0;
	if (argc != 1 || !argv[0][0] || strlen(argv[0]) > 10)
		return -1;
	for (const char *p = argv[0]; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (uint64_t)(*p - '0');
	}
	return v == 0 || v >= UINT32_MAX ? -1 : (int64_t)v;
}

_Noreturn void helper_run_ahead(int argc, char **argv)
{
	int64_t owner = parse_owner(argc, argv);

	pid_t child;
	int sync, mirror_rd, ruleset_fd;
	struct ahead_go go;
	struct spec sp;
	uint32_t len;
	uint8_t *buf;

	/* Root without an owner to make it as (or a bad one): the usual
	 * order, the clone once the spec names it. */
	if (owner < 0 || (geteuid() == 0 && owner == 0))
		helper_run_one();
	ahead_owner = geteuid() == 0 ? (uint32_t)owner : 0;
	helper_start();		/* status sealed, signals held, self check */
	make_mirror_pipe(&mirror_rd);
	go.clone_ns = timings_now();
	child = ns_clone(AHEAD_NS, ahead_owner, &sync);
	if (child == 0) {
		close(mirror_rd);
		early_pid1(sync);
	}
	fail_kill_first(child);	/* every refusal from here takes it first */
	spec_read_bytes(&buf, &len);
	go.spec_in_ns = timings_now();
	spec_decode_or_fail(buf, len, &sp);
	if (ahead_fits(&sp)) {
		seccomp_check_spec(&sp);	/* no filter, no jail: before the release */
		fail_kill_first(0);	/* release kills it itself: no second kill */
		release(child, sync, &sp, buf, len, &go);
		close(HUTCH_CONTROL_FD);	/* pid 1's business */
		helper_outer_run(child, mirror_rd);
	}
	/* Another shape: this pid 1 never ran a step; the jail is cloned as
	 * the spec says, as without --ahead. */
	fail_kill_first(0);
	close(sync);
	kill_child(child);
	helper_prepare(&sp, &ruleset_fd);
	helper_clone_and_run(&sp, ruleset_fd, mirror_rd);
}
