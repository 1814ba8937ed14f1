/* test-request.c: unit tests of request documents (frontend/doc/request.c)
 * accepted: good documents with their parsed fields, request_from_json,
 * and the file and collect names a request may give. Bad documents:
 * test-request-bad.c; the size bounds: test-request-limits.c; the base64
 * codec: test-text.c. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"
#include "doc/json-util.h"
#include "doc/policy.h"
#include "doc/request.h"

#include "cunit-main.h"
#include "request-check.h"

/* ---- good documents ---- */

static struct request parse_ok(const char *text)
{
	struct request r = { 0 };
	struct verrors e = { 0 };
	int rc = request_parse(text, strlen(text), &r, &e);

	if (rc != 0)
		fprintf(stderr, "\n  rejected at \"%s\" (%s): %s\n", e.n ? e.items[0].pointer : "",
			e.n ? e.items[0].reason : "", text);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL(e.n, 0);
	return r;
}

static void test_good_minimal(void)
{
	struct request r = parse_ok(" \n\t{\"argv\":[\"/bin/true\"],\"version\":1}\r\n ");

	CU_ASSERT_PTR_NULL(r.policy);
	CU_ASSERT_EQUAL_FATAL(r.argc, 1);
	CU_ASSERT_STRING_EQUAL(r.argv[0], "/bin/true");
	CU_ASSERT_PTR_NULL(r.argv[1]);
	CU_ASSERT_EQUAL(r.n_env, 0);
	CU_ASSERT_PTR_NULL(r.cwd);
	CU_ASSERT_FALSE(r.stdin_given);
	CU_ASSERT_EQUAL(r.n_files, 0);
	CU_ASSERT_EQUAL(r.n_collect, 0);
	for (int i = 0; i < LIM_COUNT; i++)
		CU_ASSERT_FALSE(r.limit_set[i]);
	CU_ASSERT_FALSE(r.stdout_mode_set);
	CU_ASSERT_FALSE(r.network_set);
	CU_ASSERT_EQUAL(r.n_mounts, 0);
	request_free(&r);
	CU_ASSERT_PTR_NULL(r.argv);	/* request_free clears */
}

static const char full_doc[] =
	"{\"version\":1,\"policy\":\"strict\","
	"\"argv\":[\"/usr/bin/python3\",\"-c\",\"print(6*7)\",\"\",\"\\u00e9\\ud83d\\ude00\"],"
	"\"env\":{\"LANG\":\"C.UTF-8\",\"TZ\":\"\",\"LC_ALL\":\"x=y\",\"_a1\":\"\\u00e9\"},"
	"\"cwd\":\"/work/sub\","
	"\"stdin\":{\"text\":\"in\\u0000put\"},"
	"\"files\":[{\"name\":\"in.txt\",\"text\":\"hello\\n\"},"
	"{\"base64\":\"AP8Q\",\"name\":\"in.bin\"},"
	"{\"name\":\"empty\",\"base64\":\"\"},"
	"{\"name\":\"...\",\"text\":\"\"},"
	"{\"name\":\"sp ace \\u00e9\",\"base64\":\"Zm9vYg==\"}],"
	"\"collect\":[\"out.txt\",\".hidden\"],"
	"\"limits\":{\"wall_ms\":10000,\"memory_bytes\":16777216,\"idle_ms\":0},"
	"\"stdout_mode\":\"frame\","
	"\"network\":\"loopback\","
	"\"mounts\":[{\"source\":\"/srv/data\",\"target\":\"/data\"},"
	"{\"mode\":\"rw\",\"target\":\"/out\",\"source\":\"/srv/out\"},"
	"{\"source\":\"/srv/x\",\"target\":\"/work/x\",\"mode\":\"ro\"}]}";

