/* test-narrow.c: unit tests of narrowing (frontend/jail/narrow.c): a request
 * under a policy becomes a plan, and may only narrow it. Limits, network,
 * env, mounts (canonicalised sources in temporary directories), reserved
 * targets, files and collect, each at and past what the policy allows. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "doc/policy.h"
#include "doc/request.h"
#include "jail/jail-path.h"
#include "jail/narrow.h"

#include "cunit-main.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define VIOLATION HUTCH_ERR_POLICY_VIOLATION
#define INV HUTCH_ERR_INVALID_REQUEST

/* ---- text building ---- */

struct sb {
	char *p;
	size_t n, cap;
};

__attribute__((format(printf, 2, 3))) static void sb_printf(struct sb *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (s->n + (size_t)n + 1 > s->cap) {
		s->cap = (s->n + (size_t)n + 1) * 2;
		s->p = realloc(s->p, s->cap);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s->p);
	}
	va_start(ap, fmt);
	vsnprintf(s->p + s->n, s->cap - s->n, fmt, ap);
	va_end(ap);
	s->n += (size_t)n;
}

/* ---- the policy under test ---- */

/* Each limit's default and maximum: near its floor, so max + 1 is still
 * a value any request may name. */
static uint64_t lim_def(int i)
{
	return limit_defs[i].min + 5;
}

static uint64_t lim_max(int i)
{
	return limit_defs[i].min + 50;
}

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

/* A policy with the given request mount rules (a JSON array). */
static void make_policy(const char *mount_rules, struct policy *ret)
{
	struct sb s = { 0 };
	struct verrors e = { 0 };
	int rc;

	sb_printf(&s, "{\"version\":1,\"description\":\"narrow test\",\"limits\":{");
	for (int i = 0; i < LIM_COUNT; i++)
		sb_printf(&s, "%s\"%s\":{\"default\":%llu,\"max\":%llu}", i ? "," : "",
			  limit_defs[i].name, (unsigned long long)lim_def(i),
			  (unsigned long long)lim_max(i));
	sb_printf(&s, "},\"filesystem\":{\"binds\":[{\"path\":\"/usr\",\"exec\":true},"
		      "{\"path\":\"/opt/tool\",\"exec\":false}],\"usr_symlinks\":true,"
		      "\"work_dir\":\"/work\",\"writable_exec\":false},"
		      "\"mounts\":%s,"
		      "\"files\":{\"max_count\":2,\"max_bytes\":10},"
		      "\"collect\":{\"max_count\":1,\"max_bytes\":100},"
		      "\"network\":{\"default\":\"none\",\"allow\":[\"none\",\"loopback\"]},"
		      "\"env\":{\"set\":{\"PATH\":\"/usr/bin\",\"LANGUAGE\":\"fr\",\"LANG\":\"C\"},"
		      "\"allow\":[\"LANG\",\"TZ\"],\"allow_prefixes\":[\"LC_\"]},"
		      "\"seccomp\":{\"mode\":\"deny-list\",\"syscalls\":[\"acct\"],"
		      "\"allow_ptrace\":false},"
		      "\"landlock\":\"best-effort\",\"user\":{\"uid\":1000,\"gid\":1001},"
		      "\"requires\":[\"user_namespaces\",\"cgroup\"],"
		      "\"on_limit\":{\"partial_output\":true,\"overflow\":\"truncate\"},"
		      "\"hostname\":\"box\"}",
		  mount_rules);
	rc = policy_parse(s.p, s.n, "narrowtest", ret, &e);
	for (size_t i = 0; i < e.n; i++)
		fprintf(stderr, "\n  test policy: \"%s\": %s\n", e.items[i].pointer,
			e.items[i].reason);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	free(s.p);
}

/* ---- temporary directories for mount sources ---- */

struct tree {
	char base[PATH_MAX];	/* canonical */
	char ro[PATH_MAX + 16], rw[PATH_MAX + 16], ro2[PATH_MAX + 16];
	char outside[PATH_MAX + 16];
};

static void path_in(char *buf, const struct tree *t, const char *rel)
{
	snprintf(buf, PATH_MAX + 16, "%s/%s", t->base, rel);
}

