/* test-policy-extends.c: unit tests of "extends" (frontend/doc/
 * policy-extends.c) through policy_load, as hutch loads a policy: merge
 * rules (objects member by member, scalars and arrays replace), the
 * additive lists, chains of 8 files and not 9, cycles with the chain in
 * the message, and every error in the right file at the pointer in that
 * file. Policy files live in a fresh directory first on HUTCH_POLICY_PATH,
 * before the source tree's policy/ (the shipped default is the base). */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "doc/policy-extends.h"
#include "doc/policy-load.h"
#include "doc/policy.h"

#include "cunit-main.h"

static char dir[256];
static char shipped_dir[4096];

static void put(const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "we");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	CU_ASSERT_EQUAL_FATAL(fclose(f), 0);
}

/* HUTCH_POLICY_PATH is read once per process: set it before any load. */
static void setup(void)
{
	const char *src = getenv("HUTCH_SRCDIR");
	char env[4500];

	if (dir[0])
		return;
	CU_ASSERT_PTR_NOT_NULL_FATAL(src);
	snprintf(dir, sizeof(dir), "/tmp/hutch-extends-XXXXXX");
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(shipped_dir, sizeof(shipped_dir), "%s/policy", src);
	snprintf(env, sizeof(env), "%s:%s", dir, shipped_dir);
	CU_ASSERT_EQUAL_FATAL(setenv("HUTCH_POLICY_PATH", env, 1), 0);
}

static void print_errors(const struct verrors *e)
{
	for (size_t i = 0; i < e->n; i++)
		fprintf(stderr, "\n  %s: %s: %s", e->items[i].file ? e->items[i].file : "(no file)",
			e->items[i].pointer, e->items[i].reason);
}

static int load(const char *name, struct policy *p, struct verrors *e)
{
	int r;

	*e = (struct verrors){ 0 };
	r = policy_load(name, p, e);
	if (r != 0 && getenv("VERBOSE"))
		print_errors(e);
	return r;
}

/* The first error (a consequence may follow it): its file's basename,
 * pointer and the start of its reason. */
