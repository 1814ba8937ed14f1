/* cgroup.c: see cgroup.h. Our own cgroup comes from /proc/self/cgroup;
 * it is ours to arrange when systemd delegated it (cgroup-delegate.c).
 * cgroup v2 enables controllers for children only in a cgroup that holds
 * no process (the no-internal-process rule; systemd before 254 has no
 * DelegateSubgroup= to do this for us), so the processes of the delegated
 * cgroup move into its leaf "supervisor" and the runs' cgroups are made
 * beside it. Frontend only. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#include "cleanup.h"
#include "fd-util.h"
#include "jail/cgroup-delegate.h"
#include "jail/cgroup.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

#define RUN_PREFIX "hutch-"

static int read_small(const char *dir, const char *name, char *buf, size_t cap)
{
	char path[PATH_MAX + 64];
	_cleanup_close_ int fd = -1;
	long n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = fd_read_full(fd, buf, cap - 1);
	if (n < 0)
		return (int)n;
	buf[n] = '\0';
	return 0;
}

/* O_CREAT: on cgroupfs the files are there (or creating them fails, which
 * is an error like any other); in a fake tree for tests they are made. */
static int write_small(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX + 64];
	_cleanup_close_ int fd = -1;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CLOEXEC | O_TRUNC | O_CREAT, 0644);
	if (fd < 0)
		return -errno;
	return fd_write_all(fd, text, strlen(text));
}

bool cgroup_list_has(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\n' || p[n] == '\0'))
			return true;
	return false;
}

int cgroup_self_path(const char *text, char *ret, size_t cap)
{
	const char *rel;
	size_t len;

	for (rel = text; (rel = strstr(rel, "0::")); rel += 3)
		if (rel == text || rel[-1] == '\n')
			break;
	if (!rel || rel[3] != '/')
		return -ENOENT;
	rel += 3;
	len = strcspn(rel, "\n");
	/* " (deleted)" or a path with ".." is no place to make cgroups in. */
	if (len >= cap || memchr(rel, ' ', len) || strstr(rel, "/../") ||
	    (len >= 3 && strncmp(rel + len - 3, "/..", 3) == 0))
		return -EINVAL;
	memcpy(ret, rel, len);
	ret[len] = '\0';
	return 0;
}

/* Our own cgroup directory on the unified hierarchy at /sys/fs/cgroup;
 * -EMEDIUMTYPE when there is only a hybrid one at /sys/fs/cgroup/unified,
 * which cannot carry memory and pids (cgroup v1 holds them). */
static int own_cgroup_dir(char *ret, size_t cap)
{
	char self[PATH_MAX], rel[PATH_MAX];
	struct statfs sfs;
	int r = read_small("/proc/self", "cgroup", self, sizeof(self));

	if (r < 0 || (r = cgroup_self_path(self, rel, sizeof(rel))) < 0)
		return r;
	if (statfs("/sys/fs/cgroup", &sfs) < 0 || sfs.f_type != CGROUP2_SUPER_MAGIC)
		return statfs("/sys/fs/cgroup/unified", &sfs) == 0 &&
				       sfs.f_type == CGROUP2_SUPER_MAGIC
			       ? -EMEDIUMTYPE
			       : -ENOENT;
	if ((size_t)snprintf(ret, cap, "/sys/fs/cgroup%s", strcmp(rel, "/") ? rel : "") >= cap)
		return -ENAMETOOLONG;
	return 0;
}

/* Why there is no own cgroup to use. */
static int no_hierarchy(int r, char *why, size_t cap)
{
	char ctl[256] = "";

	if (r != -EMEDIUMTYPE)
		return snprintf(why, cap, "cgroup: no cgroup v2 hierarchy holds this process "
				"(mount cgroup2 at /sys/fs/cgroup with the memory and pids "
				"controllers)"), -1;
	(void)read_small("/sys/fs/cgroup/unified", "cgroup.controllers", ctl, sizeof(ctl));
	return snprintf(why, cap, "cgroup: only a hybrid cgroup v2 hierarchy here, "
			"/sys/fs/cgroup/unified, which lacks the memory and pids controllers "
			"(it carries only: %.*s; boot with systemd.unified_cgroup_hierarchy=1)",
			(int)strcspn(ctl, "\n"), ctl), -1;
}