static void tree_make(struct tree *t)
{
	char tmpl[] = "/tmp/hutch-narrow-XXXXXX";
	char p[PATH_MAX + 16];

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(tmpl));
	CU_ASSERT_PTR_NOT_NULL_FATAL(realpath(tmpl, t->base));
	path_in(t->ro, t, "ro");
	path_in(t->rw, t, "rw");
	path_in(t->ro2, t, "ro2");	/* a sibling whose name starts like ro */
	path_in(t->outside, t, "outside");
	CU_ASSERT_EQUAL_FATAL(mkdir(t->ro, 0755), 0);
	CU_ASSERT_EQUAL_FATAL(mkdir(t->rw, 0755), 0);
	CU_ASSERT_EQUAL_FATAL(mkdir(t->ro2, 0755), 0);
	CU_ASSERT_EQUAL_FATAL(mkdir(t->outside, 0755), 0);
	path_in(p, t, "ro/sub");
	CU_ASSERT_EQUAL_FATAL(mkdir(p, 0755), 0);
	path_in(p, t, "ro/file");
	CU_ASSERT_EQUAL_FATAL(close(open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)), 0);
	/* ro/escape -> ../outside: under an allowed prefix, pointing out */
	path_in(p, t, "ro/escape");
	CU_ASSERT_EQUAL_FATAL(symlink("../outside", p), 0);
	/* outside/in -> ro/sub: outside, pointing in */
	path_in(p, t, "outside/in");
	CU_ASSERT_EQUAL_FATAL(symlink("../ro/sub", p), 0);
	/* ro/dangling -> nowhere */
	path_in(p, t, "ro/dangling");
	CU_ASSERT_EQUAL_FATAL(symlink("../nowhere", p), 0);
}

static void tree_remove(const struct tree *t)
{
	static const char *const files[] = { "ro/escape", "ro/dangling", "ro/file",
					     "outside/in" };
	static const char *const dirs[] = { "ro/sub", "ro", "rw", "ro2", "outside", "" };
	char p[PATH_MAX + 16];

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		path_in(p, t, files[i]);
		CU_ASSERT_EQUAL(unlink(p), 0);
	}
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		path_in(p, t, dirs[i]);
		CU_ASSERT_EQUAL(rmdir(p), 0);
	}
}

static void make_tree_policy(const struct tree *t, struct policy *ret)
{
	struct sb s = { 0 };

	sb_printf(&s, "[{\"prefix\":\"%s\",\"modes\":[\"ro\"]},"
		      "{\"prefix\":\"%s\",\"modes\":[\"ro\",\"rw\"]}]",
		  t->ro, t->rw);
	make_policy(s.p, ret);
	free(s.p);
}

/* ---- running narrow ---- */

/* Parse a request (it must be valid), narrow it: the return code. */
__attribute__((format(printf, 4, 5))) static int narrow_fmt(const struct policy *pol,
							     struct plan *plan, struct verrors *e,
							     const char *fmt, ...)
{
	struct request req = { 0 };
	struct verrors pe = { 0 };
	char *text;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	CU_ASSERT_FATAL(vasprintf(&text, fmt, ap) >= 0);
	va_end(ap);
	rc = request_parse(text, strlen(text), &req, &pe);
	if (rc != 0)
		fprintf(stderr, "\n  request rejected at \"%s\" (%s): %s\n",
			pe.n ? pe.items[0].pointer : "", pe.n ? pe.items[0].reason : "", text);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	plan->argc = 77;	/* must stay untouched on failure */
	rc = narrow(&req, pol, plan, e);
	request_free(&req);
	free(text);
	return rc;
}

#define R(members) "{\"version\":1,\"argv\":[\"/bin/true\"]" members "}"

