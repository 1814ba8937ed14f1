/* test-narrow-mounts.c: unit tests of narrowing (frontend/jail/narrow.c)
 * request mounts: sources canonicalised in a temporary tree and held to the
 * policy's prefixes and modes, an overlay a mode of its own, a source given
 * by a descriptor a serve frame passed, and the places a target may be.
 * The rest of narrowing: test-narrow.c; the fixtures: narrow-fixtures.c. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "doc/policy.h"
#include "doc/request.h"
#include "jail/narrow.h"

#include "cunit-main.h"
#include "narrow-fixtures.h"

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
	char *rules;

	CU_ASSERT_FATAL(asprintf(&rules,
				 "[{\"prefix\":\"%s\",\"modes\":[\"ro\"]},"
				 "{\"prefix\":\"%s\",\"modes\":[\"ro\",\"rw\"]}]",
				 t->ro, t->rw) >= 0);
	make_policy(rules, ret);
	free(rules);
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

static const struct unit_case cases[] = {
	{ "mount sources, canonicalised", test_mount_sources },
	{ "mount mode overlay", test_mount_overlay },
	{ "mount sources by descriptor, and path binds refused", test_mount_origin },
	{ "mount targets", test_mount_targets },
	{ NULL, NULL },
};

UNIT_MAIN("narrow-mounts")
