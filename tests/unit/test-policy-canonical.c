/* test-policy-canonical.c: unit tests of what identifies a policy
 * (frontend/doc/policy.c, policy-load.c): loading by path and by name gives
 * the same canonical form; the canonical form and the digest are stable
 * and change when meaning or the helper changes. Invalid policies:
 * test-policy.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "doc/json-util.h"
#include "doc/policy-load.h"
#include "doc/policy.h"

#include "cunit-main.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define INVALID HUTCH_ERR_POLICY_INVALID

#include "policy-text.h"
#include "policy-mutate.h"

/* ---- loading ---- */

/* policy_load: by path (named after the file) and by name. */
static void test_load(void)
{
	const char *src = getenv("HUTCH_SRCDIR");
	char dir[4096], path[4200];
	struct policy p = { 0 }, q = { 0 };
	struct verrors e = { 0 };
	size_t len;
	char *text;

	CU_ASSERT_PTR_NOT_NULL_FATAL(src);
	snprintf(dir, sizeof(dir), "%s/policy", src);
	snprintf(path, sizeof(path), "%s/strict.json", dir);
	/* Before the first search: the directory list is computed once. */
	CU_ASSERT_EQUAL_FATAL(setenv("HUTCH_POLICY_PATH", dir, 1), 0);

	CU_ASSERT_EQUAL_FATAL(policy_load(path, &p, &e), 0);
	CU_ASSERT_STRING_EQUAL(p.name, "strict");
	text = read_policy("strict", &len);
	CU_ASSERT_EQUAL_FATAL(policy_parse(text, len, "strict", &q, &e), 0);
	CU_ASSERT_STRING_EQUAL(p.canonical, q.canonical);
	policy_free(&p);
	free(text);

	CU_ASSERT_EQUAL_FATAL(policy_load("strict", &p, &e), 0);
	CU_ASSERT_STRING_EQUAL(p.name, "strict");
	CU_ASSERT_STRING_EQUAL(p.canonical, q.canonical);
	CU_ASSERT_STRING_EQUAL(policy_search_dirs()[0], dir);
	CU_ASSERT_PTR_NULL(policy_search_dirs()[1]);
	policy_free(&p);
	policy_free(&q);

	CU_ASSERT_EQUAL(policy_load("nosuch", &p, &e), -ENOENT);
	CU_ASSERT_EQUAL(policy_load("Strict", &p, &e), -ENOENT);	/* not a policy name */
	CU_ASSERT_EQUAL(policy_load("", &p, &e), -ENOENT);
	CU_ASSERT_EQUAL(policy_load("/nonexistent/x.json", &p, &e), -ENOENT);
	CU_ASSERT_EQUAL(e.n, 0);
	CU_ASSERT_EQUAL(policy_load(dir, &p, &e), -EINVAL);	/* a directory */
	CU_ASSERT_EQUAL(e.n, 1);
	CU_ASSERT_EQUAL(e.items[0].code, INVALID);
}

/* ---- canonical form ---- */

/* Members in reverse order, recursively; arrays keep their order. */
static struct json_object *reorder(struct json_object *o)
{
	struct json_object *r;

	if (json_object_is_type(o, json_type_array)) {
		r = json_object_new_array();
		for (size_t i = 0; i < json_object_array_length(o); i++)
			json_object_array_add(r, reorder(json_object_array_get_idx(o, i)));
		return r;
	}
	if (json_object_is_type(o, json_type_object)) {
		const char *keys[64];
		size_t n = 0;

		json_object_object_foreach(o, k, v) {
			(void)v;
			CU_ASSERT_FATAL(n < ARRAY_SIZE(keys));
			keys[n++] = k;
		}
		r = json_object_new_object();
		while (n--) {
			struct json_object *child = NULL;

			json_object_object_get_ex(o, keys[n], &child);
			json_object_object_add(r, keys[n], reorder(child));
		}
		return r;
	}
	return json_object_get(o);
}

static char *canonical_of(const char *text)
{
	struct policy p = { 0 };
	struct verrors e = { 0 };
	char *c;

	CU_ASSERT_EQUAL_FATAL(parse_text(text, "canon", &p, &e), 0);
	c = strdup(p.canonical);
	policy_free(&p);
	return c;
}