static void test_good_full(void)
{
	static const char *const env[][2] = {
		{ "LANG", "C.UTF-8" }, { "TZ", "" }, { "LC_ALL", "x=y" }, { "_a1", "\xc3\xa9" },
	};
	struct request r = parse_ok(full_doc);

	CU_ASSERT_STRING_EQUAL(r.policy, "strict");
	CU_ASSERT_EQUAL_FATAL(r.argc, 5);
	CU_ASSERT_STRING_EQUAL(r.argv[0], "/usr/bin/python3");
	CU_ASSERT_STRING_EQUAL(r.argv[1], "-c");
	CU_ASSERT_STRING_EQUAL(r.argv[2], "print(6*7)");
	CU_ASSERT_STRING_EQUAL(r.argv[3], "");
	CU_ASSERT_STRING_EQUAL(r.argv[4], "\xc3\xa9\xf0\x9f\x98\x80");
	CU_ASSERT_PTR_NULL(r.argv[5]);

	CU_ASSERT_EQUAL_FATAL(r.n_env, ARRAY_SIZE(env));
	for (size_t i = 0; i < ARRAY_SIZE(env); i++) {
		CU_ASSERT_STRING_EQUAL(r.env_names[i], env[i][0]);
		CU_ASSERT_STRING_EQUAL(r.env_values[i], env[i][1]);
	}
	CU_ASSERT_STRING_EQUAL(r.cwd, "/work/sub");

	CU_ASSERT_TRUE(r.stdin_given);
	CU_ASSERT_EQUAL_FATAL(r.stdin_len, 6);
	CU_ASSERT_EQUAL(memcmp(r.stdin_data, "in\0put", 6), 0);

	CU_ASSERT_EQUAL_FATAL(r.n_files, 5);
	CU_ASSERT_STRING_EQUAL(r.files[0].name, "in.txt");
	CU_ASSERT_EQUAL(r.files[0].len, 6);
	CU_ASSERT_EQUAL(memcmp(r.files[0].data, "hello\n", 6), 0);
	CU_ASSERT_STRING_EQUAL(r.files[1].name, "in.bin");
	CU_ASSERT_EQUAL_FATAL(r.files[1].len, 3);
	CU_ASSERT_EQUAL(memcmp(r.files[1].data, "\x00\xff\x10", 3), 0);
	CU_ASSERT_STRING_EQUAL(r.files[2].name, "empty");
	CU_ASSERT_EQUAL(r.files[2].len, 0);
	CU_ASSERT_STRING_EQUAL(r.files[3].name, "...");
	CU_ASSERT_EQUAL(r.files[3].len, 0);
	CU_ASSERT_STRING_EQUAL(r.files[4].name, "sp ace \xc3\xa9");
	CU_ASSERT_EQUAL_FATAL(r.files[4].len, 4);
	CU_ASSERT_EQUAL(memcmp(r.files[4].data, "foob", 4), 0);

	CU_ASSERT_EQUAL_FATAL(r.n_collect, 2);
	CU_ASSERT_STRING_EQUAL(r.collect[0], "out.txt");
	CU_ASSERT_STRING_EQUAL(r.collect[1], ".hidden");
	CU_ASSERT_PTR_NULL(r.collect[2]);

	for (int i = 0; i < LIM_COUNT; i++)
		CU_ASSERT_EQUAL(r.limit_set[i],
				i == LIM_WALL_MS || i == LIM_MEMORY_BYTES || i == LIM_IDLE_MS);
	CU_ASSERT_EQUAL(r.limits[LIM_WALL_MS], 10000);
	CU_ASSERT_EQUAL(r.limits[LIM_MEMORY_BYTES], 16777216);
	CU_ASSERT_EQUAL(r.limits[LIM_IDLE_MS], 0);

	CU_ASSERT_TRUE(r.stdout_mode_set);
	CU_ASSERT_EQUAL(r.stdout_mode, STDOUT_FRAME);
	CU_ASSERT_TRUE(r.network_set);
	CU_ASSERT_EQUAL(r.network, NET_LOOPBACK);

	CU_ASSERT_EQUAL_FATAL(r.n_mounts, 3);
	CU_ASSERT_STRING_EQUAL(r.mounts[0].source, "/srv/data");
	CU_ASSERT_STRING_EQUAL(r.mounts[0].target, "/data");
	CU_ASSERT_FALSE(r.mounts[0].rw);	/* mode defaults to ro */
	CU_ASSERT_STRING_EQUAL(r.mounts[1].source, "/srv/out");
	CU_ASSERT_STRING_EQUAL(r.mounts[1].target, "/out");
	CU_ASSERT_TRUE(r.mounts[1].rw);
	CU_ASSERT_STRING_EQUAL(r.mounts[2].target, "/work/x");
	CU_ASSERT_FALSE(r.mounts[2].rw);
	request_free(&r);
}

/* mode "overlay" and export_changes (copy-on-write binds). */
static void test_good_overlay(void)
{
	struct request r = parse_ok(DOC("\"mounts\":[{\"source\":\"/srv/src\",\"target\":\"/src\","
					"\"mode\":\"overlay\"}],\"export_changes\":true"));

	CU_ASSERT_EQUAL_FATAL(r.n_mounts, 1);
	CU_ASSERT_TRUE(r.mounts[0].overlay);
	CU_ASSERT_FALSE(r.mounts[0].rw);
	CU_ASSERT_TRUE(r.export_changes);
	request_free(&r);
	r = parse_ok(DOC("\"mounts\":[{\"source\":\"/srv\",\"target\":\"/s\",\"mode\":\"rw\"}]"));
	CU_ASSERT_FALSE(r.mounts[0].overlay);
	CU_ASSERT_FALSE(r.export_changes);
	request_free(&r);
}

