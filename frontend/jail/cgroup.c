/* cgroup.c: see cgroup.h. A subtree is usable when it is on cgroup2, its
 * cgroup.controllers list memory and pids, those are enabled for children
 * in cgroup.subtree_control, and we may create directories in it.
 * Frontend only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "cleanup.h"
#include "fd-util.h"
#include "jail/cgroup.h"

#ifndef CGROUP2_SUPER_MAGIC
#define CGROUP2_SUPER_MAGIC 0x63677270
#endif

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

static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\n' || p[n] == '\0'))
			return true;
	return false;
}

/* Our own cgroup directory on the unified hierarchy, if it is mounted. */
static int own_cgroup_dir(char *ret, size_t cap)
{
	static const char *const mounts[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified", NULL };
	char self[PATH_MAX];
	struct statfs sfs;
	const char *rel;
	int r = read_small("/proc/self", "cgroup", self, sizeof(self));

	if (r < 0)
		return r;
	rel = strstr(self, "0::");
	if (!rel || (rel != self && rel[-1] != '\n'))
		return -ENOENT;
	rel += 3;
	for (size_t i = 0; mounts[i]; i++) {
		char line[PATH_MAX];
		size_t len = strcspn(rel, "\n");

		if (statfs(mounts[i], &sfs) < 0 || sfs.f_type != CGROUP2_SUPER_MAGIC)
			continue;
		snprintf(line, sizeof(line), "%s%.*s", mounts[i], (int)len, rel);
		snprintf(ret, cap, "%s", line);
		return 0;
	}
	return -ENOENT;
}

int cgroup_detect(struct cgroup_info *ret, char *why, size_t cap)
{
	const char *override = getenv("HUTCH_CGROUP_ROOT");
	char ctl[512], sub[512], dir[PATH_MAX];

	if (override && override[0] == '/')
		snprintf(dir, sizeof(dir), "%s", override);
	else if (own_cgroup_dir(dir, sizeof(dir)) < 0)
		return snprintf(why, cap, "cgroup: no cgroup v2 hierarchy holds this process "
				"(mount cgroup2 with the memory and pids controllers)"), -1;
	if (read_small(dir, "cgroup.controllers", ctl, sizeof(ctl)) < 0)
		return snprintf(why, cap, "cgroup: %s is not a cgroup v2 directory", dir), -1;
	if (!has_word(ctl, "memory") || !has_word(ctl, "pids"))
		return snprintf(why, cap, "cgroup: %s lacks the memory and pids controllers "
				"(cgroup v2 here carries only: %.*s)", dir,
				(int)strcspn(ctl, "\n"), ctl), -1;
	if (access(dir, W_OK) < 0)
		return snprintf(why, cap, "cgroup: %s is not delegated to this user "
				"(run under a systemd unit with Delegate=yes)", dir), -1;
	if (read_small(dir, "cgroup.subtree_control", sub, sizeof(sub)) < 0 ||
	    !has_word(sub, "memory") || !has_word(sub, "pids"))
		return snprintf(why, cap, "cgroup: memory and pids are not enabled for children of "
				"%s (write \"+memory +pids\" to its cgroup.subtree_control)", dir), -1;
	snprintf(ret->path, sizeof(ret->path), "%s", dir);
	return 0;
}

int cgroup_prepare(const struct cgroup_info *ci, uint64_t memory_bytes, uint64_t pids,
		   uint64_t cpu_ms_per_s, struct cgroup_run *ret)
{
	char num[64];
	int r;

	static unsigned serial;

	/* Unique while we live: our pid and a count of our runs. */
	r = snprintf(ret->dir, sizeof(ret->dir), "%s/hutch-%d-%u", ci->path, (int)getpid(),
		     ++serial);
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

static uint64_t field(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

int cgroup_finish(struct cgroup_run *cr, uint64_t *ret_oom_kills, uint64_t *ret_peak_bytes)
{
	char buf[1024];

	*ret_oom_kills = 0;
	*ret_peak_bytes = 0;
	if (read_small(cr->dir, "memory.events", buf, sizeof(buf)) == 0)
		*ret_oom_kills = field(buf, "oom_kill ");
	if (read_small(cr->dir, "memory.peak", buf, sizeof(buf)) == 0)
		*ret_peak_bytes = strtoull(buf, NULL, 10);
	if (cr->dir_fd >= 0)
		close(cr->dir_fd);
	cr->dir_fd = -1;
	/* Empty by now: the helper's exit means its jail is gone. */
	if (rmdir(cr->dir) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}
