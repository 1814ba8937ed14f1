/* timings-record.h: the helper's setup timings, one fixed-size record pid 1 sends
 * on the control socket (HUTCH_CONTROL_FD) once the target's execve has
 * succeeded, read by the frontend into the result's jail.timings
 * (hutch-exec(8), TIMINGS RECORD). Linked by both binaries (the helper
 * only writes it: helper/timings.c). A frontend that gets no record (an
 * older helper, a jail refused) reports no helper steps; nothing fails.
 * Append only: step numbers are stable across releases. */
#ifndef HUTCH_TIMINGS_RECORD_H
#define HUTCH_TIMINGS_RECORD_H

#include <stdint.h>

#define HUTCH_TIMINGS_MAGIC 0x484d5431u /* "HMT1" */
#define HUTCH_TIMINGS_SLOTS 32

/* Each step is the CLOCK_MONOTONIC time from the end of the one before
 * it to its own end, so the steps tile the helper's setup without gap or
 * overlap: their sum is exec's end minus start_ns. */
enum hutch_step {
	HUTCH_STEP_PREPARE,	/* Landlock ruleset, cap_last_cap, mirror pipe, idmapped trees */
	HUTCH_STEP_CLONE,	/* setgroups, clone() into the namespaces until pid 1 runs */
	HUTCH_STEP_ID_MAPS,	/* setgroups, uid_map, gid_map, until pid 1 is released */
	HUTCH_STEP_MOUNT_PRIVATE, /* death guard, fs ids, propagation private */
	HUTCH_STEP_BINDS_DIR,	/* bind mounts of directories: source cloned, attached */
	HUTCH_STEP_BINDS_FILE,	/* bind mounts of single files (/etc, /dev nodes) */
	HUTCH_STEP_ROOT,	/* the root tmpfs; at the end, sealed read-only */
	HUTCH_STEP_TMPFS,	/* tmpfs mounts (/tmp, the work dir, /dev) */
	HUTCH_STEP_PROC,	/* the jail's /proc */
	HUTCH_STEP_DEVPTS,	/* its devpts */
	HUTCH_STEP_FILES,	/* files, directories and symlinks written in the root */
	HUTCH_STEP_OVERLAY,	/* copy-on-write mounts */
	HUTCH_STEP_PIVOT_ROOT,	/* user count files opened, pivot_root, the old root detached */
	HUTCH_STEP_NETWORK,	/* hostname, loopback up */
	HUTCH_STEP_LANDLOCK,	/* the rules by path, and restrict_self */
	HUTCH_STEP_RLIMITS,	/* rlimits, the jail's user counts */
	HUTCH_STEP_PRIVILEGES,	/* ids and capabilities dropped, no_new_privs */
	HUTCH_STEP_SESSION,	/* tty, chdir and its check, descriptors closed, setsid */
	HUTCH_STEP_SECCOMP,	/* both filters loaded */
	HUTCH_STEP_FORK,	/* pid 1 forks the target */
	HUTCH_STEP_EXEC,	/* until the target's execve succeeded (or it failed) */
	HUTCH_STEP_MAX
};
_Static_assert(HUTCH_STEP_MAX <= HUTCH_TIMINGS_SLOTS, "room in the record");

struct hutch_timings {
	uint32_t magic;		/* HUTCH_TIMINGS_MAGIC */
	uint32_t n_steps;	/* the sender's HUTCH_STEP_MAX; the rest of step_ns is 0 */
	uint64_t start_ns;	/* CLOCK_MONOTONIC when the spec was read */
	uint64_t step_ns[HUTCH_TIMINGS_SLOTS];
};
_Static_assert(sizeof(struct hutch_timings) == 272, "fixed wire size");

#endif