static void test_canonical_stable(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(shipped); i++) {
		size_t len;
		char *text = read_policy(shipped[i], &len);
		struct json_object *root = json_tokener_parse(text), *rev = reorder(root);
		char *base = canonical_of(text), *other;

		/* Same text twice. */
		other = canonical_of(text);
		CU_ASSERT_STRING_EQUAL(other, base);
		free(other);
		/* Members reordered at every level, other whitespace. */
		other = canonical_of(json_object_to_json_string_ext(
			rev, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_PRETTY_TAB));
		if (strcmp(other, base) != 0) {
			size_t at = 0;

			while (other[at] == base[at])
				at++;
			fprintf(stderr, "\n  %s reordered: canonical differs at \"%.40s\"\n",
				shipped[i], base + at);
		}
		CU_ASSERT_STRING_EQUAL(other, base);
		free(other);
		other = canonical_of(json_object_to_json_string_ext(rev, JSON_C_TO_STRING_PLAIN));
		CU_ASSERT_STRING_EQUAL(other, base);
		free(other);
		/* No whitespace outside strings, no newline at all. */
		CU_ASSERT_PTR_NULL(strchr(base, '\n'));
		CU_ASSERT_PTR_NULL(strstr(base, "\": "));
		CU_ASSERT_EQUAL(strncmp(base, "{\"version\":1,", 13), 0);
		json_object_put(rev);
		json_object_put(root);
		free(base);
		free(text);
	}
}

/* Spellings of the same meaning print the same; a changed value does not. */
static void test_canonical_changes(void)
{
	static const struct {
		struct mutation m[2];
		bool same;
	} cases[] = {
		{ { { "/mounts/1/modes", "[\"overlay\",\"rw\",\"ro\"]" }, { NULL, NULL } }, true },
		{ { { "/mounts/1/modes", "[\"ro\",\"rw\",\"overlay\",\"ro\"]" }, { NULL, NULL } },
		  true },
		{ { { "/mounts/1/modes", "[\"ro\",\"rw\"]" }, { NULL, NULL } }, false },
		/* absent overlay bounds are the built-in ones */
		{ { { "/limits/overlay_bytes", "{\"default\":268435456,\"max\":268435456}" },
		    { "/limits/overlay_inodes", "{\"default\":65536,\"max\":65536}" } },
		  true },
		{ { { "/limits/overlay_inodes", "{\"default\":64,\"max\":65536}" }, { NULL, NULL } },
		  false },
		{ { { "/network/allow", "[\"loopback\",\"none\"]" }, { NULL, NULL } }, true },
		{ { { "/requires", "[\"seccomp\",\"user_namespaces\"]" }, { NULL, NULL } }, true },
		{ { { "/limits/wall_ms/default", "30000" }, { NULL, NULL } }, true },
		{ { { "/limits/wall_ms/default", "30001" }, { NULL, NULL } }, false },
		{ { { "/limits/work_bytes/max", "268435457" }, { NULL, NULL } }, false },
		/* absent inode counts mean the built-in ones, which default.json states */
		{ { { "/limits/tmp_inodes", NULL }, { "/limits/work_inodes", NULL } }, true },
		{ { { "/limits/work_inodes", NULL }, { NULL, NULL } }, true },
		{ { { "/limits/tmp_inodes/max", "32769" }, { NULL, NULL } }, false },
		{ { { "/limits/work_inodes/default", "65535" }, { NULL, NULL } }, false },
		{ { { "/description", "\"other\"" }, { NULL, NULL } }, false },
		{ { { "/filesystem/binds/0/exec", "false" }, { NULL, NULL } }, false },
		{ { { "/filesystem/usr_symlinks", "false" }, { NULL, NULL } }, false },
		{ { { "/mounts/1/modes", "[\"ro\"]" }, { NULL, NULL } }, false },
		{ { { "/network/allow/2", "\"host\"" }, { NULL, NULL } }, false },
		{ { { "/env/set/LANG", "\"C\"" }, { NULL, NULL } }, false },
		{ { { "/env/allow/0", "\"LANGX\"" }, { NULL, NULL } }, false },
		{ { { "/seccomp/syscalls", "[\"acct\"]" }, { NULL, NULL } }, false },
		{ { { "/seccomp/allow_ptrace", "true" }, { NULL, NULL } }, false },
		{ { { "/landlock", "\"off\"" }, { NULL, NULL } }, false },
		{ { { "/user/gid", "65533" }, { NULL, NULL } }, false },
		{ { { "/requires/2", "\"cgroup\"" }, { NULL, NULL } }, false },
		{ { { "/on_limit/partial_output", "true" }, { NULL, NULL } }, false },
		{ { { "/on_limit/overflow", "\"truncate\"" }, { NULL, NULL } }, false },
		{ { { "/hostname", "\"box\"" }, { NULL, NULL } }, false },
		{ { { "/files/max_count", "63" }, { NULL, NULL } }, false },
		{ { { "/collect/max_bytes", "1" }, { NULL, NULL } }, false },
	};
	size_t len;
	char *text = read_policy("default", &len);
	char *base = canonical_of(text);

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *mt = mutated_default(cases[i].m, 2);
		char *c = canonical_of(mt);

		if ((strcmp(c, base) == 0) != cases[i].same)
			fprintf(stderr, "\n  canonical case %zu (%s): want %s\n", i,
				cases[i].m[0].pointer, cases[i].same ? "same" : "different");
		CU_ASSERT_EQUAL(strcmp(c, base) == 0, cases[i].same);
		free(c);
		free(mt);
	}
	free(base);
	free(text);
}