/* dir was delegated to us: systemd's mark, or, under a user manager
 * (which marks nothing), the unit's Delegate=. */
static bool delegated(const char *dir)
{
	const char *unit = strrchr(dir, '/');

	if (cgroup_marked_delegated(dir))
		return true;
	return geteuid() != 0 && unit && strstr(dir, "/user@") &&
	       cgroup_user_unit_delegated(unit + 1);
}

/* Where the runs go, from our own cgroup: the delegated cgroup we are
 * in, or the one whose leaf we are in already. */
static int find_base(const char *own, struct cgroup_info *ret, char *why, size_t cap)
{
	const char *slash = strrchr(own, '/');
	char parent[PATH_MAX];

	snprintf(parent, sizeof(parent), "%.*s", (int)(slash - own), own);
	if (strcmp(own, "/sys/fs/cgroup") == 0) {
		return snprintf(why, cap, "cgroup: hutch runs in the root cgroup, which is the "
				"host's, not delegated: run hutch in a unit with Delegate=yes, "
				"e.g. under systemd-run [--user] -p Delegate=yes"), -1;
	} else if (strcmp(slash + 1, CGROUP_LEAF) == 0 && delegated(parent)) {
		snprintf(ret->path, sizeof(ret->path), "%s", parent); /* arranged before */
	} else if (delegated(own)) {
		snprintf(ret->path, sizeof(ret->path), "%s", own);
		ret->move = true;
	} else {
		return snprintf(why, cap, "cgroup: %s is not delegated (no Delegate=yes): run "
				"hutch in a unit with Delegate=yes, e.g. under systemd-run "
				"[--user] -p Delegate=yes", own), -1;
	}
	return 0;
}

static int detect(struct cgroup_info *ret, char *why, size_t cap)
{
	const char *override = getenv("HUTCH_CGROUP_ROOT");
	char ctl[512], sub[512], own[PATH_MAX];
	int r;

	memset(ret, 0, sizeof(*ret));
	if (override && override[0] == '/')
		snprintf(ret->path, sizeof(ret->path), "%s", override);
	else if ((r = own_cgroup_dir(own, sizeof(own))) < 0)
		return no_hierarchy(r, why, cap);
	else if (find_base(own, ret, why, cap) < 0)
		return -1;
	if (read_small(ret->path, "cgroup.controllers", ctl, sizeof(ctl)) < 0)
		return snprintf(why, cap, "cgroup: %s is not a cgroup v2 directory", ret->path), -1;
	if (!cgroup_list_has(ctl, "memory") || !cgroup_list_has(ctl, "pids"))
		return snprintf(why, cap, "cgroup: %s lacks the memory and pids controllers "
				"(cgroup v2 here carries only: %.*s; delegate them to its unit, "
				"e.g. Delegate=memory pids)", ret->path,
				(int)strcspn(ctl, "\n"), ctl), -1;
	if (access(ret->path, W_OK) < 0)
		return snprintf(why, cap, "cgroup: %s is not delegated to this user "
				"(run under a systemd unit with Delegate=yes)", ret->path), -1;
	ret->enable = read_small(ret->path, "cgroup.subtree_control", sub, sizeof(sub)) < 0 ||
		      !cgroup_list_has(sub, "memory") || !cgroup_list_has(sub, "pids");
	if (override && override[0] == '/' && ret->enable) /* as given: not ours to change */
		return snprintf(why, cap, "cgroup: memory and pids are not enabled for children of "
				"%s (write \"+memory +pids\" to its cgroup.subtree_control)",
				ret->path), -1;
	return 0;
}

