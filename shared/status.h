/* status.h: the helper's one fixed-size failure record on the status pipe,
 * the stages and sites it names, the codes it carries, and its words.
 * Linked by both binaries (the helper only writes it: fail.c).
 * Append only: stage, site and code numbers are stable across releases. */
#ifndef HUTCH_STATUS_H
#define HUTCH_STATUS_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#define HUTCH_STATUS_MAGIC 0x48535431u /* "HST1" */

enum hutch_status_code {
	HUTCH_SETUP_FAILED = 1,		/* a setup step failed; errno says why */
	HUTCH_EXEC_FAILED = 2,		/* execve of the target failed */
	HUTCH_MECH_UNAVAILABLE = 3,	/* a required kernel mechanism is missing */
	HUTCH_PRIVILEGED_BINARY = 4,	/* hutch-exec is setuid/setgid/has file caps */
	HUTCH_BAD_SPEC = 5,		/* the spec failed strict decoding */
	HUTCH_HELPER_CRASHED = 6,	/* pid 1 died before the target ran; err: signal */
	HUTCH_STATUS_CODE_MAX
};

enum hutch_stage {
	STAGE_SELF_CHECK = 1,
	STAGE_SPEC_READ,
	STAGE_SPEC_DECODE,
	STAGE_LANDLOCK_CREATE,
	STAGE_SETGROUPS,
	STAGE_USERNS,
	STAGE_ID_MAP,
	STAGE_NAMESPACES,
	STAGE_FORK,
	STAGE_PARENT_GONE,
	STAGE_MOUNT_PRIVATE,
	STAGE_BIND_SOURCE,	/* item: mount index */
	STAGE_ROOT_TMPFS,
	STAGE_MOUNT_TARGET,	/* item: mount index */
	STAGE_MOUNT,		/* item: mount index */
	STAGE_PROC_VERIFY,	/* item: mount index */
	STAGE_ROOT_READONLY,
	STAGE_PIVOT_ROOT,
	STAGE_HOSTNAME,
	STAGE_LOOPBACK,
	STAGE_LANDLOCK_RULES,	/* item: mount index */
	STAGE_RLIMIT,		/* item: enum hutch_rlimit */
	STAGE_DROP_IDS,
	STAGE_DROP_CAPS,
	STAGE_NO_NEW_PRIVS,
	STAGE_LANDLOCK_ENFORCE,
	STAGE_CHDIR,
	STAGE_CWD_CHECK,
	STAGE_CLOSE_FDS,
	STAGE_SETSID,
	STAGE_SECCOMP,
	STAGE_EXEC,
	STAGE_HELPER_EXEC,	/* written by the frontend's child: execve of hutch-exec */
	STAGE_JAIL_INIT,	/* pid 1 of the jail, seen from the outer process */
	STAGE_USER_COUNTS,	/* item: enum hutch_user_count */
	STAGE_BIND_IDMAP,	/* item: mount index */
	STAGE_TTY,
	STAGE_OVERLAY,		/* item: mount index */
	STAGE_MAX
};

/* What a record's item names. For the stages marked "item: mount index"
 * above it is the mount's index in the spec; for rlimit and user_counts an
 * enum value below; for every other stage a site: the step of the stage
 * that failed, one enum per stage, SITE_<STAGE>_<STEP>. Sites are
 * numbered per stage and append only, like stages: a number that has
 * shipped is never reused (hutch-exec(8), STATUS RECORD). status.c puts
 * every site into words; its unit test fails for a site without them. */
