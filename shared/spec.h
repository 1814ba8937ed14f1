/* spec.h: the jail spec the frontend sends hutch-exec over a pipe, and its
 * strict, versioned binary codec. Linked by both binaries; pure code.
 *
 * Wire layout (little-endian; "str" is u32 length, the bytes, then one NUL;
 * "blob" is u32 length and the bytes):
 *   u32 magic, u16 version, u16 zero, u32 total_len, u32 flags,
 *   u32 uid_inside, gid_inside, uid_outside, gid_outside,
 *   u64 rlimit[HUTCH_RLIM_COUNT], u64 user_cap[HUTCH_UCAP_COUNT],
 *   str hostname, str cwd,
 *   u32 n_mounts, n_mounts x { u8 kind, u8 zero, u16 flags, u32 mode,
 *                              u64 size, u64 inodes, str source, str target,
 *                              blob data },
 *   u32 argc, argc x str, u32 envc, envc x str, blob seccomp_filter.
 * Nothing may follow: total_len is the exact length. */
#ifndef HUTCH_SPEC_H
#define HUTCH_SPEC_H

#include <stddef.h>
#include <stdint.h>

#define HUTCH_SPEC_MAGIC 0x31505348u /* "HSP1" */
#define HUTCH_SPEC_VERSION 3 /* 2: a tmpfs carries its inode count; 3: user caps */
#define HUTCH_SPEC_HEADER_BYTES 12 /* magic, version, zero, total_len */

#define HUTCH_SPEC_MAX_BYTES (64u << 20)
#define HUTCH_SPEC_MAX_MOUNTS 256u
#define HUTCH_SPEC_MAX_ARGC 65536u
#define HUTCH_SPEC_MAX_ENVC 4096u
#define HUTCH_SPEC_MAX_ARG_BYTES (128u << 10) /* MAX_ARG_STRLEN */
#define HUTCH_SPEC_MAX_PATH 4095u
#define HUTCH_SPEC_MAX_HOSTNAME 64u
#define HUTCH_SPEC_MAX_FILTER_INSNS 4096u
#define HUTCH_SPEC_MAX_FILE_BYTES (32u << 20)

enum {
	HUTCH_SPEC_NS_PID = 1u << 0,
	HUTCH_SPEC_NS_NET = 1u << 1,
	HUTCH_SPEC_NS_IPC = 1u << 2,
	HUTCH_SPEC_NS_UTS = 1u << 3,
	HUTCH_SPEC_NS_CGROUP = 1u << 4,
	HUTCH_SPEC_NET_LOOPBACK = 1u << 5,	/* bring lo up in the new netns */
	HUTCH_SPEC_LANDLOCK = 1u << 6,		/* use Landlock when the kernel has it */
	HUTCH_SPEC_LANDLOCK_REQUIRED = 1u << 7,	/* and fail closed when it does not */
	HUTCH_SPEC_LANDLOCK_NET = 1u << 8,	/* deny TCP bind/connect (ABI >= 4) */
	HUTCH_SPEC_SECCOMP = 1u << 9,		/* a filter follows and must load */
	HUTCH_SPEC_SECCOMP_NOTIFY = 1u << 10,	/* send its listener on HUTCH_CONTROL_FD */
	HUTCH_SPEC_TTY = 1u << 11,		/* a pty of the jail's devpts is 0-2 (--tty) */
	HUTCH_SPEC_NET_PROXY = 1u << 12,	/* listen in the netns, send it (HUTCH_CONTROL_PROXY) */
	/* A pooled jail's template only, never a job's (hutch-exec refuses
	 * it there): the whole root and its Landlock rules are built ahead
	 * (hutch-exec(8), "The template"); in the bytes, so in the digest. */
	HUTCH_SPEC_TEMPLATE_WHOLE = 1u << 13,
	HUTCH_SPEC_FLAGS_ALL = (1u << 14) - 1,
};

/* Limits the helper sets; HUTCH_RLIM_INFINITY leaves one unlimited.
 * RLIMIT_CORE is always 0 and is not in the spec. */
enum hutch_rlimit {
	HUTCH_RLIM_AS,	/* the memory limit: RLIMIT_DATA, and RLIMIT_AS at it
			 * plus HUTCH_AS_HEADROOM (hutch-abi.h) */
	HUTCH_RLIM_CPU,
	HUTCH_RLIM_FSIZE,
	HUTCH_RLIM_NOFILE,
	HUTCH_RLIM_NPROC,
	HUTCH_RLIM_COUNT
};
#define HUTCH_RLIM_INFINITY UINT64_MAX

/* Per-user kernel counts the jail is held to: the kernel charges them to
 * the user that owns the jail's user namespace, the caller on the host
 * (hutch-exec(8), USER COUNTS). The inotify two are the jail namespace's
 * /proc/sys/user counts, at most HUTCH_UCAP_COUNT_MAX; the others are
 * rlimits (RLIMIT_MSGQUEUE bytes, RLIMIT_SIGPENDING), never above the
 * hard limit the helper inherits. */
