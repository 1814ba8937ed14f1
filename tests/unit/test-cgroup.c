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

#include "jail/cgroup-delegate.h"
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

/* hutch run's memo: a success is looked at again each time, a failure
 * answered as first given (cut at each caller's own buffer), even once
 * the subtree became usable. The memo stays on: this runs last. */
static void test_detect_remembers_failure(void)
{
	struct cgroup_info ci;
	char why[320] = "", again[320] = "", small[16] = "";

	cgroup_detect_remember_failure();
	fake("memory pids\n", "memory pids\n");
	CU_ASSERT_EQUAL(cgroup_detect(&ci, why, sizeof(why)), 0);
	fake("hugetlb\n", "");
	CU_ASSERT_EQUAL(cgroup_detect(&ci, why, sizeof(why)), -1); /* not remembered: 0 */
	CU_ASSERT_PTR_NOT_NULL(strstr(why, "lacks the memory and pids controllers"));
	fake("memory pids\n", "memory pids\n");
	CU_ASSERT_EQUAL(cgroup_detect(&ci, again, sizeof(again)), -1);
	CU_ASSERT_STRING_EQUAL(again, why);
	CU_ASSERT_EQUAL(cgroup_detect(&ci, small, sizeof(small)), -1);
	CU_ASSERT_EQUAL(strlen(small), sizeof(small) - 1);
	CU_ASSERT_EQUAL(strncmp(small, why, sizeof(small) - 1), 0);
}

static void test_prepare_and_finish(void)
{
	struct cgroup_info ci;
	struct cgroup_run cr;
	char why[256], buf[64];
	struct cgroup_usage cu;

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
	get(cr.dir, "memory.oom.group", buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "1");

	/* What the kernel would have written during the run. */
	put(cr.dir, "memory.events", "low 0\nhigh 0\nmax 7\noom 2\noom_kill 2\noom_group_kill 0\n");
	put(cr.dir, "memory.peak", "123456789\n");
	put(cr.dir, "pids.events", "max 17\n");
	/* A fake directory keeps its files, so rmdir reports ENOTEMPTY; on
	 * cgroupfs the interface files go with the directory. */
	CU_ASSERT(cgroup_finish(&cr, &cu) == -ENOTEMPTY);
	CU_ASSERT_EQUAL(cu.oom_kills, 2);
	CU_ASSERT_EQUAL(cu.peak_bytes, 123456789u);
	CU_ASSERT_EQUAL(cu.forks_refused, 17);
	CU_ASSERT_EQUAL(cr.dir_fd, -1);
}

