/* test-narrow.c: unit tests of narrowing (frontend/jail/narrow.c): a request
 * under a policy becomes a plan, and may only narrow it. Limits, network,
 * env, files and collect, each at and past what the policy allows, and the
 * plan's other fields. Mounts: test-narrow-mounts.c; the fixtures:
 * narrow-fixtures.c. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc/policy.h"
#include "doc/request.h"
#include "jail/jail-path.h"
#include "jail/narrow.h"

#include "cunit-main.h"
#include "narrow-fixtures.h"

/* Where each limit lands in the plan, independent of narrow.c's table. */
static const size_t lim_off[LIM_COUNT] = {
	[LIM_WALL_MS] = offsetof(struct plan_limits, wall_ms),
	[LIM_CPU_MS] = offsetof(struct plan_limits, cpu_ms),
	[LIM_IDLE_MS] = offsetof(struct plan_limits, idle_ms),
	[LIM_MEMORY_BYTES] = offsetof(struct plan_limits, memory_bytes),
	[LIM_STDOUT_BYTES] = offsetof(struct plan_limits, stdout_bytes),
	[LIM_STDERR_BYTES] = offsetof(struct plan_limits, stderr_bytes),
	[LIM_FILE_SIZE_BYTES] = offsetof(struct plan_limits, file_size_bytes),
	[LIM_PROCESSES] = offsetof(struct plan_limits, processes),
	[LIM_OPEN_FILES] = offsetof(struct plan_limits, open_files),
	[LIM_TMP_BYTES] = offsetof(struct plan_limits, tmp_bytes),
	[LIM_WORK_BYTES] = offsetof(struct plan_limits, work_bytes),
	[LIM_TMP_INODES] = offsetof(struct plan_limits, tmp_inodes),
	[LIM_WORK_INODES] = offsetof(struct plan_limits, work_inodes),
	[LIM_OVERLAY_BYTES] = offsetof(struct plan_limits, overlay_bytes),
	[LIM_OVERLAY_INODES] = offsetof(struct plan_limits, overlay_inodes),
};

static uint64_t plan_limit(const struct plan *p, int i)
{
	return *(const uint64_t *)((const char *)&p->limits + lim_off[i]);
}

/* ---- limits ---- */

static void test_limits_absent_take_defaults(void)
{
	struct policy pol = { 0 };
	struct plan plan = { 0 };
	struct verrors e = { 0 };

	make_policy("[]", &pol);
	CU_ASSERT_EQUAL_FATAL(narrow_fmt(&pol, &plan, &e, "%s", R("")), 0);
	for (int i = 0; i < LIM_COUNT; i++)
		CU_ASSERT_EQUAL(plan_limit(&plan, i), lim_def(i));
	plan_free(&plan);
	policy_free(&pol);
}

/* For every limit a request may set: at max, below the default, max + 1. */
static void test_limits_each(void)
{
	struct policy pol = { 0 };

	make_policy("[]", &pol);
	for (int i = 0; i < LIM_COUNT; i++) {
		const char *name = limit_defs[i].name;
		struct plan plan = { 0 };
		struct verrors e = { 0 };
		char ptr[64];

		if (!limit_defs[i].in_request)
			continue;
		CU_ASSERT_EQUAL_FATAL(narrow_fmt(&pol, &plan, &e, R(",\"limits\":{\"%s\":%llu}"),
						 name, (unsigned long long)lim_max(i)),
				      0);
		for (int k = 0; k < LIM_COUNT; k++)
			CU_ASSERT_EQUAL(plan_limit(&plan, k), k == i ? lim_max(i) : lim_def(k));
		plan_free(&plan);

		CU_ASSERT_EQUAL_FATAL(narrow_fmt(&pol, &plan, &e, R(",\"limits\":{\"%s\":%llu}"),
						 name, (unsigned long long)limit_defs[i].min),
				      0);
		CU_ASSERT_EQUAL(plan_limit(&plan, i), limit_defs[i].min);
		plan_free(&plan);

		snprintf(ptr, sizeof(ptr), "/limits/%s", name);
		expect_fail(narrow_fmt(&pol, &plan, &e, R(",\"limits\":{\"%s\":%llu}"), name,
				       (unsigned long long)lim_max(i) + 1),
			    &plan, &e, VIOLATION, ptr, name);
	}
	policy_free(&pol);
}