enum hutch_user_cap {
	HUTCH_UCAP_INOTIFY_INSTANCES,
	HUTCH_UCAP_INOTIFY_WATCHES,
	HUTCH_UCAP_MSGQUEUE_BYTES,
	HUTCH_UCAP_SIGPENDING,
	HUTCH_UCAP_COUNT
};
#define HUTCH_UCAP_COUNT_MAX 0x7fffffffu

enum hutch_mount_kind {
	HUTCH_MOUNT_BIND = 1,	/* source: host path, no symlinks in it */
	HUTCH_MOUNT_TMPFS,	/* size: bytes, inodes: nr_inodes, mode */
	HUTCH_MOUNT_PROC,	/* a new procfs for the jail's pid namespace */
	HUTCH_MOUNT_SYMLINK,	/* source: the link text */
	HUTCH_MOUNT_FILE,	/* data: contents, mode */
	HUTCH_MOUNT_DIR,	/* mode */
	HUTCH_MOUNT_DEVPTS,	/* a new devpts instance; mode: its ptmx node's */
	/* copy-on-write: source (a host directory, no symlinks in it) is the
	 * lower layer; the upper is a tmpfs of its own (size, inodes, mode of
	 * its root as for a tmpfs), whose root is sent on HUTCH_CONTROL_FD
	 * tagged HUTCH_CONTROL_OVERLAY, in spec order (helper/overlay.c) */
	HUTCH_MOUNT_OVERLAY,
	/* Masks (helper/masks.c), after every other mount: target must
	 * already exist inside a mount above it; nothing is created. */
	HUTCH_MOUNT_HIDE,	/* an empty read-only file or directory over target */
	HUTCH_MOUNT_READONLY,	/* target bound onto itself read-only */
	HUTCH_MOUNT_PIN,	/* target bound onto itself: a mount point cannot be
				 * renamed or removed (EBUSY), so neither can a
				 * protected path's parents be swapped aside */
	HUTCH_MOUNT_KIND_MAX
};

enum {
	HUTCH_MF_RW = 1u << 0,		/* writable (binds, tmpfs) */
	HUTCH_MF_EXEC = 1u << 1,	/* executable (binds, tmpfs) */
	HUTCH_MF_DEV = 1u << 2,		/* device nodes honoured (binds of /dev nodes) */
	HUTCH_MF_OPTIONAL = 1u << 3,	/* skip a bind whose source does not exist */
	HUTCH_MF_SEND_FD = 1u << 4,	/* tmpfs: send its root fd on HUTCH_CONTROL_FD */
	HUTCH_MF_IDMAP = 1u << 5,	/* rw bind or overlay's lower: idmapped, its owner as the jail's user */
	HUTCH_MF_FD = 1u << 6,		/* bind of a descriptor: the k-th such mount's is
					 * fd HUTCH_BIND_FD_FIRST + k; source is where the
					 * frontend found it (hutch-abi.h) */
	HUTCH_MF_ALL = (1u << 7) - 1,
};

struct spec_mount {
	uint8_t kind;
	uint16_t flags;
	uint32_t mode;
	uint64_t size_bytes;
	uint64_t inodes;	/* tmpfs, overlay: nr_inodes, never 0 (unlimited); else 0 */
	const char *source;	/* "" when unused */
	const char *target;
	const uint8_t *data;
	uint32_t data_len;
};

struct spec {
	uint32_t flags;
	uint32_t uid_inside, gid_inside, uid_outside, gid_outside;
	uint64_t rlimit[HUTCH_RLIM_COUNT];
	uint64_t user_cap[HUTCH_UCAP_COUNT];
	const char *hostname;
	const char *cwd;
	uint32_t n_mounts;
	struct spec_mount *mounts;
	uint32_t argc;
	char **argv;	/* argc entries then NULL */
	uint32_t envc;
	char **envp;	/* envc entries then NULL */
	const uint8_t *filter;	/* struct sock_filter array */
	uint32_t filter_len;	/* bytes, a multiple of 8 */
};

/* Encode sp into a fresh malloc'd buffer. Returns 0 or -EINVAL (sp breaks a
 * rule the decoder enforces), -E2BIG, -ENOMEM. Writes *ret_* on success. */
int spec_encode(const struct spec *sp, uint8_t **ret_buf, size_t *ret_len);

/* Length announced by a header; -EBADMSG on bad magic/version/length. */
int spec_peek_length(const uint8_t *hdr, size_t len, uint32_t *ret_total);

/* Decode buf strictly. On success *ret_sp points into buf (which must outlive
 * it) and owns three arrays freed by spec_release(). -EBADMSG on any rule
 * broken, -ENOMEM. */
int spec_decode(const uint8_t *buf, size_t len, struct spec *ret_sp);
void spec_release(struct spec *sp);

/* An absolute path with no empty, "." or ".." component and no trailing
 * slash; "/" itself only when allow_root. */
int spec_path_is_clean(const char *path, int allow_root);

#endif