static void test_finish_without_events(void)
{
	struct cgroup_info ci;
	struct cgroup_run cr;
	char why[256];
	struct cgroup_usage cu;

	fake("memory pids\n", "memory pids\n");
	CU_ASSERT_EQUAL_FATAL(cgroup_detect(&ci, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL_FATAL(cgroup_prepare(&ci, 0, 0, 0, &cr), 0);
	/* No limit asked for: no file written, and the empty dir goes. */
	CU_ASSERT(access(cr.dir, F_OK) == 0);
	CU_ASSERT_EQUAL(cgroup_finish(&cr, &cu), 0);
	CU_ASSERT_EQUAL(cu.oom_kills, 0);
	CU_ASSERT_EQUAL(cu.peak_bytes, 0);
	CU_ASSERT(access(cr.dir, F_OK) < 0 && errno == ENOENT);
}

static void test_self_path(void)
{
	static const struct {
		const char *text, *want;
		int r;
	} cases[] = {
		{ "0::/system.slice/run-u2.service\n", "/system.slice/run-u2.service", 0 },
		{ "12:pids:/x\n1:name=systemd:/y\n0::/user.slice/a b\n", NULL, -EINVAL },
		{ "4:memory:/process_api/dd3b\n0::/\n", "/", 0 },
		{ "9:name=systemd:/\n8:pids:/\n", NULL, -ENOENT },
		{ "10::/a\n", NULL, -ENOENT },	/* not "0::" at a line start */
		{ "0::/a/../b\n", NULL, -EINVAL },
		{ "0::/a/..\n", NULL, -EINVAL },
		{ "0::relative\n", NULL, -ENOENT },
		{ "0::/a (deleted)\n", NULL, -EINVAL },
		{ "", NULL, -ENOENT },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char rel[PATH_MAX] = "";

		CU_ASSERT_EQUAL(cgroup_self_path(cases[i].text, rel, sizeof(rel)), cases[i].r);
		if (cases[i].want)
			CU_ASSERT_STRING_EQUAL(rel, cases[i].want);
	}
}

static void test_lists_and_fields(void)
{
	CU_ASSERT_TRUE(cgroup_list_has("cpuset cpu io memory pids\n", "memory"));
	CU_ASSERT_TRUE(cgroup_list_has("cpuset cpu io memory pids\n", "pids"));
	CU_ASSERT_TRUE(cgroup_list_has("cpu", "cpu"));
	CU_ASSERT_FALSE(cgroup_list_has("cpuset io\n", "cpu"));
	CU_ASSERT_FALSE(cgroup_list_has("hugetlb\n", "memory"));
	CU_ASSERT_FALSE(cgroup_list_has("", "pids"));
	CU_ASSERT_EQUAL(cgroup_field("low 0\nhigh 0\nmax 7\noom 2\noom_kill 3\noom_group_kill 1\n",
				     "oom_kill"), 3);
	CU_ASSERT_EQUAL(cgroup_field("oom_group_kill 1\noom 2\n", "oom"), 2);
	CU_ASSERT_EQUAL(cgroup_field("oom_group_kill 1\n", "oom_kill"), 0);
	CU_ASSERT_EQUAL(cgroup_field("populated 1\nfrozen 0\n", "populated"), 1);
	CU_ASSERT_EQUAL(cgroup_field("max 0\n", "max"), 0);
}

static void test_unit_delegate(void)
{
	static const struct {
		const char *text;
		int cur, want;
	} cases[] = {
		{ "[Service]\nDelegate=yes\n", 0, 1 },
		{ "[Service]\nDelegate = true \n", 0, 1 },
		{ "[Service]\nDelegate=memory pids\n", 0, 1 },
		{ "[Service]\nDelegate=yes\nDelegate=\n", 0, 0 },
		{ "[Service]\nDelegate=no\n", 1, 0 },
		{ "[Service]\nDelegate=off\n", 1, 0 },
		{ "[Service]\nDelegate=0\n", 1, 0 },
		{ "[Service]\nExecStart=/bin/true\n", 1, 1 },	/* no assignment: as it was */
		{ "[Service]\n#Delegate=yes\nDelegateSubgroup=x\n", 0, 0 },
		{ "[Scope]\n  Delegate=1", 0, 1 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CU_ASSERT_EQUAL(cgroup_unit_delegate(cases[i].text, cases[i].cur), cases[i].want);
}

static void put_path(const char *path, const char *text)
{
	char cmd[600];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
	f = fopen(path, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

/* A user unit's files in a fake HOME: the unit file, a drop-in after it,
 * a template's file for its instances. */
static void test_user_unit_files(void)
{
	char home[64] = "/tmp/hutch-cghome.XXXXXX", p[200], cmd[120];
	const char *old = getenv("HOME");
	char *saved = old ? strdup(old) : NULL;

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(home));
	setenv("HOME", home, 1);
	unsetenv("XDG_CONFIG_HOME");
	CU_ASSERT_FALSE(cgroup_user_unit_delegated("hutch-test-none.service"));
	snprintf(p, sizeof(p), "%s/.config/systemd/user/hutch-test-a.service", home);
	put_path(p, "[Service]\nExecStart=/bin/true\nDelegate=yes\n");
	CU_ASSERT_TRUE(cgroup_user_unit_delegated("hutch-test-a.service"));
	snprintf(p, sizeof(p), "%s/.config/systemd/user/hutch-test-a.service.d/90-off.conf", home);
	put_path(p, "[Service]\nDelegate=no\n");
	CU_ASSERT_FALSE(cgroup_user_unit_delegated("hutch-test-a.service"));
	snprintf(p, sizeof(p), "%s/.config/systemd/user/hutch-test-t@.service", home);
	put_path(p, "[Service]\nDelegate=memory pids\n");
	CU_ASSERT_TRUE(cgroup_user_unit_delegated("hutch-test-t@one.service"));
	CU_ASSERT_FALSE(cgroup_user_unit_delegated("../hutch-test-a.service"));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", home);
	CU_ASSERT_EQUAL(system(cmd), 0);
	if (saved)
		setenv("HOME", saved, 1);
	free(saved);
}

/* A run's cgroup whose hutch is gone goes; ours and the leaf stay. */
static void test_stale_runs_removed(void)
{
	struct cgroup_info ci = { 0 };
	char dead[PATH_MAX + 40], mine[PATH_MAX + 40], leaf[PATH_MAX + 40], why[256];

	fake("memory pids\n", "memory pids\n");
	snprintf(ci.path, sizeof(ci.path), "%s", root);
	snprintf(dead, sizeof(dead), "%s/hutch-%d-1", root, 0x3ffffe); /* above any pid here */
	snprintf(mine, sizeof(mine), "%s/hutch-%d-1", root, (int)getpid());
	snprintf(leaf, sizeof(leaf), "%s/" CGROUP_LEAF, root);
	CU_ASSERT_EQUAL_FATAL(mkdir(dead, 0755), 0);
	CU_ASSERT_EQUAL_FATAL(mkdir(mine, 0755), 0);
	CU_ASSERT_EQUAL_FATAL(mkdir(leaf, 0755), 0);
	CU_ASSERT_EQUAL(cgroup_arrange(&ci, why, sizeof(why)), 0);
	CU_ASSERT(access(dead, F_OK) < 0 && errno == ENOENT);
	CU_ASSERT_EQUAL(access(mine, F_OK), 0);
	CU_ASSERT_EQUAL(access(leaf, F_OK), 0);
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
	{ "/proc/self/cgroup: the v2 line, nothing unsafe", test_self_path },
	{ "controller lists and events fields", test_lists_and_fields },
	{ "a unit's Delegate=: the last one wins", test_unit_delegate },
	{ "a user unit's files say whether it is delegated", test_user_unit_files },
	{ "stale runs' cgroups removed, live ones kept", test_stale_runs_removed },
	{ "hutch run remembers a failed detection, words and all", test_detect_remembers_failure },
	{ "clean up", test_cleanup },
	{ NULL, NULL },
};

UNIT_MAIN("cgroup")
