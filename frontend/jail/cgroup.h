/* cgroup.h: cgroup v2 limits (memory.max, memory.swap.max, pids.max,
 * cpu.max) where systemd delegated a subtree to us (Delegate=yes, system
 * or user manager): hutch moves the delegated cgroup's processes into its
 * leaf CGROUP_LEAF, enables memory and pids for its children, and makes
 * one cgroup per run beside the leaf, removed after the run.
 * HUTCH_CGROUP_ROOT names a directory to use as that subtree as it is
 * (tests use a fake cgroupfs tree; nothing is moved or enabled there).
 * Frontend only. */
#ifndef HUTCH_CGROUP_H
#define HUTCH_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The leaf our own processes live in (systemd's DelegateSubgroup= name). */
#define CGROUP_LEAF "supervisor"

struct cgroup_info {
	char path[PATH_MAX];	/* the delegated directory the runs' cgroups go in */
	bool move;		/* its processes are to move into path/CGROUP_LEAF */
	bool enable;		/* memory and pids are to be enabled in its subtree_control */
};

/* Looks only: 0 when usable (after cgroup_arrange, if move or enable);
 * -1 with why ("cgroup: ...", and the remedy) otherwise. */
int cgroup_detect(struct cgroup_info *ret, char *why, size_t cap);

/* For a process that makes one run (hutch run): from now on a failed
 * cgroup_detect is remembered, and later calls answer as it did, words
 * and all, without looking again. A failure arranges nothing, so nothing
 * this process does after it could make a second look differ; a success
 * is never remembered (cgroup_arrange changes what detect sees). */
void cgroup_detect_remember_failure(void);

/* Do what detect found to do (move into the leaf, enable the
 * controllers), and remove runs' cgroups a killed hutch left; before
 * every run. 0, or -1 with why. */
int cgroup_arrange(const struct cgroup_info *ci, char *why, size_t cap);

struct cgroup_run {
	char dir[PATH_MAX];	/* the jail's own cgroup */
	int dir_fd;		/* for clone3(CLONE_INTO_CGROUP) */
};

/* Make a child cgroup for one run with its limits (0 = leave unlimited);
 * with a memory limit, memory.oom.group makes an OOM kill the jail. */
int cgroup_prepare(const struct cgroup_info *ci, uint64_t memory_bytes, uint64_t pids,
		   uint64_t cpu_ms_per_s, struct cgroup_run *ret);

struct cgroup_usage {
	uint64_t oom_kills;	/* memory.events oom_kill */
	uint64_t peak_bytes;	/* memory.peak, 0 when the kernel has none */
	uint64_t forks_refused;	/* pids.events max: forks pids.max refused */
};

/* After the run: what its cgroup counted; then remove it (killing what
 * is left, which nothing should be). 0 or -errno of the removal. */
int cgroup_finish(struct cgroup_run *cr, struct cgroup_usage *ret);

/* Pure parts, for the unit tests. */
/* The cgroup v2 path ("0::/x/y" line) of a /proc/self/cgroup text. */
int cgroup_self_path(const char *text, char *ret, size_t cap);
/* WORD is in the space-separated LIST (cgroup.controllers and the like). */
bool cgroup_list_has(const char *list, const char *word);
/* The number after "KEY " at the start of a line of an events file. */
uint64_t cgroup_field(const char *text, const char *key);

#endif