static void expect_error(const char *name, const char *file, const char *pointer,
			 const char *reason)
{
	struct policy p = { 0 };
	struct verrors e;
	const char *base;

	CU_ASSERT_EQUAL_FATAL(load(name, &p, &e), -EINVAL);
	if (e.n == 0)
		print_errors(&e);
	CU_ASSERT_FATAL(e.n >= 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(e.items[0].file);
	base = strrchr(e.items[0].file, '/');
	CU_ASSERT_STRING_EQUAL(base ? base + 1 : e.items[0].file, file);
	CU_ASSERT_STRING_EQUAL(e.items[0].pointer, pointer);
	if (strncmp(e.items[0].reason, reason, strlen(reason)) != 0)
		fprintf(stderr, "\n  reason: %s", e.items[0].reason);
	CU_ASSERT_EQUAL(strncmp(e.items[0].reason, reason, strlen(reason)), 0);
	CU_ASSERT_EQUAL(e.items[0].code, HUTCH_ERR_POLICY_INVALID);
}

static bool strv_has(char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

/* ---- merge rules ---- */

static void test_merge_rules(void)
{
	struct policy d = { 0 }, p = { 0 };
	struct verrors e;

	setup();
	put("merge.json",
	    "{\"extends\": \"default\", \"hostname\": \"child\","
	    " \"limits\": {\"wall_ms\": {\"max\": 60000}, \"processes\": {\"default\": 8, \"max\": 16}},"
	    " \"network\": {\"allow\": [\"none\"], \"default\": \"none\"},"
	    " \"seccomp\": {\"syscalls\": [\"kcmp\"]},"
	    " \"env\": {\"set\": {\"CHILD_VAR\": \"1\"}, \"allow\": [\"ONLY\"]}}");
	CU_ASSERT_EQUAL_FATAL(load("default", &d, &e), 0);
	CU_ASSERT_EQUAL_FATAL(load("merge", &p, &e), 0);
	CU_ASSERT_STRING_EQUAL(p.name, "merge");
	CU_ASSERT_STRING_EQUAL(p.hostname, "child");			/* a scalar replaces */
	CU_ASSERT_EQUAL(p.limits[LIM_WALL_MS].max, 60000);		/* objects merge ... */
	CU_ASSERT_EQUAL(p.limits[LIM_WALL_MS].def, d.limits[LIM_WALL_MS].def); /* ... member by member */
	CU_ASSERT_EQUAL(p.limits[LIM_PROCESSES].def, 8);
	CU_ASSERT_EQUAL(p.limits[LIM_CPU_MS].max, d.limits[LIM_CPU_MS].max); /* inherited */
	CU_ASSERT_STRING_EQUAL(p.description, d.description);
	CU_ASSERT_EQUAL(p.n_binds, d.n_binds);
	CU_ASSERT(p.net_allowed[NET_NONE] && !p.net_allowed[NET_LOOPBACK]); /* an array replaces */
	CU_ASSERT_EQUAL(p.n_syscalls, 1);
	CU_ASSERT_STRING_EQUAL(p.syscalls[0], "kcmp");
	CU_ASSERT_EQUAL(p.n_env_allow, 1);
	CU_ASSERT_STRING_EQUAL(p.env_allow[0], "ONLY");
	CU_ASSERT_EQUAL(p.n_env_set, d.n_env_set + 1);			/* env.set is an object */
	CU_ASSERT(strv_has(p.env_set, p.n_env_set, "CHILD_VAR=1"));
	CU_ASSERT(strv_has(p.env_set, p.n_env_set, d.env_set[0]));
	CU_ASSERT_STRING_NOT_EQUAL(p.canonical, d.canonical);
	policy_free(&p);

	/* Nothing changed: the same canonical form as the parent. */
	put("same.json", "{\"extends\": \"default\"}");
	CU_ASSERT_EQUAL_FATAL(load("same", &p, &e), 0);
	CU_ASSERT_STRING_EQUAL(p.canonical, d.canonical);
	policy_free(&p);
	policy_free(&d);
}

/* ---- the additive lists ---- */

static void test_append(void)
{
	struct policy d = { 0 }, p = { 0 }, q = { 0 };
	struct verrors e;

	setup();
	put("grow.json",
	    "{\"extends\": \"default\","
	    " \"filesystem\": {\"binds\": {\"append\": [{\"path\": \"/opt\", \"exec\": true}]}},"
	    " \"mounts\": {\"append\": [{\"prefix\": \"/srv/data\", \"modes\": [\"ro\"]}]},"
	    " \"env\": {\"allow\": {\"append\": [\"CFLAGS\", \"MAKEFLAGS\"]},"
	    "          \"allow_prefixes\": {\"append\": [\"GIT_\"]}}}");
	put("grow2.json", "{\"extends\": \"./grow.json\", \"env\": {\"allow\": {\"append\": [\"LDFLAGS\"]}}}");
	CU_ASSERT_EQUAL_FATAL(load("default", &d, &e), 0);
	CU_ASSERT_EQUAL_FATAL(load("grow", &p, &e), 0);
	CU_ASSERT_EQUAL_FATAL(p.n_binds, d.n_binds + 1);
	CU_ASSERT_STRING_EQUAL(p.binds[0].path, d.binds[0].path);	/* the parent's first */
	CU_ASSERT_STRING_EQUAL(p.binds[d.n_binds].path, "/opt");
	CU_ASSERT(p.binds[d.n_binds].exec);
	CU_ASSERT_EQUAL_FATAL(p.n_mount_rules, d.n_mount_rules + 1);
	CU_ASSERT_STRING_EQUAL(p.mount_rules[d.n_mount_rules].prefix, "/srv/data");
	CU_ASSERT_EQUAL_FATAL(p.n_env_allow, d.n_env_allow + 2);
	CU_ASSERT_STRING_EQUAL(p.env_allow[0], d.env_allow[0]);
	CU_ASSERT_STRING_EQUAL(p.env_allow[d.n_env_allow + 1], "MAKEFLAGS");
	CU_ASSERT_EQUAL(p.n_env_allow_prefixes, d.n_env_allow_prefixes + 1);
	CU_ASSERT(strv_has(p.env_allow_prefixes, p.n_env_allow_prefixes, "GIT_"));
	/* Two levels of appending, the second by a relative path. */
	CU_ASSERT_EQUAL_FATAL(load("grow2", &q, &e), 0);
	CU_ASSERT_EQUAL(q.n_env_allow, d.n_env_allow + 3);
	CU_ASSERT_STRING_EQUAL(q.env_allow[d.n_env_allow + 2], "LDFLAGS");
	CU_ASSERT_EQUAL(q.n_binds, p.n_binds);
	policy_free(&q);
	policy_free(&p);
	policy_free(&d);
}

static void test_append_errors(void)
{
	char path[512];

	setup();
	put("app-num.json", "{\"extends\": \"default\", \"env\": {\"allow\": {\"append\": 5}}}");
	expect_error("app-num", "app-num.json", "/env/allow/append", "must be an array");
	put("app-key.json",
	    "{\"extends\": \"default\", \"env\": {\"allow\": {\"append\": [], \"x\": 1}}}");
	expect_error("app-key", "app-key.json", "/env/allow/x", "unknown field");
	put("app-none.json", "{\"extends\": \"default\", \"mounts\": {}}");
	expect_error("app-none", "app-none.json", "/mounts/append", "missing");
	/* Only the growable lists: elsewhere an object is just the wrong type. */
	put("app-net.json",
	    "{\"extends\": \"default\", \"network\": {\"allow\": {\"append\": [\"host\"]}}}");
	expect_error("app-net", "app-net.json", "/network/allow", "must be an array");
	/* Without extends, every field is required and append means nothing. */
	put("app-base.json", "{\"env\": {\"allow\": {\"append\": []}}}");
	snprintf(path, sizeof(path), "%s/app-base.json", dir);
	{
		struct policy p = { 0 };
		struct verrors e;

		CU_ASSERT_EQUAL(load(path, &p, &e), -EINVAL);
		CU_ASSERT(e.n > 1);	/* every missing section, and the append */
		CU_ASSERT_PTR_NOT_NULL(e.items[0].file);
	}
}

/* ---- depth and cycles ---- */

static void chain_of(const char *prefix, int n)
{
	char name[64], text[256];

	for (int i = 1; i <= n; i++) {
		snprintf(name, sizeof(name), "%s%d.json", prefix, i);
		if (i == n)
			snprintf(text, sizeof(text), "{\"extends\": \"default\"}");
		else
			snprintf(text, sizeof(text), "{\"extends\": \"%s%d\", \"hostname\": \"h%d\"}",
				 prefix, i + 1, i);
		put(name, text);
	}
}

static void test_depth(void)
{
	struct policy p = { 0 };
	struct verrors e;

	setup();
	/* d1 .. d7 and default: 8 files. */
	chain_of("d", 7);
	CU_ASSERT_EQUAL_FATAL(load("d1", &p, &e), 0);
	CU_ASSERT_STRING_EQUAL(p.hostname, "h1");
	policy_free(&p);
	/* e1 .. e8 and default: 9 files; e8 may not name a parent. */
	chain_of("e", 8);
	expect_error("e1", "e8.json", "/extends", "the chain is longer than 8 policy files");
	CU_ASSERT_EQUAL_FATAL(load("e2", &p, &e), 0);
	policy_free(&p);
}

static void test_cycles(void)
{
	struct policy p = { 0 };
	struct verrors e;

	setup();
	put("cy-a.json", "{\"extends\": \"cy-b\"}");
	put("cy-b.json", "{\"extends\": \"./cy-a.json\"}");
	expect_error("cy-a", "cy-b.json", "/extends", "extends makes a cycle: ");
	CU_ASSERT_EQUAL(load("cy-a", &p, &e), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.items[0].reason, "cy-a.json -> "));
	CU_ASSERT_PTR_NOT_NULL(strstr(e.items[0].reason, "cy-b.json -> "));
	put("cy-self.json", "{\"extends\": \"./cy-self.json\"}");
	expect_error("cy-self", "cy-self.json", "/extends", "extends makes a cycle: ");
	/* A link is the same file. */
	put("cy-l.json", "{\"extends\": \"./cy-link.json\"}");
	{
		char a[512], b[512];

		snprintf(a, sizeof(a), "%s/cy-l.json", dir);
		snprintf(b, sizeof(b), "%s/cy-link.json", dir);
		CU_ASSERT_EQUAL_FATAL(symlink(a, b), 0);
	}
	expect_error("cy-l", "cy-l.json", "/extends", "extends makes a cycle: ");
	/* A policy extending its own name takes the next directory's: an
	 * admin's default.json on top of the shipped one. */
	put("default.json", "{\"extends\": \"default\", \"hostname\": \"admin\"}");
	CU_ASSERT_EQUAL_FATAL(load("default", &p, &e), 0);
	CU_ASSERT_STRING_EQUAL(p.hostname, "admin");
	policy_free(&p);
	{
		char path[512];

		snprintf(path, sizeof(path), "%s/default.json", dir);
		CU_ASSERT_EQUAL(unlink(path), 0);
	}
}

/* ---- errors: the file and the pointer in it ---- */

static void test_error_files(void)
{
	struct policy p = { 0 };
	struct verrors e;

	setup();
	/* In the child, at the child's pointer. */
	put("er-1.json", "{\"extends\": \"default\", \"limits\": {\"wall_ms\": {\"max\": 0}}}");
	expect_error("er-1", "er-1.json", "/limits/wall_ms/max", "out of range");
	put("er-typo.json", "{\"extends\": \"default\", \"limitz\": {}}");
	expect_error("er-typo", "er-typo.json", "/limitz", "unknown field");
	/* An appended element: its pointer in the file is under "append". */
	put("er-app.json",
	    "{\"extends\": \"default\", \"filesystem\": {\"binds\": {\"append\": "
	    "[{\"path\": \"/opt\", \"exec\": false}, {\"path\": \"/proc\", \"exec\": false}]}}}");
	expect_error("er-app", "er-app.json", "/filesystem/binds/append/1/path",
		     "must be a clean absolute path");
	/* A parent broken on its own: its file, even from a valid child. */
	put("er-base.json", "{\"version\": 1}");
	put("er-kid.json", "{\"extends\": \"er-base\", \"hostname\": \"x\"}");
	CU_ASSERT_EQUAL(load("er-kid", &p, &e), -EINVAL);
	CU_ASSERT(e.n > 5);
	for (size_t i = 0; i < e.n; i++)
		CU_ASSERT_PTR_NOT_NULL(strstr(e.items[i].file, "/er-base.json"));
	/* A parent's member that a child's change makes wrong: the member's
	 * file and pointer, and which file's change did it. */
	put("er-mid.json",
	    "{\"extends\": \"default\", \"filesystem\": {\"binds\": {\"append\": "
	    "[{\"path\": \"/srv/w\", \"exec\": false}]}}}");
	put("er-low.json", "{\"extends\": \"er-mid\", \"filesystem\": {\"work_dir\": \"/srv\"}}");
	CU_ASSERT_EQUAL_FATAL(load("er-low", &p, &e), -EINVAL);
	CU_ASSERT_EQUAL_FATAL(e.n, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.items[0].file, "/er-mid.json"));
	CU_ASSERT_STRING_EQUAL(e.items[0].pointer, "/filesystem/binds/append/0/path");
	CU_ASSERT_PTR_NOT_NULL(strstr(e.items[0].reason, "er-low.json extends it"));
	/* A parent's JSON error is in the parent. */
	put("er-json.json", "{\"version\": 1,");
	put("er-jkid.json", "{\"extends\": \"er-json\"}");
	expect_error("er-jkid", "er-json.json", "", "");
	/* A child's JSON error too, with a file. */
	expect_error("er-json", "er-json.json", "", "");
}

