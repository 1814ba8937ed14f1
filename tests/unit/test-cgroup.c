/* test-cgroup.c: the cgroup v2 code against fake cgroupfs trees in temp
 * dirs (this host's cgroup2 carries only hugetlb, so the real thing cannot
 * be exercised here): what makes a subtree usable or not and why, the
 * files a run's cgroup gets, the OOM report, and removal. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jail/cgroup.h"
#include "cunit-main.h"

static char root[64];

static void put(const char *dir, const char *name, const char *text)
{
	char path[PATH_MAX + 80];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

static void get(const char *dir, const char *name, char *buf, size_t cap)
{
	char path[PATH_MAX + 80];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	n = fread(buf, 1, cap - 1, f);
	buf[n] = '\0';
	fclose(f);
}

/* A fresh fake subtree with the given controllers files. */
static void fake(const char *controllers, const char *subtree)
{
	char cmd[200];

	if (root[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		CU_ASSERT_EQUAL(system(cmd), 0);
	}
	snprintf(root, sizeof(root), "/tmp/hutch-cgtest.XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(root));
	if (controllers)
		put(root, "cgroup.controllers", controllers);
	if (subtree)
		put(root, "cgroup.subtree_control", subtree);
	setenv("HUTCH_CGROUP_ROOT", root, 1);
}

static void test_detect_usable(void)
{
	struct cgroup_info ci;
	char why[256] = "";

	fake("cpuset cpu io memory hugetlb pids rdma misc\n", "cpu memory pids\n");
	CU_ASSERT_EQUAL(cgroup_detect(&ci, why, sizeof(why)), 0);
	CU_ASSERT_STRING_EQUAL(ci.path, root);
}

static void test_detect_refusals(void)
{
	static const struct {
		const char *controllers, *subtree, *reason;
	} cases[] = {
		{ "hugetlb\n", "", "lacks the memory and pids controllers" },
		{ "memory\n", "memory\n", "lacks the memory and pids controllers" },
		{ "memory pids\n", "", "are not enabled for children" },
		{ "memory pids\n", "memory\n", "are not enabled for children" },
		{ "memory pids\n", NULL, "are not enabled for children" },
		{ NULL, NULL, "is not a cgroup v2 directory" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct cgroup_info ci;
		char why[320] = "";

		fake(cases[i].controllers, cases[i].subtree);
		CU_ASSERT_EQUAL(cgroup_detect(&ci, why, sizeof(why)), -1);
		CU_ASSERT_PTR_NOT_NULL(strstr(why, cases[i].reason));
		CU_ASSERT_EQUAL(strncmp(why, "cgroup: ", 8), 0);
	}
}

static void test_detect_not_delegated(void)
{
	struct cgroup_info ci;
	char why[320] = "";

	if (geteuid() == 0)
		return; /* root writes anywhere: nothing to see */
	fake("memory pids\n", "memory pids\n");
	CU_ASSERT_EQUAL_FATAL(chmod(root, 0555), 0);
	CU_ASSERT_EQUAL(cgroup_detect(&ci, why, sizeof(why)), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "not delegated"));
	chmod(root, 0755);
}

static void test_prepare_and_finish(void)
{
	struct cgroup_info ci;
	struct cgroup_run cr;
	char why[256], buf[64];
	uint64_t oom = 99, peak = 99;

	fake("memory pids cpu\n", "memory pids cpu\n");
	CU_ASSERT_EQUAL_FATAL(cgroup_detect(&ci, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL_FATAL(cgroup_prepare(&ci, 256u << 20, 32, 500, &cr), 0);
	CU_ASSERT_EQUAL(strncmp(cr.dir, root, strlen(root)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(cr.dir, "/hutch-"));
	CU_ASSERT(cr.dir_fd >= 0);
	get(cr.dir, "memory.max", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "268435456");
	get(cr.dir, "memory.swap.max", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "0");
	get(cr.dir, "pids.max", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "32");
	get(cr.dir, "cpu.max", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "500000 1000000");

	/* What the kernel would have written during the run. */
	put(cr.dir, "memory.events", "low 0\nhigh 0\nmax 7\noom 2\noom_kill 2\noom_group_kill 0\n");
	put(cr.dir, "memory.peak", "123456789\n");
	/* A fake directory keeps its files, so rmdir reports ENOTEMPTY; on
	 * cgroupfs the interface files go with the directory. */
	CU_ASSERT(cgroup_finish(&cr, &oom, &peak) == -ENOTEMPTY);
	CU_ASSERT_EQUAL(oom, 2);
	CU_ASSERT_EQUAL(peak, 123456789u);
	CU_ASSERT_EQUAL(cr.dir_fd, -1);
}

static void test_finish_without_events(void)
{
	struct cgroup_info ci;
	struct cgroup_run cr;
	char why[256];
	uint64_t oom = 99, peak = 99;

	fake("memory pids\n", "memory pids\n");
	CU_ASSERT_EQUAL_FATAL(cgroup_detect(&ci, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL_FATAL(cgroup_prepare(&ci, 0, 0, 0, &cr), 0);
	/* No limit asked for: no file written, and the empty dir goes. */
	CU_ASSERT(access(cr.dir, F_OK) == 0);
	CU_ASSERT_EQUAL(cgroup_finish(&cr, &oom, &peak), 0);
	CU_ASSERT_EQUAL(oom, 0);
	CU_ASSERT_EQUAL(peak, 0);
	CU_ASSERT(access(cr.dir, F_OK) < 0 && errno == ENOENT);
}

static void test_cleanup(void)
{
	char cmd[200];

	if (root[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
		CU_ASSERT_EQUAL(system(cmd), 0);
	}
	unsetenv("HUTCH_CGROUP_ROOT");
}

static const struct unit_case cases[] = {
	{ "a delegated subtree with memory and pids is usable", test_detect_usable },
	{ "each missing piece is refused with its reason", test_detect_refusals },
	{ "a subtree we cannot write is not delegated", test_detect_not_delegated },
	{ "a run's cgroup: limits written, OOM and peak read back", test_prepare_and_finish },
	{ "no limits, no events: nothing written, the dir removed", test_finish_without_events },
	{ "clean up", test_cleanup },
	{ NULL, NULL },
};

UNIT_MAIN("cgroup")