static void expect_fail(int rc, const struct plan *plan, const struct verrors *e,
			enum hutch_err code, const char *pointer, const char *what)
{
	if (rc != -EINVAL || e->n != 1 || e->items[0].code != code ||
	    strcmp(e->items[0].pointer, pointer) != 0)
		fprintf(stderr,
			"\n  %s: rc %d, %zu errors, first %s at \"%s\"; want %s at \"%s\"\n",
			what, rc, e->n, e->n ? hutch_err_name(e->items[0].code) : "-",
			e->n ? e->items[0].pointer : "", hutch_err_name(code), pointer);
	CU_ASSERT_EQUAL(rc, -EINVAL);
	CU_ASSERT_EQUAL_FATAL(e->n, 1);
	CU_ASSERT_EQUAL(e->items[0].code, code);
	CU_ASSERT_STRING_EQUAL(e->items[0].pointer, pointer);
	CU_ASSERT_EQUAL(plan->argc, 77);
	CU_ASSERT_PTR_NULL(plan->argv);
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

/* ---- mounts ---- */

/* "overlay" is a mode a rule lists by name, for directories only. */
static void test_mount_overlay(void)
{
	struct policy pol = { 0 };
	struct plan plan = { 0 };
	struct verrors e = { 0 };
	int rc;

	make_policy("[{\"prefix\":\"/\",\"modes\":[\"overlay\"]}]", &pol);
	rc = narrow_fmt(&pol, &plan, &e,
			R(",\"mounts\":[{\"source\":\"/usr\",\"target\":\"/t\",\"mode\":\"overlay\"}],"
			  "\"export_changes\":true"));
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL_FATAL(plan.n_mounts, 1);
	CU_ASSERT_TRUE(plan.mounts[0].overlay);
	CU_ASSERT_FALSE(plan.mounts[0].rw);
	CU_ASSERT_TRUE(plan.export_changes);
	CU_ASSERT_EQUAL(plan.limits.overlay_bytes, lim_def(LIM_OVERLAY_BYTES));
	plan_free(&plan);
	memset(&plan, 0, sizeof(plan));
	rc = narrow_fmt(&pol, &plan, &e, R(",\"mounts\":[{\"source\":\"/usr\",\"target\":\"/t\"}]"));
	expect_fail(rc, &plan, &e, VIOLATION, "/mounts/0", "ro under an overlay-only rule");
	memset(&e, 0, sizeof(e));
	memset(&plan, 0, sizeof(plan));
	rc = narrow_fmt(&pol, &plan, &e,
			R(",\"mounts\":[{\"source\":\"/etc/passwd\",\"target\":\"/t\","
			  "\"mode\":\"overlay\"}]"));
	expect_fail(rc, &plan, &e, INV, "/mounts/0/source", "an overlay of a file");
	memset(&e, 0, sizeof(e));
	policy_free(&pol);
}

static void test_mount_sources(void)
{
	struct tree t;
	struct policy pol = { 0 };
	char sub[PATH_MAX + 16], file[PATH_MAX + 16];
	const struct {
		const char *rel;	/* under the tree's base */
		const char *mode;
		int rc;			/* 0, or the code */
		const char *pointer;
		const char *want_rel;	/* the canonical source */
	} cases[] = {
		{ "ro", "ro", 0, NULL, "ro" },
		{ "ro/sub", "ro", 0, NULL, "ro/sub" },
		{ "ro/file", "ro", 0, NULL, "ro/file" },
		{ "rw", "ro", 0, NULL, "rw" },
		{ "rw", "rw", 0, NULL, "rw" },
		{ "outside/in", "ro", 0, NULL, "ro/sub" },	/* resolved inside */
		{ "ro", "rw", VIOLATION, "/mounts/0", NULL },	/* ro prefix only */
		{ "ro", "overlay", VIOLATION, "/mounts/0", NULL },	/* a mode of its own */
		{ "rw", "overlay", VIOLATION, "/mounts/0", NULL },
		{ "ro/sub", "rw", VIOLATION, "/mounts/0", NULL },
		{ "outside/in", "rw", VIOLATION, "/mounts/0", NULL },
		{ "ro/escape", "ro", VIOLATION, "/mounts/0", NULL },	/* resolved outside */
		{ "outside", "ro", VIOLATION, "/mounts/0", NULL },
		{ "ro2", "ro", VIOLATION, "/mounts/0", NULL },	/* not below "ro" */
		{ "", "ro", VIOLATION, "/mounts/0", NULL },	/* the parent */
		{ "ro/nope", "ro", INV, "/mounts/0/source", NULL },
		{ "ro/dangling", "ro", INV, "/mounts/0/source", NULL },
		{ "ro/file/x", "ro", INV, "/mounts/0/source", NULL },
	};

	tree_make(&t);
	make_tree_policy(&t, &pol);
	path_in(sub, &t, "ro/sub");
	path_in(file, &t, "ro/file");
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct plan plan = { 0 };
		struct verrors e = { 0 };
		char src[PATH_MAX + 16], want[PATH_MAX + 16];
		int rc;

		path_in(src, &t, cases[i].rel);
		if (!cases[i].rel[0])
			snprintf(src, sizeof(src), "%s", t.base);
		rc = narrow_fmt(&pol, &plan, &e,
				R(",\"mounts\":[{\"source\":\"%s\",\"target\":\"/data\","
				  "\"mode\":\"%s\"}]"),
				src, cases[i].mode);
		if (cases[i].rc) {
			expect_fail(rc, &plan, &e, (enum hutch_err)cases[i].rc, cases[i].pointer,
				    cases[i].rel);
			continue;
		}
		if (rc != 0)
			fprintf(stderr, "\n  mount of %s (%s) refused at \"%s\"\n", cases[i].rel,
				cases[i].mode, e.n ? e.items[0].pointer : "");
		CU_ASSERT_EQUAL_FATAL(rc, 0);
		path_in(want, &t, cases[i].want_rel);
		CU_ASSERT_EQUAL_FATAL(plan.n_mounts, 1);
		CU_ASSERT_STRING_EQUAL(plan.mounts[0].source, want);
		CU_ASSERT_STRING_EQUAL(plan.mounts[0].target, "/data");
		CU_ASSERT_EQUAL(plan.mounts[0].rw, strcmp(cases[i].mode, "rw") == 0);
		CU_ASSERT_FALSE(plan.mounts[0].exec);	/* request binds never execute */
		plan_free(&plan);
	}

