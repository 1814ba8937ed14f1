/* cgroup.h: cgroup v2 limits (memory.max, pids.max, cpu.max) where the
 * caller owns a delegated subtree with those controllers; reported either
 * way. HUTCH_CGROUP_ROOT names a directory to use as that subtree (tests
 * use a fake cgroupfs tree). Frontend only. */
#ifndef HUTCH_CGROUP_H
#define HUTCH_CGROUP_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

struct cgroup_info {
	char path[PATH_MAX];	/* the delegated directory we may create children in */
};

/* 0 when usable; -1 with why ("cgroup: ...", and the remedy) otherwise. */
int cgroup_detect(struct cgroup_info *ret, char *why, size_t cap);

struct cgroup_run {
	char dir[PATH_MAX];	/* the jail's own cgroup */
	int dir_fd;		/* for clone3(CLONE_INTO_CGROUP) */
};

/* Make a child cgroup for one run with its limits (0 = leave unlimited). */
int cgroup_prepare(const struct cgroup_info *ci, uint64_t memory_bytes, uint64_t pids,
		   uint64_t cpu_ms_per_s, struct cgroup_run *ret);

/* After the run: oom kills seen, peak memory; then remove the cgroup. */
int cgroup_finish(struct cgroup_run *cr, uint64_t *ret_oom_kills, uint64_t *ret_peak_bytes);

#endif