/* A mount names its source by path or by the index of a descriptor the
 * frame passed; the parser keeps which, and never both. */
static void test_good_source_fd(void)
{
	struct request r = parse_ok(DOC(
		"\"mounts\":[{\"source_fd\":0,\"target\":\"/a\"},"
		"{\"target\":\"/b\",\"source_fd\":15,\"mode\":\"rw\"},"
		"{\"source\":\"/srv\",\"target\":\"/c\"},"
		"{\"source_fd\":0,\"target\":\"/d\"}]"));

	CU_ASSERT_EQUAL_FATAL(r.n_mounts, 4);
	CU_ASSERT_PTR_NULL(r.mounts[0].source);
	CU_ASSERT_EQUAL(r.mounts[0].source_fd, 0);
	CU_ASSERT_FALSE(r.mounts[0].rw);
	CU_ASSERT_PTR_NULL(r.mounts[1].source);
	CU_ASSERT_EQUAL(r.mounts[1].source_fd, 15);
	CU_ASSERT_TRUE(r.mounts[1].rw);
	CU_ASSERT_STRING_EQUAL(r.mounts[2].source, "/srv");
	CU_ASSERT_EQUAL(r.mounts[2].source_fd, -1);
	CU_ASSERT_EQUAL(r.mounts[3].source_fd, 0);	/* one descriptor, two targets */
	CU_ASSERT_PTR_NULL(r.origin);	/* serve sets it; a document never does */
	request_free(&r);
}