enum site_self_check {
	SITE_SELF_CHECK_SECURE,		/* AT_SECURE, real vs effective ids */
	SITE_SELF_CHECK_SETID_BITS,	/* our file's set-id bits */
	SITE_SELF_CHECK_FILE_CAPS,	/* its security.capability */
	SITE_SELF_CHECK_MAX
};
enum site_spec_read {
	SITE_SPEC_READ_HEADER,		/* the header, and the buffer it sizes */
	SITE_SPEC_READ_BODY,
	SITE_SPEC_READ_MAX
};
enum site_spec_decode {
	SITE_SPEC_DECODE_HEADER,	/* magic, version, announced length */
	SITE_SPEC_DECODE_TRAILING,	/* a byte after the announced length */
	SITE_SPEC_DECODE_BODY,		/* spec_decode */
	SITE_SPEC_DECODE_MAX
};
enum site_landlock_create {
	SITE_LANDLOCK_CREATE_ABI,	/* required, and the kernel has none */
	SITE_LANDLOCK_CREATE_RULESET,
	SITE_LANDLOCK_CREATE_MAX
};
enum site_setgroups { SITE_SETGROUPS_DROP, SITE_SETGROUPS_MAX };
enum site_userns {
	SITE_USERNS_CLONE,
	SITE_USERNS_OWNER,		/* a root caller's jail id as the namespace's owner */
	SITE_USERNS_OWNER_BACK,		/* and back to root after the clone */
	SITE_USERNS_MAX
};
enum site_id_map {
	SITE_ID_MAP_SETGROUPS,		/* /proc/PID/setgroups: deny */
	SITE_ID_MAP_UID,
	SITE_ID_MAP_GID,
	SITE_ID_MAP_MAX
};
enum site_namespaces { SITE_NAMESPACES_MAX };	/* reserved: never written */
enum site_fork {
	SITE_FORK_MIRROR_PIPE,		/* pipe2 of the mirror pipe */
	SITE_FORK_MIRROR_FD,		/* its write end onto HUTCH_MIRROR_FD */
	SITE_FORK_TARGET,		/* pid 1 forks the command */
	SITE_FORK_UNUSED_3,		/* never written */
	SITE_FORK_SYNC_PIPE,		/* pipe2 of the id-map pipe */
	SITE_FORK_SYNC_RELEASE,		/* the byte that releases pid 1 */
	SITE_FORK_MIRROR_REOPEN,	/* outer: its read end onto HUTCH_MIRROR_FD */
	SITE_FORK_MAX
};
enum site_parent_gone {
	SITE_PARENT_GONE_PDEATHSIG,
	SITE_PARENT_GONE_CHECK,		/* the outer process already gone */
	SITE_PARENT_GONE_MAX
};
enum site_mount_private {
	SITE_MOUNT_PRIVATE_PROPAGATION,
	SITE_MOUNT_PRIVATE_FS_IDS,	/* setfsuid/setfsgid did not take */
	SITE_MOUNT_PRIVATE_MAX
};
enum site_root_tmpfs {
	SITE_ROOT_TMPFS_MOUNT,
	SITE_ROOT_TMPFS_OPEN,
	SITE_ROOT_TMPFS_MAX
};
enum site_root_readonly {
	SITE_ROOT_READONLY_ROOT,
	SITE_ROOT_READONLY_MOUNTS,	/* + mount index: sealing that tmpfs */
	SITE_ROOT_READONLY_MAX = SITE_ROOT_READONLY_MOUNTS
};
enum site_pivot_root {
	SITE_PIVOT_ROOT_PIVOT,		/* fchdir and pivot_root */
	SITE_PIVOT_ROOT_DETACH,		/* umount2 of the old root */
	SITE_PIVOT_ROOT_CHDIR,
	SITE_PIVOT_ROOT_MAX
};
enum site_hostname { SITE_HOSTNAME_SET, SITE_HOSTNAME_MAX };
enum site_loopback {
	SITE_LOOPBACK_SOCKET,
	SITE_LOOPBACK_GET_FLAGS,
	SITE_LOOPBACK_UP,
	SITE_LOOPBACK_PROXY_SOCKET,	/* network proxy: the listening socket */
	SITE_LOOPBACK_PROXY_BIND,
	SITE_LOOPBACK_PROXY_LISTEN,
	SITE_LOOPBACK_PROXY_SEND,
	SITE_LOOPBACK_MAX
};
/* STAGE_LANDLOCK_RULES: a mount index, or n_mounts for the rule on "/". */
/* STAGE_RLIMIT: enum hutch_rlimit (spec.h) for the spec's limits, then: */
enum site_rlimit {
	SITE_RLIMIT_CORE = 5,		/* == HUTCH_RLIM_COUNT, checked in status.c */
	SITE_RLIMIT_SIGPENDING,
	SITE_RLIMIT_MSGQUEUE,
	SITE_RLIMIT_AS,			/* the memory limit's headroom (privileges.c) */
	SITE_RLIMIT_MAX
};
enum site_drop_ids { SITE_DROP_IDS_GID, SITE_DROP_IDS_UID, SITE_DROP_IDS_MAX };
enum site_drop_caps {
	SITE_DROP_CAPS_BOUNDING = 0,	/* + capability number (< 64) */
	SITE_DROP_CAPS_AMBIENT = 100,
	SITE_DROP_CAPS_APPLY,		/* capset(2) of the empty sets */
	SITE_DROP_CAPS_READ,		/* capget, to verify */
	SITE_DROP_CAPS_LEFT,		/* a set is not empty */
	SITE_DROP_CAPS_BOUNDING_LEFT,	/* a capability past cap_last_cap */
	SITE_DROP_CAPS_MAX
};
enum site_no_new_privs {
	SITE_NO_NEW_PRIVS_SET,
	SITE_NO_NEW_PRIVS_DUMPABLE,
	SITE_NO_NEW_PRIVS_MAX
};
enum site_landlock_enforce { SITE_LANDLOCK_ENFORCE_RESTRICT, SITE_LANDLOCK_ENFORCE_MAX };
enum site_chdir { SITE_CHDIR_CWD, SITE_CHDIR_MAX };
enum site_cwd_check { SITE_CWD_CHECK_GETCWD, SITE_CWD_CHECK_MAX };
enum site_close_fds { SITE_CLOSE_FDS_RANGE, SITE_CLOSE_FDS_MAX };
enum site_setsid { SITE_SETSID_SESSION, SITE_SETSID_MAX };
enum site_seccomp {
	SITE_SECCOMP_SPEC_FILTER,
	SITE_SECCOMP_SEND_LISTENER,
	SITE_SECCOMP_BASE_FILTER,
	SITE_SECCOMP_NO_FILTER,		/* bad_spec: a spec without one */
	SITE_SECCOMP_MAX
};
enum site_exec { SITE_EXEC_EXECVE, SITE_EXEC_MAX };
enum site_helper_exec {
	SITE_HELPER_EXEC_EXECVE,	/* execve, and the descriptors before it */
	SITE_HELPER_EXEC_PDEATHSIG,	/* the parent-death signal, or the parent gone */
	SITE_HELPER_EXEC_FDS,		/* forkserver: the job's descriptors into place */
	SITE_HELPER_EXEC_POOL_SHAPE,	/* a pooled jail: the spec's namespaces or ids differ */
	SITE_HELPER_EXEC_POOL_PREPARED,	/* a pooled jail: the spec needs work before the clone */
	SITE_HELPER_EXEC_POOL_PASS,	/* a pooled jail: its outer process gone when given the job */
	SITE_HELPER_EXEC_POOL_PREFIX,	/* a pooled jail: the job's prefix is not the one built */
	SITE_HELPER_EXEC_MAX
};
enum site_jail_init {
	SITE_JAIL_INIT_WAIT,		/* err: the signal pid 1 died of */
	SITE_JAIL_INIT_WAITPID,		/* the outer process's wait for pid 1 */
	SITE_JAIL_INIT_REAP,		/* pid 1's wait for the target */
	SITE_JAIL_INIT_MAX
};
enum site_tty {
	SITE_TTY_OPEN_PTMX,		/* /dev/pts/ptmx of the jail's devpts */
	SITE_TTY_UNLOCK,		/* TIOCSPTLCK */
	SITE_TTY_PEER,			/* TIOCGPTPEER: the slave */
	SITE_TTY_SEND,			/* the master to hutch */
	SITE_TTY_STDIO,			/* the slave onto 0, 1 and 2 */
	SITE_TTY_CONTROLLING,		/* TIOCSCTTY after setsid */
	SITE_TTY_MAX
};