	/* The second of two is the one named. */
	{
		struct plan plan = { 0 };
		struct verrors e = { 0 };
		int rc = narrow_fmt(&pol, &plan, &e,
				    R(",\"mounts\":[{\"source\":\"%s\",\"target\":\"/a\"},"
				      "{\"source\":\"%s\",\"target\":\"/b\",\"mode\":\"rw\"}]"),
				    t.ro, t.ro);

		expect_fail(rc, &plan, &e, VIOLATION, "/mounts/1", "second mount");
		rc = narrow_fmt(&pol, &plan, &e,
				R(",\"mounts\":[{\"source\":\"%s\",\"target\":\"/a\"},"
				  "{\"source\":\"%s\",\"target\":\"/b\",\"mode\":\"rw\"}]"),
				sub, t.rw);
		CU_ASSERT_EQUAL_FATAL(rc, 0);
		CU_ASSERT_EQUAL_FATAL(plan.n_mounts, 2);
		CU_ASSERT_STRING_EQUAL(plan.mounts[0].source, sub);
		CU_ASSERT_FALSE(plan.mounts[0].rw);
		CU_ASSERT_STRING_EQUAL(plan.mounts[1].source, t.rw);
		CU_ASSERT_TRUE(plan.mounts[1].rw);
		plan_free(&plan);
	}

	/* A policy with no mount rules refuses every mount. */
	{
		struct policy strictish = { 0 };
		struct plan plan = { 0 };
		struct verrors e = { 0 };

		make_policy("[]", &strictish);
		expect_fail(narrow_fmt(&strictish, &plan, &e,
				       R(",\"mounts\":[{\"source\":\"%s\",\"target\":\"/a\"}]"),
				       t.ro),
			    &plan, &e, VIOLATION, "/mounts/0", "no rules");
		policy_free(&strictish);
	}
	/* A rule for "/" takes any existing source, read-only. */
	{
		struct policy any = { 0 };
		struct plan plan = { 0 };
		struct verrors e = { 0 };

		make_policy("[{\"prefix\":\"/\",\"modes\":[\"ro\"]}]", &any);
		CU_ASSERT_EQUAL(narrow_fmt(&any, &plan, &e,
					   R(",\"mounts\":[{\"source\":\"%s\",\"target\":\"/a\"}]"),
					   file),
				0);
		plan_free(&plan);
		expect_fail(narrow_fmt(&any, &plan, &e,
				       R(",\"mounts\":[{\"source\":\"%s\",\"target\":\"/a\","
					 "\"mode\":\"rw\"}]"),
				       file),
			    &plan, &e, VIOLATION, "/mounts/0", "root rule rw");
		policy_free(&any);
	}
	policy_free(&pol);
	tree_remove(&t);
}