static void test_extends_value(void)
{
	char fifo[512], secret[512], text[1200];
	struct policy p = { 0 };
	struct verrors e;

	setup();
	put("ex-num.json", "{\"extends\": 5}");
	expect_error("ex-num", "ex-num.json", "/extends", "must be a policy name or a path");
	put("ex-name.json", "{\"extends\": \"Not A Name\"}");
	expect_error("ex-name", "ex-name.json", "/extends", "must be a policy name or a path");
	put("ex-missing.json", "{\"extends\": \"no-such-parent\"}");
	expect_error("ex-missing", "ex-missing.json", "/extends",
		     "no such policy no-such-parent (searched ");
	CU_ASSERT_EQUAL(load("ex-missing", &p, &e), -EINVAL);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.items[0].reason, dir));
	CU_ASSERT_PTR_NOT_NULL(strstr(e.items[0].reason, shipped_dir));
	put("ex-nofile.json", "{\"extends\": \"sub/none.json\"}");
	expect_error("ex-nofile", "ex-nofile.json", "/extends", "no such file");
	put("ex-dir.json", "{\"extends\": \"/tmp/\"}");
	expect_error("ex-dir", "ex-dir.json", "/extends", "not a regular file");
	/* A FIFO is refused at once, not waited on. */
	snprintf(fifo, sizeof(fifo), "%s/fifo.json", dir);
	CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
	put("ex-fifo.json", "{\"extends\": \"./fifo.json\"}");
	expect_error("ex-fifo", "ex-fifo.json", "/extends", "not a regular file");
	/* A file that is not a policy: an error at its root, never its text. */
	snprintf(secret, sizeof(secret), "%s/secret.txt", dir);
	put("secret.txt", "root:s3cr3t-hash:0:0\n");
	snprintf(text, sizeof(text), "{\"extends\": \"%s\"}", secret);
	put("ex-secret.json", text);
	CU_ASSERT_EQUAL(load("ex-secret", &p, &e), -EINVAL);
	for (size_t i = 0; i < e.n; i++) {
		CU_ASSERT_PTR_NULL(strstr(e.items[i].reason, "s3cr3t"));
		CU_ASSERT_PTR_NULL(strstr(e.items[i].pointer, "s3cr3t"));
		CU_ASSERT_PTR_NOT_NULL(strstr(e.items[i].file, "secret.txt"));
	}
	/* Text that did not come from a file has no parents to find. */
	CU_ASSERT_EQUAL(policy_parse("{\"extends\": \"default\"}", 22, "x", &p, &e), -EINVAL);
}