/* STAGE_USER_COUNTS: the count under /proc/sys/user that failed to open
 * or to be written. */
enum hutch_user_count {
	HUTCH_UC_USER_NS,
	HUTCH_UC_MNT_NS,
	HUTCH_UC_PID_NS,
	HUTCH_UC_NET_NS,
	HUTCH_UC_IPC_NS,
	HUTCH_UC_UTS_NS,
	HUTCH_UC_CGROUP_NS,
	HUTCH_UC_TIME_NS,
	HUTCH_UC_INOTIFY_INSTANCES,
	HUTCH_UC_INOTIFY_WATCHES,
	HUTCH_UC_FANOTIFY_GROUPS,
	HUTCH_UC_FANOTIFY_MARKS,
	HUTCH_USER_COUNT_MAX
};

struct hutch_status {
	uint32_t magic;		/* HUTCH_STATUS_MAGIC */
	uint16_t code;		/* enum hutch_status_code */
	uint16_t stage;		/* enum hutch_stage */
	uint32_t item;		/* a mount index, a limit or a site: see above */
	int32_t err;		/* errno, or 0 */
};
_Static_assert(sizeof(struct hutch_status) == 16, "fixed wire size");
_Static_assert(sizeof(struct hutch_status) <= PIPE_BUF, "one atomic write");

/* Stable names for logs, tests and result messages; NULL when unknown. */
const char *status_stage_name(unsigned stage);
const char *status_code_name(unsigned code);

/* The jail mechanism a setup stage builds ("user_namespaces", "mounts",
 * "landlock", "seccomp", ...), or NULL for a stage about the request or
 * the helper itself (chdir, bind_source, bind_idmap and tty, which a
 * request asks for, spec_read, fork, ...). A setup failure at a
 * mechanism's stage is the host refusing the jail. */
const char *status_stage_mechanism(unsigned stage);

struct spec;

/* The record in words a user can act on, "bind of /srv/data: ENOENT",
 * into buf (always terminated when cap > 0). sp: the spec the helper was
 * sent, for the paths a mount index names; NULL says "mount 3" instead.
 * Returns 0, or -ENOBUFS when the words were cut to fit. Pure code. */
int status_describe(const struct hutch_status *st, const struct spec *sp, char *buf, size_t cap);

/* Check a record read off the pipe: magic, code and stage in range.
 * Returns 0 or -EBADMSG. */
int status_check(const struct hutch_status *st);

#endif