/* The limits DESIGN.md lets a request name; the rest are the policy's. */
static void test_limits_counted(void)
{
	size_t n = 0;

	for (int i = 0; i < LIM_COUNT; i++)
		n += limit_defs[i].in_request;
	CU_ASSERT_EQUAL(n, 9);	/* DESIGN.md's request limits */
	CU_ASSERT_FALSE(limit_defs[LIM_TMP_BYTES].in_request);
	CU_ASSERT_FALSE(limit_defs[LIM_WORK_BYTES].in_request);
	CU_ASSERT_FALSE(limit_defs[LIM_TMP_INODES].in_request);
	CU_ASSERT_FALSE(limit_defs[LIM_WORK_INODES].in_request);
}

/* ---- network ---- */

static void test_network(void)
{
	static const struct {
		const char *member;
		int rc;
		enum net_mode want;
	} cases[] = {
		{ "", 0, NET_NONE },
		{ ",\"network\":\"none\"", 0, NET_NONE },
		{ ",\"network\":\"loopback\"", 0, NET_LOOPBACK },
		{ ",\"network\":\"host\"", -EINVAL, NET_NONE },
	};
	struct policy pol = { 0 };

	make_policy("[]", &pol);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct plan plan = { 0 };
		struct verrors e = { 0 };
		int rc = narrow_fmt(&pol, &plan, &e, R("%s"), cases[i].member);

		if (cases[i].rc) {
			expect_fail(rc, &plan, &e, VIOLATION, "/network", cases[i].member);
			continue;
		}
		CU_ASSERT_EQUAL_FATAL(rc, 0);
		CU_ASSERT_EQUAL(plan.network, cases[i].want);
		plan_free(&plan);
	}
	policy_free(&pol);
}

/* ---- env ---- */

static void test_env(void)
{
	static const struct {
		const char *env;
		const char *want[6];	/* the final envp, or NULL and a pointer */
		const char *pointer;
	} cases[] = {
		{ "{}", { "PATH=/usr/bin", "LANGUAGE=fr", "LANG=C" }, NULL },
		{ "{\"LANG\":\"en_US.UTF-8\"}",
		  { "PATH=/usr/bin", "LANGUAGE=fr", "LANG=en_US.UTF-8" }, NULL },
		{ "{\"LANG\":\"a=b\"}", { "PATH=/usr/bin", "LANGUAGE=fr", "LANG=a=b" }, NULL },
		{ "{\"LANG\":\"\"}", { "PATH=/usr/bin", "LANGUAGE=fr", "LANG=" }, NULL },
		{ "{\"TZ\":\"UTC\"}",
		  { "PATH=/usr/bin", "LANGUAGE=fr", "LANG=C", "TZ=UTC" }, NULL },
		{ "{\"LC_ALL\":\"C.UTF-8\",\"TZ\":\"x\"}",
		  { "PATH=/usr/bin", "LANGUAGE=fr", "LANG=C", "LC_ALL=C.UTF-8", "TZ=x" }, NULL },
		{ "{\"LC_\":\"1\",\"LANG\":\"de\"}",
		  { "PATH=/usr/bin", "LANGUAGE=fr", "LANG=de", "LC_=1" }, NULL },
		{ "{\"HOME\":\"/x\"}", { NULL }, "/env/HOME" },
		{ "{\"PATH\":\"/evil\"}", { NULL }, "/env/PATH" },	/* set, not allowed */
		{ "{\"LANGUAGE\":\"x\"}", { NULL }, "/env/LANGUAGE" },	/* names are exact */
		{ "{\"LAN\":\"x\"}", { NULL }, "/env/LAN" },
		{ "{\"LC\":\"x\"}", { NULL }, "/env/LC" },
		{ "{\"lc_all\":\"x\"}", { NULL }, "/env/lc_all" },
		{ "{\"TZ\":\"UTC\",\"LD_PRELOAD\":\"/x.so\"}", { NULL }, "/env/LD_PRELOAD" },
	};
	struct policy pol = { 0 };

	make_policy("[]", &pol);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct plan plan = { 0 };
		struct verrors e = { 0 };
		int rc = narrow_fmt(&pol, &plan, &e, R(",\"env\":%s"), cases[i].env);
		size_t n = 0;

		if (cases[i].pointer) {
			expect_fail(rc, &plan, &e, VIOLATION, cases[i].pointer, cases[i].env);
			continue;
		}
		CU_ASSERT_EQUAL_FATAL(rc, 0);
		while (cases[i].want[n])
			n++;
		CU_ASSERT_EQUAL(plan.envc, n);
		for (size_t k = 0; k < n && k < plan.envc; k++)
			CU_ASSERT_STRING_EQUAL(plan.envp[k], cases[i].want[k]);
		CU_ASSERT_PTR_NULL(plan.envp[plan.envc]);
		plan_free(&plan);
	}
	policy_free(&pol);
}

