/* status.c: names and validation for the helper's failure record.
 * Linked by both binaries; pure code. */
#include "config.h"

#include <errno.h>
#include <stddef.h>

#include "status.h"

static const char *const stage_names[STAGE_MAX] = {
	[STAGE_SELF_CHECK] = "self_check",
	[STAGE_SPEC_READ] = "spec_read",
	[STAGE_SPEC_DECODE] = "spec_decode",
	[STAGE_LANDLOCK_CREATE] = "landlock_create",
	[STAGE_SETGROUPS] = "setgroups",
	[STAGE_USERNS] = "user_namespace",
	[STAGE_ID_MAP] = "id_map",
	[STAGE_NAMESPACES] = "namespaces",
	[STAGE_FORK] = "fork",
	[STAGE_PARENT_GONE] = "parent_gone",
	[STAGE_MOUNT_PRIVATE] = "mount_private",
	[STAGE_BIND_SOURCE] = "bind_source",
	[STAGE_ROOT_TMPFS] = "root_tmpfs",
	[STAGE_MOUNT_TARGET] = "mount_target",
	[STAGE_MOUNT] = "mount",
	[STAGE_PROC_VERIFY] = "proc_verify",
	[STAGE_ROOT_READONLY] = "root_readonly",
	[STAGE_PIVOT_ROOT] = "pivot_root",
	[STAGE_HOSTNAME] = "hostname",
	[STAGE_LOOPBACK] = "loopback",
	[STAGE_LANDLOCK_RULES] = "landlock_rules",
	[STAGE_RLIMIT] = "rlimit",
	[STAGE_DROP_IDS] = "drop_ids",
	[STAGE_DROP_CAPS] = "drop_caps",
	[STAGE_NO_NEW_PRIVS] = "no_new_privs",
	[STAGE_LANDLOCK_ENFORCE] = "landlock_enforce",
	[STAGE_CHDIR] = "chdir",
	[STAGE_CWD_CHECK] = "cwd_check",
	[STAGE_CLOSE_FDS] = "close_fds",
	[STAGE_SETSID] = "setsid",
	[STAGE_SECCOMP] = "seccomp",
	[STAGE_EXEC] = "exec",
	[STAGE_HELPER_EXEC] = "helper_exec",
	[STAGE_JAIL_INIT] = "jail_init",
	[STAGE_USER_COUNTS] = "user_counts",
};

static const char *const code_names[HUTCH_STATUS_CODE_MAX] = {
	[HUTCH_SETUP_FAILED] = "setup_failed",
	[HUTCH_EXEC_FAILED] = "exec_failed",
	[HUTCH_MECH_UNAVAILABLE] = "mechanism_unavailable",
	[HUTCH_PRIVILEGED_BINARY] = "privileged_binary",
	[HUTCH_BAD_SPEC] = "bad_spec",
	[HUTCH_HELPER_CRASHED] = "helper_crashed",
};

const char *status_stage_name(unsigned stage)
{
	return stage < STAGE_MAX ? stage_names[stage] : NULL;
}

const char *status_code_name(unsigned code)
{
	return code < HUTCH_STATUS_CODE_MAX ? code_names[code] : NULL;
}

int status_check(const struct hutch_status *st)
{
	if (st->magic != HUTCH_STATUS_MAGIC)
		return -EBADMSG;
	if (!status_code_name(st->code) || !status_stage_name(st->stage))
		return -EBADMSG;
	if (st->err < 0)
		return -EBADMSG;
	return 0;
}
