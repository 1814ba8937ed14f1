/* status.h: the helper's one fixed-size failure record on the status pipe,
 * the stages it names and the codes it carries. Linked by both binaries.
 * Append only: stage and code numbers are stable across releases. */
#ifndef HUTCH_STATUS_H
#define HUTCH_STATUS_H

#include <limits.h>
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
	STAGE_MAX
};

struct hutch_status {
	uint32_t magic;		/* HUTCH_STATUS_MAGIC */
	uint16_t code;		/* enum hutch_status_code */
	uint16_t stage;		/* enum hutch_stage */
	uint32_t item;		/* which mount or limit in the spec, by index */
	int32_t err;		/* errno, or 0 */
};
_Static_assert(sizeof(struct hutch_status) == 16, "fixed wire size");
_Static_assert(sizeof(struct hutch_status) <= PIPE_BUF, "one atomic write");

/* Stable names for logs, tests and result messages; NULL when unknown. */
const char *status_stage_name(unsigned stage);
const char *status_code_name(unsigned code);

/* Check a record read off the pipe: magic, code and stage in range.
 * Returns 0 or -EBADMSG. */
int status_check(const struct hutch_status *st);

#endif