/* ---- files and collect ---- */

static void test_files(void)
{
	static const struct {
		const char *members;
		int rc;
		const char *pointer;
	} cases[] = {
		{ "", 0, NULL },
		{ ",\"files\":[]", 0, NULL },
		{ ",\"files\":[{\"name\":\"a\",\"text\":\"12345\"},"
		  "{\"name\":\"b\",\"base64\":\"MTIzNDU=\"}]",
		  0, NULL },	/* 10 bytes: the policy's max */
		{ ",\"files\":[{\"name\":\"a\",\"text\":\"\"},{\"name\":\"b\",\"text\":\"\"},"
		  "{\"name\":\"c\",\"text\":\"\"}]",
		  VIOLATION, "/files" },	/* 3 > max_count 2 */
		{ ",\"files\":[{\"name\":\"a\",\"text\":\"123456\"},"
		  "{\"name\":\"b\",\"text\":\"12345\"}]",
		  VIOLATION, "/files" },	/* 11 bytes */
		{ ",\"files\":[{\"name\":\"a\",\"base64\":\"MTIzNDU2Nzg5MDE=\"}]",
		  VIOLATION, "/files" },
		{ ",\"collect\":[\"out\"]", 0, NULL },
		{ ",\"collect\":[\"out\",\"err\"]", VIOLATION, "/collect" },
		{ ",\"files\":[{\"name\":\"a\",\"text\":\"1\"}],\"collect\":[\"x\",\"y\"]",
		  VIOLATION, "/collect" },
	};
	struct policy pol = { 0 };

	make_policy("[]", &pol);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct plan plan = { 0 };
		struct verrors e = { 0 };
		int rc = narrow_fmt(&pol, &plan, &e, R("%s"), cases[i].members);

		if (cases[i].rc) {
			expect_fail(rc, &plan, &e, VIOLATION, cases[i].pointer, cases[i].members);
			continue;
		}
		CU_ASSERT_EQUAL_FATAL(rc, 0);
		CU_ASSERT_EQUAL(plan.collect_max_bytes, 100);
		plan_free(&plan);
	}

	/* What passes is copied. */
	{
		static const char doc[] = R(",\"files\":[{\"name\":\"a\",\"text\":\"12345\"},"
					    "{\"name\":\"b\",\"base64\":\"AP8=\"}],"
					    "\"collect\":[\"out\"]");
		struct plan plan = { 0 };
		struct verrors e = { 0 };

		CU_ASSERT_EQUAL_FATAL(narrow_fmt(&pol, &plan, &e, "%s", doc), 0);
		CU_ASSERT_EQUAL_FATAL(plan.n_files, 2);
		CU_ASSERT_STRING_EQUAL(plan.files[0].name, "a");
		CU_ASSERT_EQUAL(plan.files[0].len, 5);
		CU_ASSERT_EQUAL(memcmp(plan.files[0].data, "12345", 5), 0);
		CU_ASSERT_STRING_EQUAL(plan.files[1].name, "b");
		CU_ASSERT_EQUAL_FATAL(plan.files[1].len, 2);
		CU_ASSERT_EQUAL(memcmp(plan.files[1].data, "\x00\xff", 2), 0);
		CU_ASSERT_EQUAL_FATAL(plan.n_collect, 1);
		CU_ASSERT_STRING_EQUAL(plan.collect[0], "out");
		CU_ASSERT_PTR_NULL(plan.collect[1]);
		plan_free(&plan);
	}
	policy_free(&pol);
}