/* ---- digest ---- */

static void digest_of(const struct policy *p, const char *helper, char out[72])
{
	memset(out, 0, 72);
	CU_ASSERT_EQUAL_FATAL(policy_digest(p, helper, out), 0);
	CU_ASSERT_EQUAL(strlen(out), 7 + 64);
	CU_ASSERT_EQUAL(strncmp(out, "sha256:", 7), 0);
	CU_ASSERT_EQUAL(strspn(out + 7, "0123456789abcdef"), 64);
}

static void set_mtime(const char *path, time_t sec)
{
	struct timespec ts[2] = { { sec, 0 }, { sec, 0 } };

	CU_ASSERT_EQUAL_FATAL(utimensat(AT_FDCWD, path, ts, 0), 0);
}

/* The stand-in helper at path, holding text, its mtime sec. */
static void write_helper(const char *path, const char *text, time_t sec)
{
	FILE *f = fopen(path, "we");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
	set_mtime(path, sec);
}

static void test_digest(void)
{
	char dir[] = "/tmp/hutch-test-policy-XXXXXX";
	char helper[128], alias[128];
	char a[72], b[72], c[72];
	struct policy p = { 0 }, q = { 0 };
	struct verrors e = { 0 };
	static const struct mutation m = { "/limits/wall_ms/default", "30001" };
	size_t len;
	char *text = read_policy("default", &len), *other = mutated_default(&m, 1);

	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
	snprintf(helper, sizeof(helper), "%s/hutch-exec", dir);
	snprintf(alias, sizeof(alias), "%s/hutch-exec2", dir);
	write_helper(helper, "helper v1\n", 1000000000);
	CU_ASSERT_EQUAL_FATAL(policy_parse(text, len, "default", &p, &e), 0);
	CU_ASSERT_EQUAL_FATAL(parse_text(other, "default", &q, &e), 0);

	/* stable */
	digest_of(&p, helper, a);
	digest_of(&p, helper, b);
	CU_ASSERT_STRING_EQUAL(a, b);
	/* the canonical form counts */
	digest_of(&q, helper, c);
	CU_ASSERT_STRING_NOT_EQUAL(a, c);
	/* the name does not: it is not in the canonical form */
	free(p.name);
	p.name = strdup("renamed");
	digest_of(&p, helper, b);
	CU_ASSERT_STRING_EQUAL(a, b);

	/* the helper's mtime, then back */
	set_mtime(helper, 1000000001);
	digest_of(&p, helper, b);
	CU_ASSERT_STRING_NOT_EQUAL(a, b);
	set_mtime(helper, 1000000000);
	digest_of(&p, helper, b);
	CU_ASSERT_STRING_EQUAL(a, b);
	/* the helper rewritten: another size, same mtime */
	write_helper(helper, "helper v2, longer\n", 1000000000);
	digest_of(&p, helper, b);
	CU_ASSERT_STRING_NOT_EQUAL(a, b);
	/* the same file under another path */
	digest_of(&p, helper, a);
	CU_ASSERT_EQUAL_FATAL(link(helper, alias), 0);
	digest_of(&p, alias, c);
	CU_ASSERT_STRING_NOT_EQUAL(a, c);
	/* replaced by another file (another inode), same size and mtime */
	CU_ASSERT_EQUAL_FATAL(unlink(helper), 0);
	write_helper(helper, "helper v3, longer\n", 1000000000);
	digest_of(&p, helper, b);
	CU_ASSERT_STRING_NOT_EQUAL(a, b);
	/* no helper */
	CU_ASSERT_EQUAL(unlink(helper), 0);
	CU_ASSERT_EQUAL(policy_digest(&p, helper, b), -ENOENT);

	CU_ASSERT_EQUAL(unlink(alias), 0);
	CU_ASSERT_EQUAL(rmdir(dir), 0);
	policy_free(&p);
	policy_free(&q);
	free(text);
	free(other);
}

static const struct unit_case cases[] = {
	{ "policy_load by path and by name", test_load },
	{ "canonical form stable", test_canonical_stable },
	{ "canonical form follows meaning", test_canonical_changes },
	{ "digest", test_digest },
	{ NULL, NULL },
};

UNIT_MAIN("policy-canonical")