static const struct {
	const char *target;
	bool ok;
} targets[] = {
	{ "/data", true },
	{ "/work/sub", true },
	{ "/work/a/b", true },
	{ "/tmp/x", true },
	{ "/home/x", true },
	{ "/srv", true },
	{ "/procfs", true },	/* prefixes are whole components */
	{ "/devices", true },
	{ "/etcetera", true },
	{ "/usrx", true },
	{ "/binx", true },
	{ "/libexec", true },
	{ "/opt/other", true },
	{ "/optx", true },
	{ "/work2", true },
	{ "/tmpx", true },
	{ "/", false },
	{ "/proc", false },
	{ "/proc/x", false },
	{ "/proc/self/root", false },
	{ "/dev", false },
	{ "/dev/shm", false },
	{ "/etc", false },
	{ "/etc/foo", false },
	{ "/bin", false },
	{ "/sbin/x", false },
	{ "/lib", false },
	{ "/lib32", false },
	{ "/lib64/x", false },
	{ "/libx32", false },
	{ "/usr", false },	/* a policy bind */
	{ "/usr/x", false },
	{ "/usr/local/bin", false },
	{ "/opt/tool", false },
	{ "/opt/tool/x", false },
	{ "/opt", false },	/* would hide the bind /opt/tool */
	{ "/tmp", false },
	{ "/work", false },
};

/* Narrow text with origin (what a serve frame brought) set. */
static int narrow_origin(const struct policy *pol, const struct req_origin *o, const char *text,
			 struct plan *plan, struct verrors *e)
{
	struct request req = { 0 };
	struct verrors pe = { 0 };
	int rc = request_parse(text, strlen(text), &req, &pe);

	CU_ASSERT_EQUAL_FATAL(rc, 0);
	req.origin = o;
	plan->argc = 77;	/* must stay untouched on failure */
	rc = narrow(&req, pol, plan, e);
	request_free(&req);
	return rc;
}

/* source_fd names a descriptor of the frame, which obeys the policy's
 * prefixes where it is found; a path needs path binds allowed; the CLI
 * (no origin) takes no descriptors. */