/* ---- the rest of the plan ---- */

static void test_plan_fields(void)
{
	struct policy pol = { 0 };
	struct plan plan = { 0 };
	struct verrors e = { 0 };
	char usr[PATH_MAX];

	make_policy("[]", &pol);
	CU_ASSERT_EQUAL_FATAL(narrow_fmt(&pol, &plan, &e, "%s", R("")), 0);
	CU_ASSERT_EQUAL_FATAL(plan.argc, 1);
	CU_ASSERT_STRING_EQUAL(plan.argv[0], "/bin/true");
	CU_ASSERT_PTR_NULL(plan.argv[1]);
	CU_ASSERT_STRING_EQUAL(plan.cwd, "/work");	/* the work dir by default */
	CU_ASSERT_STRING_EQUAL(plan.work_dir, "/work");
	CU_ASSERT_STRING_EQUAL(plan.hostname, "box");
	CU_ASSERT_EQUAL(plan.stdout_mode, STDOUT_STREAM);
	CU_ASSERT_FALSE(plan.stdin_given);
	CU_ASSERT_PTR_NULL(plan.stdin_data);
	CU_ASSERT_EQUAL(plan.network, NET_NONE);
	CU_ASSERT_TRUE(plan.usr_symlinks);
	CU_ASSERT_FALSE(plan.work_exec);
	CU_ASSERT_EQUAL(plan.seccomp, SECCOMP_DENY_LIST);
	CU_ASSERT_EQUAL_FATAL(plan.n_seccomp_names, 1);
	CU_ASSERT_STRING_EQUAL(plan.seccomp_names[0], "acct");
	CU_ASSERT_FALSE(plan.allow_ptrace);
	CU_ASSERT_EQUAL(plan.landlock, LANDLOCK_BEST_EFFORT);
	CU_ASSERT_EQUAL(plan.jail_uid, 1000);
	CU_ASSERT_EQUAL(plan.jail_gid, 1001);
	CU_ASSERT_TRUE(plan.partial_output);
	CU_ASSERT_TRUE(plan.overflow_truncate);
	CU_ASSERT_TRUE(plan.require_cgroup);
	CU_ASSERT_EQUAL(plan.n_mounts, 0);
	CU_ASSERT_EQUAL(plan.n_files, 0);
	CU_ASSERT_EQUAL(plan.n_collect, 0);
	/* policy binds: bound where they really are, at their own path */
	CU_ASSERT_EQUAL_FATAL(plan.n_policy_binds, 2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(realpath("/usr", usr));
	CU_ASSERT_STRING_EQUAL(plan.policy_binds[0].source, usr);
	CU_ASSERT_STRING_EQUAL(plan.policy_binds[0].target, "/usr");
	CU_ASSERT_TRUE(plan.policy_binds[0].exec);
	CU_ASSERT_FALSE(plan.policy_binds[0].rw);
	CU_ASSERT_STRING_EQUAL(plan.policy_binds[1].target, "/opt/tool");
	CU_ASSERT_FALSE(plan.policy_binds[1].exec);
	plan_free(&plan);

	/* What the request says. */
	CU_ASSERT_EQUAL_FATAL(narrow_fmt(&pol, &plan, &e, "%s",
					 "{\"version\":1,\"argv\":[\"/bin/echo\",\"a\",\"\"],"
					 "\"cwd\":\"/tmp\",\"stdout_mode\":\"frame\","
					 "\"stdin\":{\"text\":\"in\\u0000\"}}"),
			      0);
	CU_ASSERT_EQUAL_FATAL(plan.argc, 3);
	CU_ASSERT_STRING_EQUAL(plan.argv[0], "/bin/echo");
	CU_ASSERT_STRING_EQUAL(plan.argv[2], "");
	CU_ASSERT_PTR_NULL(plan.argv[3]);
	CU_ASSERT_STRING_EQUAL(plan.cwd, "/tmp");
	CU_ASSERT_EQUAL(plan.stdout_mode, STDOUT_FRAME);
	CU_ASSERT_TRUE(plan.stdin_given);
	CU_ASSERT_EQUAL_FATAL(plan.stdin_len, 3);
	CU_ASSERT_EQUAL(memcmp(plan.stdin_data, "in\0", 3), 0);
	plan_free(&plan);
	policy_free(&pol);
}

/* jail-path.c: where a jail path comes from, from the plan alone (the
 * --cwd check, exec failures' words, --explain's fragments). */
static void test_jail_path(void)
{
	struct plan_mount pb[] = { { .source = "/usr", .target = "/usr", .exec = true } };
	struct plan_mount rb[] = { { .source = "/usr/bin", .target = "/srv/tools" } };
	struct plan p = { .work_dir = "/work", .cwd = "/work", .policy_binds = pb,
			  .n_policy_binds = 1, .mounts = rb, .n_mounts = 1 };
	struct jail_where w;
	char out[64];

	CU_ASSERT_EQUAL(jail_path_clean("/a/./b/../c//d/", out, sizeof(out)), 0);
	CU_ASSERT_STRING_EQUAL(out, "/a/c/d");
	CU_ASSERT_EQUAL(jail_path_clean("/../..", out, sizeof(out)), 0);
	CU_ASSERT_STRING_EQUAL(out, "/");
	CU_ASSERT_EQUAL(jail_path_clean("relative", out, sizeof(out)), -EINVAL);

	CU_ASSERT_TRUE(jail_path_dir_exists(&p, "/work"));
	CU_ASSERT_FALSE(jail_path_dir_exists(&p, "/work/sub"));	/* a tmpfs starts empty */
	CU_ASSERT_TRUE(jail_path_dir_exists(&p, "/tmp"));
	CU_ASSERT_TRUE(jail_path_dir_exists(&p, "/srv"));	/* leads to a mount */
	CU_ASSERT_TRUE(jail_path_dir_exists(&p, "/srv/tools"));
	CU_ASSERT_FALSE(jail_path_dir_exists(&p, "/srv/tools/no-such-dir-here"));
	CU_ASSERT_TRUE(jail_path_dir_exists(&p, "/usr/bin"));
	CU_ASSERT_FALSE(jail_path_dir_exists(&p, "/home"));
	CU_ASSERT_FALSE(jail_path_dir_exists(&p, "/etc/passwd"));	/* a file */
	CU_ASSERT_TRUE(jail_path_dir_exists(&p, "/work/../tmp"));

	jail_path_where(&p, "/srv/tools/sh", &w);
	CU_ASSERT_EQUAL(w.src, JAIL_SRC_REQUEST_BIND);
	CU_ASSERT_FALSE(w.exec);
	CU_ASSERT_STRING_EQUAL(w.mount, "/srv/tools");
	CU_ASSERT_STRING_EQUAL(w.host, "/usr/bin/sh");
	jail_path_where(&p, "/usr/bin/sh", &w);
	CU_ASSERT_EQUAL(w.src, JAIL_SRC_POLICY_BIND);
	CU_ASSERT_TRUE(w.exec);
	jail_path_where(&p, "/tmp/x", &w);
	CU_ASSERT_EQUAL(w.src, JAIL_SRC_TMP);
	CU_ASSERT_FALSE(w.exec);	/* work_exec is off */
	jail_path_where(&p, "/opt/x", &w);
	CU_ASSERT_EQUAL(w.src, JAIL_SRC_ROOT);
}

static const struct unit_case cases[] = {
	{ "jail-path: a path's origin from the plan", test_jail_path },
	{ "limits: absent takes the policy default", test_limits_absent_take_defaults },
	{ "limits: each at max, at min, past max", test_limits_each },
	{ "limits: which a request may set", test_limits_counted },
	{ "network", test_network },
	{ "env", test_env },
	{ "files and collect", test_files },
	{ "plan fields", test_plan_fields },
	{ NULL, NULL },
};

UNIT_MAIN("narrow")
