/* user-counts.c (phase 2, pid 1, around pivot_root): bound the per-user kernel
 * counts of the jail's user namespace. The kernel charges inotify
 * instances and watches, pending signals and namespaces to the user that
 * owns the namespace chain, that is to the caller on the host: unbounded,
 * a jail would use up the caller's quota (root's, for a root caller) and
 * make its other programs fail. A user namespace's own counts start
 * unlimited and can only be lowered by a process with CAP_SYS_RESOURCE in
 * it, which pid 1 still has here. The tables under /proc/sys/user are
 * those of the writer's user namespace, whichever procfs is mounted, so
 * they are opened through the host's /proc before pivot_root (the jail
 * may have no /proc), last thing of the old root (rootfs.c), and written
 * after the mounts: those make detached mount namespaces, which count
 * too.
 *
 * No new namespace of any kind can be made in the jail after this (the
 * counts are 0), whatever seccomp allows. The inotify bounds are the
 * spec's: the frontend sizes them so that all the jails the caller may
 * run at once leave it half its own quota (hutch(1), "Per-user counts").
 * Async-signal-safe. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "fd-util.h"
#include "helper.h"

struct count {
	const char *file;	/* under /proc/sys/user/ */
	const char *value;	/* NULL: the spec's user cap (spec.h) */
	int optional;		/* newer than the kernels hutch needs */
	int cap;		/* which, when value is NULL */
};

/* In the order of enum hutch_user_count (the record's item). */
static const struct count counts[HUTCH_USER_COUNT_MAX] = {
	[HUTCH_UC_USER_NS] = { "max_user_namespaces", "0", 0 },
	[HUTCH_UC_MNT_NS] = { "max_mnt_namespaces", "0", 0 },
	[HUTCH_UC_PID_NS] = { "max_pid_namespaces", "0", 0 },
	[HUTCH_UC_NET_NS] = { "max_net_namespaces", "0", 0 },
	[HUTCH_UC_IPC_NS] = { "max_ipc_namespaces", "0", 0 },
	[HUTCH_UC_UTS_NS] = { "max_uts_namespaces", "0", 0 },
	[HUTCH_UC_CGROUP_NS] = { "max_cgroup_namespaces", "0", 0 },
	[HUTCH_UC_TIME_NS] = { "max_time_namespaces", "0", 1 },
	[HUTCH_UC_INOTIFY_INSTANCES] = { "max_inotify_instances", NULL, 0,
					  HUTCH_UCAP_INOTIFY_INSTANCES },
	[HUTCH_UC_INOTIFY_WATCHES] = { "max_inotify_watches", NULL, 0, HUTCH_UCAP_INOTIFY_WATCHES },
	[HUTCH_UC_FANOTIFY_GROUPS] = { "max_fanotify_groups", "0", 1 },
	[HUTCH_UC_FANOTIFY_MARKS] = { "max_fanotify_marks", "0", 1 },
};

static int count_fd[HUTCH_USER_COUNT_MAX];

void user_counts_open(void)
{
	static char path[64];

	for (int i = 0; i < HUTCH_USER_COUNT_MAX; i++) {
		const struct count *c = &counts[i];

		memcpy(path, "/proc/sys/user/", 15);
		memcpy(path + 15, c->file, strlen(c->file) + 1);
		count_fd[i] = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
		if (count_fd[i] < 0 && !(errno == ENOENT && c->optional))
			fail(STAGE_USER_COUNTS, (uint32_t)i, errno);
	}
}

void user_counts_keep(int first)
{
	for (int i = 0; i < HUTCH_USER_COUNT_MAX; i++) {
		if (count_fd[i] < 0 || count_fd[i] == first + i)
			continue;
		if (dup3(count_fd[i], first + i, O_CLOEXEC) < 0)
			fail(STAGE_USER_COUNTS, (uint32_t)i, errno);
		close(count_fd[i]);
		count_fd[i] = first + i;
	}
}

void limit_user_counts(const struct spec *sp)
{
	for (int i = 0; i < HUTCH_USER_COUNT_MAX; i++) {
		char num[12];
		const char *v = counts[i].value;
		int r;

		if (count_fd[i] < 0)
			continue; /* optional and absent */
		if (!v) { /* the decoder kept it within an int */
			*fmt_u32(num, (uint32_t)sp->user_cap[counts[i].cap]) = '\0';
			v = num;
		}
		r = fd_write_all(count_fd[i], v, strlen(v));
		close(count_fd[i]);
		if (r < 0)
			fail(STAGE_USER_COUNTS, (uint32_t)i, -r);
	}
}