/* ---- the digest follows the parent ---- */

static void test_digest_follows_parent(void)
{
	const char *helper = "/proc/self/exe";
	char d1[72], d2[72], d3[72];
	struct policy p = { 0 };
	struct verrors e;

	setup();
	put("dg-base.json", "{\"extends\": \"default\", \"description\": \"one\"}");
	put("dg-kid.json", "{\"extends\": \"dg-base\", \"hostname\": \"kid\"}");
	CU_ASSERT_EQUAL_FATAL(load("dg-kid", &p, &e), 0);
	CU_ASSERT_EQUAL_FATAL(policy_digest(&p, helper, d1), 0);
	policy_free(&p);
	CU_ASSERT_EQUAL_FATAL(load("dg-kid", &p, &e), 0);
	CU_ASSERT_EQUAL_FATAL(policy_digest(&p, helper, d2), 0);
	policy_free(&p);
	CU_ASSERT_STRING_EQUAL(d1, d2);
	put("dg-base.json", "{\"extends\": \"default\", \"description\": \"two\"}");
	CU_ASSERT_EQUAL_FATAL(load("dg-kid", &p, &e), 0);
	CU_ASSERT_EQUAL_FATAL(policy_digest(&p, helper, d3), 0);
	CU_ASSERT_STRING_NOT_EQUAL(d1, d3);
	CU_ASSERT_STRING_EQUAL(p.description, "two");
	policy_free(&p);
}

static void test_missing_reason(void)
{
	setup();
	CU_ASSERT_EQUAL(strncmp(policy_missing_reason("defualt"), "no such policy defualt (searched ", 33), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(policy_missing_reason("defualt"), shipped_dir));
	CU_ASSERT_PTR_NULL(strstr(policy_missing_reason("Bad Name"), "Bad"));
	CU_ASSERT_STRING_EQUAL(policy_missing_reason("./x\n.json"), "no such policy file ./x?.json");
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(path);
}

static void test_cleanup(void)
{
	setup();
	CU_ASSERT_EQUAL(nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

static const struct unit_case cases[] = {
	{ "merge rules", test_merge_rules },
	{ "additive lists", test_append },
	{ "append errors", test_append_errors },
	{ "depth 8 ok, 9 refused", test_depth },
	{ "cycles refused with the chain", test_cycles },
	{ "errors name the file and the pointer in it", test_error_files },
	{ "the extends value and what it may name", test_extends_value },
	{ "the digest follows the parent", test_digest_follows_parent },
	{ "a missing policy names the directories searched", test_missing_reason },
	{ "cleanup", test_cleanup },
	{ NULL, NULL },
};

UNIT_MAIN("policy-extends")