/* Enumerations, stdin forms, edge values that are fine. */
static void test_good_variants(void)
{
	static const struct {
		const char *text;
		int field;	/* 0 stdout_mode, 1 network, 2 stdin, 3 cwd, 4 env */
		int value;
		const char *data;
		size_t len;
	} variants[] = {
		{ DOC("\"stdout_mode\":\"stream\""), 0, STDOUT_STREAM, NULL, 0 },
		{ DOC("\"stdout_mode\":\"frame\""), 0, STDOUT_FRAME, NULL, 0 },
		{ DOC("\"network\":\"none\""), 1, NET_NONE, NULL, 0 },
		{ DOC("\"network\":\"loopback\""), 1, NET_LOOPBACK, NULL, 0 },
		{ DOC("\"network\":\"host\""), 1, NET_HOST, NULL, 0 },
		{ DOC("\"stdin\":{\"text\":\"\"}"), 2, 0, "", 0 },
		{ DOC("\"stdin\":{\"base64\":\"\"}"), 2, 0, "", 0 },
		{ DOC("\"stdin\":{\"base64\":\"AAEC/w==\"}"), 2, 0, "\x00\x01\x02\xff", 4 },
		{ DOC("\"stdin\":{\"text\":\"\\u00e9\\n\"}"), 2, 0, "\xc3\xa9\n", 3 },
		{ DOC("\"cwd\":\"/\""), 3, 0, "/", 0 },
		{ DOC("\"cwd\":\"/work/...\""), 3, 0, "/work/...", 0 },
		{ DOC("\"cwd\":\"/work/.a/b..\""), 3, 0, "/work/.a/b..", 0 },
		{ DOC("\"env\":{\"_\":\"\"}"), 4, 0, "_", 0 },
		{ DOC("\"env\":{\"a\":\"v\"}"), 4, 0, "a", 0 },
		{ DOC("\"env\":{\"A_1\":\"v\\u0001\"}"), 4, 0, "A_1", 0 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(variants); i++) {
		struct request r = parse_ok(variants[i].text);

		switch (variants[i].field) {
		case 0:
			CU_ASSERT_TRUE(r.stdout_mode_set);
			CU_ASSERT_EQUAL(r.stdout_mode, (enum stdout_mode)variants[i].value);
			break;
		case 1:
			CU_ASSERT_TRUE(r.network_set);
			CU_ASSERT_EQUAL(r.network, (enum net_mode)variants[i].value);
			break;
		case 2:
			CU_ASSERT_TRUE(r.stdin_given);
			CU_ASSERT_PTR_NOT_NULL(r.stdin_data);
			CU_ASSERT_EQUAL(r.stdin_len, variants[i].len);
			if (r.stdin_data && r.stdin_len == variants[i].len)
				CU_ASSERT_EQUAL(memcmp(r.stdin_data, variants[i].data,
						       variants[i].len),
						0);
			break;
		case 3:
			CU_ASSERT_STRING_EQUAL(r.cwd, variants[i].data);
			break;
		default:
			CU_ASSERT_EQUAL_FATAL(r.n_env, 1);
			CU_ASSERT_STRING_EQUAL(r.env_names[0], variants[i].data);
			break;
		}
		request_free(&r);
	}
}

/* request_from_json takes an already parsed document. */
static void test_from_json(void)
{
	struct json_object *doc = json_tokener_parse(DOC("\"cwd\":\"rel\""));
	struct request r = { 0 };
	struct verrors e = { 0 };

	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	CU_ASSERT_EQUAL(request_from_json(doc, &r, &e), -EINVAL);
	CU_ASSERT_EQUAL_FATAL(e.n, 1);
	CU_ASSERT_STRING_EQUAL(e.items[0].pointer, "/cwd");
	json_object_put(doc);

	doc = json_tokener_parse(DOC("\"cwd\":\"/x\""));
	e.n = 0;
	CU_ASSERT_EQUAL(request_from_json(doc, &r, &e), 0);
	CU_ASSERT_EQUAL(e.n, 0);
	CU_ASSERT_STRING_EQUAL(r.cwd, "/x");
	request_free(&r);
	json_object_put(doc);
}

/* ---- file names ---- */

static void test_name_ok(void)
{
	static const struct {
		const char *name;
		bool ok;
	} names[] = {
		{ "a", true },		{ "in.txt", true },	{ "...", true },
		{ ".a", true },		{ "a..", true },	{ "sp ace", true },
		{ "\xc3\xa9", true },	{ "-", true },		{ "~", true },
		{ "", false },		{ ".", false },		{ "..", false },
		{ "a/b", false },	{ "/", false },		{ "a/", false },
		{ "/a", false },	{ "\x01", false },	{ "a\x1f", false },
		{ "a\n", false },	{ "a\x7f", false },	{ "\t", false },
	};
	char long_name[REQ_MAX_NAME + 2];

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		CU_ASSERT_EQUAL(request_name_ok(names[i].name), names[i].ok);
	memset(long_name, 'n', sizeof(long_name));
	long_name[REQ_MAX_NAME] = '\0';
	CU_ASSERT_TRUE(request_name_ok(long_name));
	long_name[REQ_MAX_NAME] = 'n';
	long_name[REQ_MAX_NAME + 1] = '\0';
	CU_ASSERT_FALSE(request_name_ok(long_name));
}

/* Collect names: relative paths of bare names, never leaving the dir. */
static void test_relpath_ok(void)
{
	static const struct {
		const char *name;
		bool ok;
	} names[] = {
		{ "a", true },		{ "a/b", true },	{ "a/b/c.txt", true },
		{ ".a/..b/...", true },	{ "out/", false },	{ "/a", false },
		{ "a//b", false },	{ "a/./b", false },	{ "a/../b", false },
		{ "..", false },	{ "../a", false },	{ "a/..", false },
		{ "", false },		{ "/", false },		{ "a/\n", false },
	};
	char long_path[REQ_MAX_RELPATH + 2];

	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		CU_ASSERT_EQUAL(request_relpath_ok(names[i].name), names[i].ok);
	for (size_t i = 0; i < sizeof(long_path) - 1; i++)
		long_path[i] = i % 2 ? '/' : 'a';
	long_path[REQ_MAX_RELPATH - 1] = '\0'; /* ends in a name */
	CU_ASSERT_TRUE(request_relpath_ok(long_path));
	long_path[REQ_MAX_RELPATH - 1] = 'a';
	long_path[REQ_MAX_RELPATH + 1] = '\0';
	CU_ASSERT_FALSE(request_relpath_ok(long_path));
}

static const struct unit_case cases[] = {
	{ "good: minimal document", test_good_minimal },
	{ "good: every field", test_good_full },
	{ "good: variants", test_good_variants },
	{ "good: overlay mounts and export_changes", test_good_overlay },
	{ "good: mounts by descriptor", test_good_source_fd },
	{ "request_from_json", test_from_json },
	{ "request_name_ok", test_name_ok },
	{ "request_relpath_ok", test_relpath_ok },
	{ NULL, NULL },
};

UNIT_MAIN("request")