/* Every process of from into to/cgroup.procs, until from holds none. */
static int move_all(const char *from, const char *to)
{
	char procs[4096];
	int r = 0;

	for (int round = 0; round < 8; round++) {
		bool moved = false;

		if ((r = read_small(from, "cgroup.procs", procs, sizeof(procs))) < 0)
			return r;
		for (char *p = procs, *end; *p; p = end) {
			long pid = strtol(p, &end, 10);
			char num[24];

			if (end == p)
				break;
			snprintf(num, sizeof(num), "%ld", pid);
			r = write_small(to, "cgroup.procs", num);
			if (r < 0 && r != -ESRCH) /* a process that exited meanwhile is fine */
				return r;
			moved = true;
		}
		if (!moved)
			return 0;
	}
	return -EBUSY; /* still forking into it */
}

/* Runs' cgroups whose hutch is gone (killed before it could remove them):
 * removed when empty, emptied first when not. */
static void remove_stale(const char *base)
{
	DIR *d = opendir(base);
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char dir[PATH_MAX];
		long pid;

		if (strncmp(e->d_name, RUN_PREFIX, strlen(RUN_PREFIX)) != 0)
			continue;
		pid = strtol(e->d_name + strlen(RUN_PREFIX), NULL, 10);
		if (pid <= 0 || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		if ((size_t)snprintf(dir, sizeof(dir), "%.3800s/%.200s", base, e->d_name) >= sizeof(dir))
			continue;
		if (rmdir(dir) < 0 && errno == EBUSY)
			(void)write_small(dir, "cgroup.kill", "1");
	}
	closedir(d);
}

int cgroup_arrange(const struct cgroup_info *ci, char *why, size_t cap)
{
	char leaf[PATH_MAX + 16];
	int r = 0;

	snprintf(leaf, sizeof(leaf), "%s/" CGROUP_LEAF, ci->path);
	if (ci->move) {
		if (mkdir(leaf, 0755) < 0 && errno != EEXIST)
			return snprintf(why, cap, "cgroup: cannot create %s (%s)", leaf,
					strerrorname_np(errno)), -1;
		if ((r = move_all(ci->path, leaf)) < 0)
			return snprintf(why, cap, "cgroup: cannot move the processes of %s into %s "
					"(%s)", ci->path, leaf, strerrorname_np(-r)), -1;
	}
	for (int i = 0; ci->enable && i < 4; i++) {
		r = write_small(ci->path, "cgroup.subtree_control", "+memory +pids");
		if (r != -EBUSY || !ci->move)
			break;
		(void)move_all(ci->path, leaf); /* one forked in meanwhile */
	}
	if (ci->enable && r < 0)
		return snprintf(why, cap, "cgroup: cannot enable memory and pids for the children "
				"of %s (%s)", ci->path, strerrorname_np(-r)), -1;
	/* cpu where delegated too: then each jail competes for the CPU as
	 * one group, and a fork bomb cannot starve the rest of the host. */
	if (ci->enable)
		(void)write_small(ci->path, "cgroup.subtree_control", "+cpu");
	remove_stale(ci->path);
	return 0;
}

