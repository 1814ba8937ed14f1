/* status.c: names, validation and words for the helper's failure record.
 * Linked by both binaries (the helper calls none of it); pure code. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "spec.h"
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
	[STAGE_BIND_IDMAP] = "bind_idmap",
	[STAGE_TTY] = "tty",
	[STAGE_OVERLAY] = "overlay",
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

/* Names as `hutch probe` and hutch(1) use them. */
static const char *const stage_mechanisms[STAGE_MAX] = {
	[STAGE_LANDLOCK_CREATE] = "landlock",
	[STAGE_SETGROUPS] = "user_namespaces",
	[STAGE_USERNS] = "user_namespaces",
	[STAGE_ID_MAP] = "user_namespaces",
	[STAGE_USER_COUNTS] = "user_namespaces",
	[STAGE_NAMESPACES] = "namespaces",
	[STAGE_MOUNT_PRIVATE] = "mounts",
	[STAGE_ROOT_TMPFS] = "mounts",
	[STAGE_MOUNT] = "mounts",
	[STAGE_PROC_VERIFY] = "mounts",
	[STAGE_ROOT_READONLY] = "mounts",
	[STAGE_PIVOT_ROOT] = "mounts",
	[STAGE_HOSTNAME] = "uts_namespace",
	[STAGE_LOOPBACK] = "network_namespace",
	[STAGE_LANDLOCK_RULES] = "landlock",
	[STAGE_LANDLOCK_ENFORCE] = "landlock",
	[STAGE_RLIMIT] = "rlimits",
	[STAGE_DROP_IDS] = "privileges",
	[STAGE_DROP_CAPS] = "privileges",
	[STAGE_NO_NEW_PRIVS] = "privileges",
	[STAGE_SECCOMP] = "seccomp",
	[STAGE_OVERLAY] = "overlay",
};

