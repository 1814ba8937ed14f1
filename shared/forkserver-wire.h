/* forkserver-wire.h: the messages between `hutch serve` and its long-lived
 * helper, `hutch-exec --forkserver` (hutch-exec(8), "FORKSERVER"). One
 * SOCK_SEQPACKET socket; each message is one fixed struct, descriptors
 * ride along as SCM_RIGHTS in slot order. Linked by both binaries. */
#ifndef HUTCH_FORKSERVER_WIRE_H
#define HUTCH_FORKSERVER_WIRE_H

#include <stdint.h>

#include "spec.h"

#define HUTCH_FS_SOCK_FD 3	/* the forkserver's end, as it is started */
#define HUTCH_FS_MAGIC 0x68667334u	/* "hfs4": 2 added the pool, 3 lo and hostname in its
					 * shape, 4 the policy's mounts built ahead */
#define HUTCH_FS_MAX_JOBS 4096	/* jails alive at once; more: EAGAIN */
#define HUTCH_FS_POOL_MAX 64	/* `--pool N`: at most this many jails wait */
/* No request for this long: the pool goes. Also the age past which a
 * pooled jail is dropped instead of used: its prefix's binds are clones
 * of the host's trees as they were when it was built, and a host path
 * replaced since (a package update renaming a directory into place) is
 * seen by no jail older than this. */
#define HUTCH_FS_POOL_IDLE_MS 10000

/* The descriptors of one jail, in the order they travel. stdin to status
 * and exit are required; control and cgroup are optional. */
enum hutch_fs_slot {
	FS_SLOT_STDIN,		/* -> fd 0 of the helper */
	FS_SLOT_STDOUT,		/* -> fd 1 */
	FS_SLOT_STDERR,		/* -> fd 2 */
	FS_SLOT_SPEC,		/* -> HUTCH_SPEC_FD: the spec pipe, read end */
	FS_SLOT_STATUS,		/* -> HUTCH_STATUS_FD */
	FS_SLOT_CONTROL,	/* -> HUTCH_CONTROL_FD */
	FS_SLOT_CGROUP,		/* clone3 CLONE_INTO_CGROUP; not passed on */
	FS_SLOT_EXIT,		/* kept by the forkserver: struct hutch_fs_exit */
	FS_SLOT_TEMPLATE,	/* the shape's template (below); kept, never a job's */
	FS_SLOTS
};
#define HUTCH_FS_REQUIRED_SLOTS                                                              \
	((1u << FS_SLOT_STDIN) | (1u << FS_SLOT_STDOUT) | (1u << FS_SLOT_STDERR) |          \
	 (1u << FS_SLOT_SPEC) | (1u << FS_SLOT_STATUS) | (1u << FS_SLOT_EXIT))

/* What a jail's clone depends on, and what a pooled jail does ahead of
 * its job, and nothing else: the spec's namespace flags (HUTCH_SPEC_NS_*),
 * whether lo comes up in its network namespace (HUTCH_SPEC_NET_LOOPBACK),
 * its id maps and its hostname (the policy's), NUL-terminated and padded
 * with NULs. A pooled jail is cloned with one shape before any
 * spec exists and does the shape's own steps (pool.c); its pid 1 refuses
 * a spec of another (SITE_HELPER_EXEC_POOL_SHAPE), so a spec of network
 * "none" never gets a jail whose lo is up. */
#define HUTCH_FS_SHAPE_FLAGS                                                                 \
	(HUTCH_SPEC_NS_PID | HUTCH_SPEC_NS_NET | HUTCH_SPEC_NS_IPC | HUTCH_SPEC_NS_UTS |      \
	 HUTCH_SPEC_NS_CGROUP | HUTCH_SPEC_NET_LOOPBACK)
#define HUTCH_FS_HOSTNAME_BYTES 68
_Static_assert(HUTCH_FS_HOSTNAME_BYTES > HUTCH_SPEC_MAX_HOSTNAME, "a hostname and its NUL");
/*
 * prefix_id: the SHA-256 of the shape's template, all zero for none. The
 * template is a spec (spec.h) whose mounts are the policy's prefix, the
 * leading mounts that are the same for every request of that policy
 * (frontend/jail/layout.h n_prefix), its flags, ids and hostname the
 * job's, its argv, env, cwd, limits and counts fixed placeholders. A
 * pooled jail of a shape with a template builds those mounts ahead, in
 * its pid 1 after the shape's steps (pool.c), and its pid 1 refuses a
 * job whose flags, ids, hostname and first mounts are not the
 * template's, field by field (SITE_HELPER_EXEC_POOL_PREFIX). The
 * template travels as a sealed memfd in FS_SLOT_TEMPLATE, only when
 * its id is not the one the forkserver was last sent; a request with
 * an id but no memfd whose id is not the kept one is not pooled.
 * The id is what the forkserver compares, so jails of another
 * template go as jails of another shape do; the comparison in pid 1,
 * not the id, is what keeps a job out of a jail built for another.
 */
struct hutch_fs_shape {
	uint32_t flags;		/* the spec's flags & HUTCH_FS_SHAPE_FLAGS */
	uint32_t uid_inside, gid_inside, uid_outside, gid_outside;
	char hostname[HUTCH_FS_HOSTNAME_BYTES];
	uint8_t prefix_id[32];	/* the template's SHA-256; all zero: none */
};

/* frontend -> forkserver: start one jail. After the slots' descriptors
 * come n_bind more, a client's bind sources (hutch-abi.h): they go to
 * HUTCH_BIND_FD_FIRST and up in the child. poolable: the spec has shape
 * and needs nothing before its clone (no cgroup to clone into, no
 * idmapped or privileged bind), so a pooled jail of that shape may take
 * it, and the pool is refilled with that shape. */
struct hutch_fs_request {
	uint32_t magic;
	uint32_t slots;		/* bit per enum hutch_fs_slot present */
	uint32_t n_bind;	/* at most HUTCH_BIND_FDS_MAX */
	uint32_t poolable;	/* 0 or 1 */
	struct hutch_fs_shape shape;
	uint32_t pad;
};

/* forkserver -> frontend, at once: the helper's pid and, when err is 0,
 * its pidfd (for signals) as the one descriptor. */
struct hutch_fs_reply {
	uint32_t magic;
	int32_t err;		/* 0 or an errno: no jail was started */
	int32_t pid;
	uint32_t pooled;	/* 1: a pooled jail took the job */
};

/* forkserver -> the job's exit pipe, once, when it reaped the helper:
 * what wait4 said. Then the pipe is closed. */
struct hutch_fs_exit {
	uint32_t magic;
	int32_t status;		/* the wait status */
	uint64_t utime_us, stime_us;
	uint64_t maxrss_kb;
};

#endif