int cgroup_prepare(const struct cgroup_info *ci, uint64_t memory_bytes, uint64_t pids,
		   uint64_t cpu_ms_per_s, struct cgroup_run *ret)
{
	char num[64];
	int r;

	static unsigned serial;

	/* Unique while we live: our pid and a count of our runs. */
	r = snprintf(ret->dir, sizeof(ret->dir), "%s/" RUN_PREFIX "%d-%u", ci->path,
		     (int)getpid(), ++serial);
	if (r < 0 || (size_t)r >= sizeof(ret->dir))
		return -ENAMETOOLONG;
	if (mkdir(ret->dir, 0755) < 0)
		return -errno;
	r = 0;
	if (memory_bytes) {
		snprintf(num, sizeof(num), "%llu", (unsigned long long)memory_bytes);
		r = write_small(ret->dir, "memory.max", num);
		if (r == 0) {
			r = write_small(ret->dir, "memory.swap.max", "0");
			if (r == -ENOENT || r == -EPERM || r == -EACCES)
				r = 0; /* no swap accounting: nothing to limit */
		}
		/* An OOM kills the whole jail, not one process of it. */
		if (r == 0 && write_small(ret->dir, "memory.oom.group", "1") < 0)
			r = 0; /* before 4.19: the kernel picks a process */
	}
	if (r == 0 && pids) {
		snprintf(num, sizeof(num), "%llu", (unsigned long long)pids);
		r = write_small(ret->dir, "pids.max", num);
	}
	if (r == 0 && cpu_ms_per_s) {
		snprintf(num, sizeof(num), "%llu 1000000", (unsigned long long)cpu_ms_per_s * 1000);
		r = write_small(ret->dir, "cpu.max", num);
		if (r == -ENOENT || r == -EPERM || r == -EACCES)
			r = 0; /* cpu controller not delegated: rlimit CPU still applies */
	}
	if (r < 0) {
		rmdir(ret->dir);
		return r;
	}
	ret->dir_fd = open(ret->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (ret->dir_fd < 0) {
		r = -errno;
		rmdir(ret->dir);
		return r;
	}
	return 0;
}

uint64_t cgroup_field(const char *text, const char *key)
{
	size_t n = strlen(key);

	for (const char *p = text; (p = strstr(p, key)); p += n)
		if ((p == text || p[-1] == '\n') && p[n] == ' ')
			return strtoull(p + n + 1, NULL, 10);
	return 0;
}

/* Remove dir; a process still in it (it should be gone with the helper)
 * is killed first, and the cgroup awaited empty for up to a second. */
static int remove_run(const char *dir)
{
	char ev[256];

	if (rmdir(dir) == 0 || errno == ENOENT)
		return 0;
	if (errno != EBUSY)
		return -errno;
	(void)write_small(dir, "cgroup.kill", "1");
	for (int i = 0; i < 100; i++) {
		if (read_small(dir, "cgroup.events", ev, sizeof(ev)) == 0 &&
		    cgroup_field(ev, "populated") == 0)
			break;
		nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
	}
	return rmdir(dir) == 0 || errno == ENOENT ? 0 : -errno;
}

int cgroup_finish(struct cgroup_run *cr, struct cgroup_usage *ret)
{
	char buf[1024];

	memset(ret, 0, sizeof(*ret));
	if (read_small(cr->dir, "memory.events", buf, sizeof(buf)) == 0)
		ret->oom_kills = cgroup_field(buf, "oom_kill");
	if (read_small(cr->dir, "memory.peak", buf, sizeof(buf)) == 0)
		ret->peak_bytes = strtoull(buf, NULL, 10);
	if (read_small(cr->dir, "pids.events", buf, sizeof(buf)) == 0)
		ret->forks_refused = cgroup_field(buf, "max");
	if (cr->dir_fd >= 0)
		close(cr->dir_fd);
	cr->dir_fd = -1;
	return remove_run(cr->dir);
}

static struct {
	bool on, failed;
	char why[PATH_MAX + 512]; /* room for every message above whole */
} memo;

void cgroup_detect_remember_failure(void)
{
	memo.on = true;
}

int cgroup_detect(struct cgroup_info *ret, char *why, size_t cap)
{
	if (!memo.on)
		return detect(ret, why, cap);
	if (!memo.failed && detect(ret, memo.why, sizeof(memo.why)) == 0)
		return 0;
	memo.failed = true;
	memset(ret, 0, sizeof(*ret));
	/* cut where the caller's own buffer would have cut it */
	snprintf(why, cap, "%s", memo.why);
	return -1;
}