const char *status_stage_mechanism(unsigned stage)
{
	return stage < STAGE_MAX ? stage_mechanisms[stage] : NULL;
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

/* ---- words ---- */

_Static_assert((int)SITE_RLIMIT_CORE == (int)HUTCH_RLIM_COUNT,
	       "a new spec rlimit needs a site number of its own: 5 to 7 have shipped");

/* What each site of a stage was doing, by item; a NULL is a bug the unit
 * test finds. Stages whose item is an index are put into words below. */
static const char *const self_check_sites[SITE_SELF_CHECK_MAX] = {
	[SITE_SELF_CHECK_SECURE] = "checking hutch-exec's AT_SECURE and ids",
	[SITE_SELF_CHECK_SETID_BITS] = "checking hutch-exec for set-id bits",
	[SITE_SELF_CHECK_FILE_CAPS] = "checking hutch-exec for file capabilities",
};
static const char *const spec_read_sites[SITE_SPEC_READ_MAX] = {
	[SITE_SPEC_READ_HEADER] = "reading the spec's header",
	[SITE_SPEC_READ_BODY] = "reading the spec's body",
};
static const char *const spec_decode_sites[SITE_SPEC_DECODE_MAX] = {
	[SITE_SPEC_DECODE_HEADER] = "checking the spec's header",
	[SITE_SPEC_DECODE_TRAILING] = "checking for bytes after the spec",
	[SITE_SPEC_DECODE_BODY] = "decoding the spec",
};
static const char *const landlock_create_sites[SITE_LANDLOCK_CREATE_MAX] = {
	[SITE_LANDLOCK_CREATE_ABI] = "finding Landlock, which the policy requires",
	[SITE_LANDLOCK_CREATE_RULESET] = "creating the Landlock ruleset",
};
static const char *const setgroups_sites[SITE_SETGROUPS_MAX] = {
	[SITE_SETGROUPS_DROP] = "dropping root's supplementary groups",
};
static const char *const userns_sites[SITE_USERNS_MAX] = {
	[SITE_USERNS_CLONE] = "creating the jail's user namespace",
	[SITE_USERNS_OWNER] = "making the jail's host user the owner of its user namespace",
	[SITE_USERNS_OWNER_BACK] = "taking back root's ids after creating the jail",
};
static const char *const id_map_sites[SITE_ID_MAP_MAX] = {
	[SITE_ID_MAP_SETGROUPS] = "writing setgroups",
	[SITE_ID_MAP_UID] = "writing uid_map",
	[SITE_ID_MAP_GID] = "writing gid_map",
};
static const char *const fork_sites[SITE_FORK_MAX] = {
	[SITE_FORK_MIRROR_PIPE] = "making the mirror pipe",
	[SITE_FORK_MIRROR_FD] = "placing the mirror pipe",
	[SITE_FORK_TARGET] = "forking the command",
	[SITE_FORK_UNUSED_3] = "forking",
	[SITE_FORK_SYNC_PIPE] = "making the id-map pipe",
	[SITE_FORK_SYNC_RELEASE] = "releasing pid 1 after the id maps",
	[SITE_FORK_MIRROR_REOPEN] = "placing the mirror pipe's read end",
};
static const char *const parent_gone_sites[SITE_PARENT_GONE_MAX] = {
	[SITE_PARENT_GONE_PDEATHSIG] = "arming the parent-death signal",
	[SITE_PARENT_GONE_CHECK] = "checking that the outer helper lives",
};
static const char *const mount_private_sites[SITE_MOUNT_PRIVATE_MAX] = {
	[SITE_MOUNT_PRIVATE_PROPAGATION] = "making mount propagation private",
	[SITE_MOUNT_PRIVATE_FS_IDS] = "taking the jail user's filesystem ids",
};
static const char *const root_tmpfs_sites[SITE_ROOT_TMPFS_MAX] = {
	[SITE_ROOT_TMPFS_MOUNT] = "mounting the root tmpfs",
	[SITE_ROOT_TMPFS_OPEN] = "opening the root tmpfs",
};
static const char *const root_readonly_sites[SITE_ROOT_READONLY_MAX] = {
	[SITE_ROOT_READONLY_ROOT] = "making the root read-only",
};
static const char *const pivot_root_sites[SITE_PIVOT_ROOT_MAX] = {
	[SITE_PIVOT_ROOT_PIVOT] = "pivoting into the new root",
	[SITE_PIVOT_ROOT_DETACH] = "detaching the old root",
	[SITE_PIVOT_ROOT_CHDIR] = "changing to the new root",
};
static const char *const hostname_sites[SITE_HOSTNAME_MAX] = {
	[SITE_HOSTNAME_SET] = "setting the hostname",
};
static const char *const loopback_sites[SITE_LOOPBACK_MAX] = {
	[SITE_LOOPBACK_SOCKET] = "opening a socket for lo",
	[SITE_LOOPBACK_GET_FLAGS] = "reading the flags of lo",
	[SITE_LOOPBACK_UP] = "bringing lo up",
	[SITE_LOOPBACK_PROXY_SOCKET] = "opening the proxy's socket",
	[SITE_LOOPBACK_PROXY_BIND] = "binding the proxy's socket to 127.0.0.1:3128",
	[SITE_LOOPBACK_PROXY_LISTEN] = "listening on the proxy's socket",
	[SITE_LOOPBACK_PROXY_SEND] = "sending the proxy's socket to hutch",
};
static const char *const rlimit_sites[SITE_RLIMIT_MAX] = {
	[HUTCH_RLIM_AS] = "setting RLIMIT_DATA",
	[HUTCH_RLIM_CPU] = "setting RLIMIT_CPU",
	[HUTCH_RLIM_FSIZE] = "setting RLIMIT_FSIZE",
	[HUTCH_RLIM_NOFILE] = "setting RLIMIT_NOFILE",
	[HUTCH_RLIM_NPROC] = "setting RLIMIT_NPROC",
	[SITE_RLIMIT_CORE] = "setting RLIMIT_CORE",
	[SITE_RLIMIT_SIGPENDING] = "setting RLIMIT_SIGPENDING",
	[SITE_RLIMIT_MSGQUEUE] = "setting RLIMIT_MSGQUEUE",
	[SITE_RLIMIT_AS] = "setting RLIMIT_AS",
};
static const char *const drop_ids_sites[SITE_DROP_IDS_MAX] = {
	[SITE_DROP_IDS_GID] = "setting the group ids",
	[SITE_DROP_IDS_UID] = "setting the user ids",
};
static const char *const drop_caps_sites[SITE_DROP_CAPS_MAX] = {
	[SITE_DROP_CAPS_AMBIENT] = "clearing the ambient capabilities",
	[SITE_DROP_CAPS_APPLY] = "clearing the capability sets",
	[SITE_DROP_CAPS_READ] = "reading the capability sets back",
	[SITE_DROP_CAPS_LEFT] = "checking that no capability is left",
	[SITE_DROP_CAPS_BOUNDING_LEFT] = "checking that the bounding set is empty",
};
static const char *const no_new_privs_sites[SITE_NO_NEW_PRIVS_MAX] = {
	[SITE_NO_NEW_PRIVS_SET] = "setting no_new_privs",
	[SITE_NO_NEW_PRIVS_DUMPABLE] = "making the process not dumpable",
};
static const char *const landlock_enforce_sites[SITE_LANDLOCK_ENFORCE_MAX] = {
	[SITE_LANDLOCK_ENFORCE_RESTRICT] = "enforcing the Landlock ruleset",
};
static const char *const chdir_sites[SITE_CHDIR_MAX] = {
	[SITE_CHDIR_CWD] = "changing to the working directory",
};
static const char *const cwd_check_sites[SITE_CWD_CHECK_MAX] = {
	[SITE_CWD_CHECK_GETCWD] = "checking the working directory reached",
};
static const char *const close_fds_sites[SITE_CLOSE_FDS_MAX] = {
	[SITE_CLOSE_FDS_RANGE] = "closing the other descriptors",
};
static const char *const setsid_sites[SITE_SETSID_MAX] = {
	[SITE_SETSID_SESSION] = "starting a new session",
};
static const char *const seccomp_sites[SITE_SECCOMP_MAX] = {
	[SITE_SECCOMP_SPEC_FILTER] = "loading the seccomp filter",
	[SITE_SECCOMP_SEND_LISTENER] = "sending the seccomp listener",
	[SITE_SECCOMP_BASE_FILTER] = "loading the built-in seccomp filter",
	[SITE_SECCOMP_NO_FILTER] = "checking that the spec has a seccomp filter",
};
static const char *const exec_sites[SITE_EXEC_MAX] = {
	[SITE_EXEC_EXECVE] = "executing the command",
};
static const char *const helper_exec_sites[SITE_HELPER_EXEC_MAX] = {
	[SITE_HELPER_EXEC_EXECVE] = "executing hutch-exec",
	[SITE_HELPER_EXEC_PDEATHSIG] = "arming hutch-exec's parent-death signal",
	[SITE_HELPER_EXEC_FDS] = "placing hutch-exec's descriptors",
	[SITE_HELPER_EXEC_POOL_SHAPE] =
		"checking that a pooled jail's namespaces and ids are the spec's",
	[SITE_HELPER_EXEC_POOL_PREPARED] =
		"checking that the spec needs nothing done before a pooled jail's clone",
	[SITE_HELPER_EXEC_POOL_PASS] = "passing the job to a pooled jail",
	[SITE_HELPER_EXEC_POOL_PREFIX] =
		"checking that the spec's first mounts are the ones the pooled jail built",
};
static const char *const jail_init_sites[SITE_JAIL_INIT_MAX] = {
	[SITE_JAIL_INIT_WAIT] = "pid 1 of the jail",
	[SITE_JAIL_INIT_WAITPID] = "waiting for pid 1 of the jail",
	[SITE_JAIL_INIT_REAP] = "pid 1 waiting for the command",
};
static const char *const tty_sites[SITE_TTY_MAX] = {
	[SITE_TTY_OPEN_PTMX] = "opening the jail's /dev/pts/ptmx for --tty",
	[SITE_TTY_UNLOCK] = "unlocking the jail's pty for --tty",
	[SITE_TTY_PEER] = "opening the jail's pty slave for --tty",
	[SITE_TTY_SEND] = "sending the jail's pty to hutch for --tty",
	[SITE_TTY_STDIO] = "making the jail's pty the command's standard streams",
	[SITE_TTY_CONTROLLING] = "making the jail's pty the controlling terminal",
};

#define SITES(a) { a, sizeof(a) / sizeof(a[0]) }
static const struct {
	const char *const *words;
	uint32_t n;
} stage_sites[STAGE_MAX] = {
	[STAGE_SELF_CHECK] = SITES(self_check_sites),
	[STAGE_SPEC_READ] = SITES(spec_read_sites),
	[STAGE_SPEC_DECODE] = SITES(spec_decode_sites),
	[STAGE_LANDLOCK_CREATE] = SITES(landlock_create_sites),
	[STAGE_SETGROUPS] = SITES(setgroups_sites),
	[STAGE_USERNS] = SITES(userns_sites),
	[STAGE_ID_MAP] = SITES(id_map_sites),
	[STAGE_FORK] = SITES(fork_sites),
	[STAGE_PARENT_GONE] = SITES(parent_gone_sites),
	[STAGE_MOUNT_PRIVATE] = SITES(mount_private_sites),
	[STAGE_ROOT_TMPFS] = SITES(root_tmpfs_sites),
	[STAGE_ROOT_READONLY] = SITES(root_readonly_sites),
	[STAGE_PIVOT_ROOT] = SITES(pivot_root_sites),
	[STAGE_HOSTNAME] = SITES(hostname_sites),
	[STAGE_LOOPBACK] = SITES(loopback_sites),
	[STAGE_RLIMIT] = SITES(rlimit_sites),
	[STAGE_DROP_IDS] = SITES(drop_ids_sites),
	[STAGE_DROP_CAPS] = SITES(drop_caps_sites),
	[STAGE_NO_NEW_PRIVS] = SITES(no_new_privs_sites),
	[STAGE_LANDLOCK_ENFORCE] = SITES(landlock_enforce_sites),
	[STAGE_CHDIR] = SITES(chdir_sites),
	[STAGE_CWD_CHECK] = SITES(cwd_check_sites),
	[STAGE_CLOSE_FDS] = SITES(close_fds_sites),
	[STAGE_SETSID] = SITES(setsid_sites),
	[STAGE_SECCOMP] = SITES(seccomp_sites),
	[STAGE_EXEC] = SITES(exec_sites),
	[STAGE_HELPER_EXEC] = SITES(helper_exec_sites),
	[STAGE_JAIL_INIT] = SITES(jail_init_sites),
	[STAGE_TTY] = SITES(tty_sites),
};

/* The user counts as the files under /proc/sys/user the helper writes. */
static const char *const user_count_files[HUTCH_USER_COUNT_MAX] = {
	[HUTCH_UC_USER_NS] = "max_user_namespaces",
	[HUTCH_UC_MNT_NS] = "max_mnt_namespaces",
	[HUTCH_UC_PID_NS] = "max_pid_namespaces",
	[HUTCH_UC_NET_NS] = "max_net_namespaces",
	[HUTCH_UC_IPC_NS] = "max_ipc_namespaces",
	[HUTCH_UC_UTS_NS] = "max_uts_namespaces",
	[HUTCH_UC_CGROUP_NS] = "max_cgroup_namespaces",
	[HUTCH_UC_TIME_NS] = "max_time_namespaces",
	[HUTCH_UC_INOTIFY_INSTANCES] = "max_inotify_instances",
	[HUTCH_UC_INOTIFY_WATCHES] = "max_inotify_watches",
	[HUTCH_UC_FANOTIFY_GROUPS] = "max_fanotify_groups",
	[HUTCH_UC_FANOTIFY_MARKS] = "max_fanotify_marks",
};

/* An output buffer that keeps its terminator and notes a cut. */
struct words {
	char *buf;
	size_t cap, len;
	int cut;
};

static void say(struct words *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct words *w, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (w->len >= w->cap) {
		w->cut = 1;
		return;
	}
	va_start(ap, fmt);
	n = vsnprintf(w->buf + w->len, w->cap - w->len, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= w->cap - w->len) {
		w->len = w->cap;
		w->cut = 1;
		return;
	}
	w->len += (size_t)n;
}

/* A path from the spec, control characters shown as '?': the words may
 * reach a terminal or a log line. */
static void say_path(struct words *w, const char *path)
{
	for (const char *p = path; *p; p++)
		say(w, "%c", (unsigned char)*p < 0x20 || *p == 0x7f ? '?' : *p);
}

/* The mount item i names: its path, or "mount I" without the spec. */
static void say_mount(struct words *w, const struct spec *sp, uint32_t i, int source)
{
	if (!sp || i >= sp->n_mounts)
		say(w, "mount %u", (unsigned)i);
	else
		say_path(w, source ? sp->mounts[i].source : sp->mounts[i].target);
}

static const struct spec_mount *mount_at(const struct spec *sp, uint32_t i)
{
	return sp && i < sp->n_mounts ? &sp->mounts[i] : NULL;
}

/* STAGE_MOUNT: what was being mounted at the target, by kind. */
static void say_mount_kind(struct words *w, const struct spec *sp, uint32_t i)
{
	const struct spec_mount *m = mount_at(sp, i);

	switch (m ? (enum hutch_mount_kind)m->kind : HUTCH_MOUNT_KIND_MAX) {
	case HUTCH_MOUNT_BIND:
		say(w, "bind of ");
		say_mount(w, sp, i, 1);
		say(w, " at ");
		break;
	case HUTCH_MOUNT_TMPFS:
		say(w, "mount of tmpfs at ");
		break;
	case HUTCH_MOUNT_PROC:
		say(w, "mount of proc at ");
		break;
	case HUTCH_MOUNT_SYMLINK:
		say(w, "creating the symbolic link ");
		break;
	case HUTCH_MOUNT_FILE:
		say(w, "writing the file ");
		break;
	case HUTCH_MOUNT_DIR:
		say(w, "creating the directory ");
		break;
	case HUTCH_MOUNT_DEVPTS:
		say(w, "mount of devpts at ");
		break;
	case HUTCH_MOUNT_OVERLAY:
		say(w, "overlay of ");
		say_mount(w, sp, i, 1);
		say(w, " at ");
		break;
	case HUTCH_MOUNT_HIDE:
		say(w, "hiding ");
		break;
	case HUTCH_MOUNT_READONLY:
		say(w, "making read-only ");
		break;
	case HUTCH_MOUNT_PIN:
		say(w, "pinning ");
		break;
	case HUTCH_MOUNT_KIND_MAX:
		say(w, "mounting ");
		break;
	}
	say_mount(w, sp, i, 0);
}

/* Stages whose item is a mount index (or, for two, close to one).
 * Returns 0 when the stage is not one of them. */
static int say_indexed(struct words *w, const struct hutch_status *st, const struct spec *sp)
{
	uint32_t i = st->item;

	switch (st->stage) { /* a number off the wire: default is real */
	case STAGE_BIND_SOURCE:
		say(w, "bind of ");
		say_mount(w, sp, i, 1);
		return 1;
	case STAGE_BIND_IDMAP:
		say(w, "idmapped mount (mount_setattr MOUNT_ATTR_IDMAP) for a root caller's --rw "
		       "bind of ");
		say_mount(w, sp, i, 1);
		return 1;
	case STAGE_MOUNT_TARGET:
		say(w, "creating the mount point for ");
		say_mount(w, sp, i, 0);
		return 1;
	case STAGE_MOUNT:
	case STAGE_OVERLAY:
		say_mount_kind(w, sp, i);
		return 1;
	case STAGE_PROC_VERIFY:
		say(w, "checking that a procfs is at ");
		say_mount(w, sp, i, 0);
		return 1;
	case STAGE_LANDLOCK_RULES:
		say(w, "adding the Landlock rule for ");
		if (sp && i == sp->n_mounts)
			say(w, "/");
		else
			say_mount(w, sp, i, 0);
		return 1;
	default:
		return 0;
	}
}

/* Stages whose item is a site, or a number with a meaning of its own. */
static void say_site(struct words *w, const struct hutch_status *st, const struct spec *sp)
{
	unsigned stage = st->stage;
	uint32_t i = st->item;
	const char *words = stage < STAGE_MAX && i < stage_sites[stage].n
				    ? stage_sites[stage].words[i] : NULL;

	if (stage == STAGE_ROOT_READONLY && i >= SITE_ROOT_READONLY_MOUNTS) {
		say(w, "making ");
		say_mount(w, sp, i - SITE_ROOT_READONLY_MOUNTS, 0);
		say(w, " read-only");
	} else if (stage == STAGE_DROP_CAPS && i < SITE_DROP_CAPS_AMBIENT) {
		say(w, "dropping capability %u from the bounding set",
		    (unsigned)(i - SITE_DROP_CAPS_BOUNDING));
	} else if (stage == STAGE_USER_COUNTS && i < HUTCH_USER_COUNT_MAX) {
		say(w, "bounding %s", user_count_files[i]);
	} else if (words) {
		say(w, "%s", words);
		if ((stage == STAGE_CHDIR || stage == STAGE_CWD_CHECK) && sp && sp->cwd) {
			say(w, " ");
			say_path(w, sp->cwd);
		}
	} else {
		const char *name = status_stage_name(stage);

		say(w, "stage %s, item %u", name ? name : "unknown", (unsigned)i);
	}
}

/* Why: the errno's name, the signal that killed pid 1, or the code. */
static void say_why(struct words *w, const struct hutch_status *st)
{
	const char *name;

	if (st->code == HUTCH_HELPER_CRASHED) {
		name = st->err > 0 ? sigabbrev_np(st->err) : NULL;
		if (name)
			say(w, " died of SIG%s", name);
		else if (st->err > 0)
			say(w, " died of signal %d", (int)st->err);
		else
			say(w, " exited before the command ran");
		return;
	}
	name = st->err > 0 ? strerrorname_np(st->err) : NULL;
	if (name)
		say(w, ": %s", name);
	else if (st->err != 0)
		say(w, ": errno %d", (int)st->err);
	else if (st->code != HUTCH_SETUP_FAILED && (name = status_code_name(st->code)))
		say(w, ": %s", name);
}

int status_describe(const struct hutch_status *st, const struct spec *sp, char *buf, size_t cap)
{
	struct words w = { .buf = buf, .cap = cap };

	if (cap == 0)
		return -ENOBUFS;
	buf[0] = '\0';
	if (!say_indexed(&w, st, sp))
		say_site(&w, st, sp);
	say_why(&w, st);
	return w.cut ? -ENOBUFS : 0;
}