static void test_mount_origin(void)
{
	struct tree t;
	struct policy pol = { 0 };
	char file[PATH_MAX + 16], text[PATH_MAX + 200];
	int fds[3];
	struct req_origin o = { .fds = fds, .n_fds = 3, .peer_uid = geteuid() };
	struct plan plan = { 0 };
	struct verrors e = { 0 };
	static const char fd0[] = R(",\"mounts\":[{\"source_fd\":0,\"target\":\"/d\"}]");

	tree_make(&t);
	make_tree_policy(&t, &pol);
	path_in(file, &t, "ro/file");
	fds[0] = open(t.ro, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fds[1] = open(t.outside, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fds[2] = open(file, O_RDONLY | O_CLOEXEC);
	CU_ASSERT_FATAL(fds[0] >= 0 && fds[1] >= 0 && fds[2] >= 0);

	CU_ASSERT_EQUAL_FATAL(narrow_origin(&pol, &o, fd0, &plan, &e), 0);
	CU_ASSERT_TRUE(plan.mounts[0].by_fd);
	CU_ASSERT_EQUAL(plan.mounts[0].fd, fds[0]);
	CU_ASSERT_STRING_EQUAL(plan.mounts[0].source, t.ro);
	plan_free(&plan);

	expect_fail(narrow_origin(&pol, NULL, fd0, &plan, &e), &plan, &e, INV,
		    "/mounts/0/source_fd", "no origin (hutch run)");
	e = (struct verrors){ 0 };
	o.n_fds = 0;
	expect_fail(narrow_origin(&pol, &o, fd0, &plan, &e), &plan, &e, INV,
		    "/mounts/0/source_fd", "index past the descriptors");
	e = (struct verrors){ 0 };
	o.n_fds = 3;
	expect_fail(narrow_origin(&pol, &o, R(",\"mounts\":[{\"source_fd\":1,\"target\":\"/d\"}]"),
				  &plan, &e),
		    &plan, &e, VIOLATION, "/mounts/0", "a descriptor outside the prefixes");
	e = (struct verrors){ 0 };
	expect_fail(narrow_origin(&pol, &o,
				  R(",\"mounts\":[{\"source_fd\":2,\"target\":\"/f\",\"mode\":\"rw\"}]"),
				  &plan, &e),
		    &plan, &e, VIOLATION, "/mounts/0/source_fd", "a read-only file asked rw");
	e = (struct verrors){ 0 };
	o.path_binds_refused = true;
	snprintf(text, sizeof(text), R(",\"mounts\":[{\"source\":\"%s\",\"target\":\"/d\"}]"),
		 t.ro);
	expect_fail(narrow_origin(&pol, &o, text, &plan, &e), &plan, &e, VIOLATION,
		    "/mounts/0/source", "a path without --allow-path-binds");
	for (int i = 0; i < 3; i++)
		close(fds[i]);
	policy_free(&pol);
	tree_remove(&t);
}

static void test_mount_targets(void)
{
	struct tree t;
	struct policy pol = { 0 };

	tree_make(&t);
	make_tree_policy(&t, &pol);
	for (size_t i = 0; i < ARRAY_SIZE(targets); i++) {
		struct plan plan = { 0 };
		struct verrors e = { 0 };
		int rc;

		if (narrow_target_ok(&pol, targets[i].target) != targets[i].ok)
			fprintf(stderr, "\n  narrow_target_ok(%s) != %d\n", targets[i].target,
				targets[i].ok);
		CU_ASSERT_EQUAL(narrow_target_ok(&pol, targets[i].target), targets[i].ok);
		if (strcmp(targets[i].target, "/") == 0)
			continue;	/* the request itself refuses "/" */
		rc = narrow_fmt(&pol, &plan, &e,
				R(",\"mounts\":[{\"source\":\"%s\",\"target\":\"%s\"}]"), t.ro,
				targets[i].target);
		if (!targets[i].ok) {
			expect_fail(rc, &plan, &e, INV, "/mounts/0/target", targets[i].target);
			continue;
		}
		CU_ASSERT_EQUAL_FATAL(rc, 0);
		CU_ASSERT_STRING_EQUAL(plan.mounts[0].target, targets[i].target);
		plan_free(&plan);
	}

	/* "/" is refused before narrowing, with the same code and pointer. */
	{
		struct request req = { 0 };
		struct verrors e = { 0 };
		char *text;

		CU_ASSERT_FATAL(asprintf(&text,
					 R(",\"mounts\":[{\"source\":\"%s\",\"target\":\"/\"}]"),
					 t.ro) >= 0);
		CU_ASSERT_EQUAL(request_parse(text, strlen(text), &req, &e), -EINVAL);
		CU_ASSERT_EQUAL_FATAL(e.n, 1);
		CU_ASSERT_EQUAL(e.items[0].code, INV);
		CU_ASSERT_STRING_EQUAL(e.items[0].pointer, "/mounts/0/target");
		free(text);
	}

	/* Two mounts on one target. */
	{
		struct plan plan = { 0 };
		struct verrors e = { 0 };

		expect_fail(narrow_fmt(&pol, &plan, &e,
				       R(",\"mounts\":[{\"source\":\"%s\",\"target\":\"/data\"},"
					 "{\"source\":\"%s\",\"target\":\"/x\"},"
					 "{\"source\":\"%s\",\"target\":\"/data\"}]"),
				       t.ro, t.rw, t.rw),
			    &plan, &e, INV, "/mounts/2/target", "duplicate target");
	}
	policy_free(&pol);
	tree_remove(&t);
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
	{ "mount sources, canonicalised", test_mount_sources },
	{ "mount mode overlay", test_mount_overlay },
	{ "mount sources by descriptor, and path binds refused", test_mount_origin },
	{ "mount targets", test_mount_targets },
	{ "files and collect", test_files },
	{ "plan fields", test_plan_fields },
	{ NULL, NULL },
};

UNIT_MAIN("narrow")
