/* test-units.c: unit tests of the command-line size and duration parsers
 * (frontend/doc/units.c) and of the strict JSON reader's own checks
 * (frontend/doc/json-util.c): whole input, one object, bounded depth and
 * duplicate keys compared after unescaping. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc/json-util.h"
#include "doc/units.h"

#include "cunit-main.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define KiB (1ull << 10)
#define MiB (1ull << 20)
#define GiB (1ull << 30)
#define TiB (1ull << 40)

struct unit_want {
	const char *text;
	int rc;
	uint64_t value;	/* when rc == 0 */
};

/* Sentinel: a failed parse must leave *ret alone. */
#define UNTOUCHED 0x5a5a5a5a5a5a5a5aull

static void check_units(const char *what, int (*parse)(const char *, uint64_t *),
			const struct unit_want *w, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t v = UNTOUCHED;
		int rc = parse(w[i].text, &v);

		if (rc != w[i].rc || (rc == 0 && v != w[i].value) || (rc != 0 && v != UNTOUCHED))
			fprintf(stderr, "\n  %s(\"%s\"): rc %d value %llu, want rc %d value %llu\n",
				what, w[i].text, rc, (unsigned long long)v, w[i].rc,
				(unsigned long long)w[i].value);
		CU_ASSERT_EQUAL(rc, w[i].rc);
		CU_ASSERT_EQUAL(v, w[i].rc == 0 ? w[i].value : UNTOUCHED);
	}
}

/* ---- sizes ---- */

static const struct unit_want sizes[] = {
	{ "0", 0, 0 },
	{ "1", 0, 1 },
	{ "007", 0, 7 }, /* leading zeros are plain decimal, not octal */
	{ "4096", 0, 4096 },
	{ "1K", 0, KiB },
	{ "1M", 0, MiB },
	{ "1G", 0, GiB },
	{ "1T", 0, TiB },
	{ "0K", 0, 0 },
	{ "3K", 0, 3 * KiB },
	{ "256M", 0, 256 * MiB },
	{ "16G", 0, 16 * GiB },
	{ "1KiB", 0, KiB },
	{ "1MiB", 0, MiB },
	{ "1GiB", 0, GiB },
	{ "1TiB", 0, TiB },
	{ "64MiB", 0, 64 * MiB },
	{ "18446744073709551615", 0, UINT64_MAX },
	{ "17179869183G", 0, 17179869183ull * GiB },	/* 2^64 - 2^30 */
	{ "16777215T", 0, 16777215ull * TiB },
	/* syntax */
	{ "", -EINVAL, 0 },
	{ "K", -EINVAL, 0 },
	{ "KiB", -EINVAL, 0 },
	{ "1.5M", -EINVAL, 0 },
	{ "1.0", -EINVAL, 0 },
	{ "-1", -EINVAL, 0 },
	{ "+1", -EINVAL, 0 },
	{ " 1", -EINVAL, 0 },
	{ "1 ", -EINVAL, 0 },
	{ "1 K", -EINVAL, 0 },
	{ "1\tK", -EINVAL, 0 },
	{ "1k", -EINVAL, 0 },	/* suffixes are upper case only */
	{ "1m", -EINVAL, 0 },
	{ "1g", -EINVAL, 0 },
	{ "1kib", -EINVAL, 0 },
	{ "1Ki", -EINVAL, 0 },
	{ "1KB", -EINVAL, 0 },
	{ "1B", -EINVAL, 0 },
	{ "1P", -EINVAL, 0 },
	{ "1PiB", -EINVAL, 0 },
	{ "1KK", -EINVAL, 0 },
	{ "1K1", -EINVAL, 0 },
	{ "0x10", -EINVAL, 0 },
	{ "1e3", -EINVAL, 0 },
	{ "1,000", -EINVAL, 0 },
	{ "1_000", -EINVAL, 0 },
	{ "1ms", -EINVAL, 0 },	/* a duration suffix is not a size */
	/* overflow */
	{ "18446744073709551616", -ERANGE, 0 },
	{ "99999999999999999999", -ERANGE, 0 },
	{ "100000000000000000000000", -ERANGE, 0 },
	{ "17179869184G", -ERANGE, 0 },	/* exactly 2^64 */
	{ "17179869184GiB", -ERANGE, 0 },
	{ "16777216T", -ERANGE, 0 },
	{ "18014398509481984K", -ERANGE, 0 },
	{ "17592186044416M", -ERANGE, 0 },
};

static void test_size_table(void)
{
	check_units("units_parse_size", units_parse_size, sizes, ARRAY_SIZE(sizes));
}

/* ---- durations ---- */

static const struct unit_want durations[] = {
	{ "0", 0, 0 },
	{ "1", 0, 1000 },	/* a bare number is seconds */
	{ "30", 0, 30000 },
	{ "0ms", 0, 0 },
	{ "10ms", 0, 10 },
	{ "1500ms", 0, 1500 },
	{ "5s", 0, 5000 },
	{ "2m", 0, 120000 },
	{ "1h", 0, 3600000 },
	{ "24h", 0, 86400000 },
	{ "18446744073709551615ms", 0, UINT64_MAX },
	{ "18446744073709551", 0, 18446744073709551000ull },
	{ "5124095576030h", 0, 5124095576030ull * 3600000 },
	/* syntax */
	{ "", -EINVAL, 0 },
	{ "s", -EINVAL, 0 },
	{ "ms", -EINVAL, 0 },
	{ "1.5s", -EINVAL, 0 },
	{ "0.5", -EINVAL, 0 },
	{ "-1", -EINVAL, 0 },
	{ "+1", -EINVAL, 0 },
	{ " 1", -EINVAL, 0 },
	{ "1 s", -EINVAL, 0 },
	{ "1S", -EINVAL, 0 },
	{ "1MS", -EINVAL, 0 },
	{ "1H", -EINVAL, 0 },
	{ "1d", -EINVAL, 0 },
	{ "1us", -EINVAL, 0 },
	{ "1sec", -EINVAL, 0 },
	{ "1min", -EINVAL, 0 },
	{ "1m30s", -EINVAL, 0 },
	{ "1K", -EINVAL, 0 },	/* a size suffix is not a duration */
	/* overflow */
	{ "18446744073709551616ms", -ERANGE, 0 },
	{ "18446744073709552", -ERANGE, 0 },
	{ "18446744073709552s", -ERANGE, 0 },
	{ "307445734561826m", -ERANGE, 0 },
	{ "5124095576031h", -ERANGE, 0 },
};

static void test_duration_table(void)
{
	check_units("units_parse_duration", units_parse_duration, durations,
		    ARRAY_SIZE(durations));
}

/* ---- json_parse_strict ---- */

struct json_want {
	const char *text;
	size_t len;		/* 0: strlen(text) */
	const char *pointer;	/* NULL: must parse */
	const char *reason;	/* NULL: any */
};

static const struct json_want json_cases[] = {
	/* accepted */
	{ "{}", 0, NULL, NULL },
	{ " \t\r\n{ } \n", 0, NULL, NULL },
	{ "{\"a\":1,\"b\":2}", 0, NULL, NULL },
	{ "{\"a\":{\"a\":1},\"b\":{\"a\":2}}", 0, NULL, NULL },	/* same key, other objects */
	{ "{\"a\":[{\"k\":1},{\"k\":2}]}", 0, NULL, NULL },
	{ "{\"a\":1,\"A\":2}", 0, NULL, NULL },	/* keys are case-sensitive */
	{ "{\"a\":1,\"a \":2}", 0, NULL, NULL },
	{ "{\"\\u00e9\":1,\"e\":2}", 0, NULL, NULL },
	{ "{\"\\u0100\":1,\"\\u0101\":2}", 0, NULL, NULL },
	{ "{\"x\":\"\\\"}\",\"y\":\"{\\\"x\\\":1}\"}", 0, NULL, NULL },
	{ "{\"\":1}", 0, NULL, NULL },
	/* not JSON, not one document, not an object */
	{ "", 0, "", "not a JSON document" },
	{ "   ", 0, "", "not a JSON document" },
	{ "{", 0, "", "not a JSON document" },
	{ "{\"a\":}", 0, "", "not a JSON document" },
	{ "{\"a\":1,}", 0, "", "not a JSON document" },
	{ "{a:1}", 0, "", "not a JSON document" },
	{ "{'a':1}", 0, "", "not a JSON document" },	/* json-c takes it */
	{ "{\"a\":1,'b':2}", 0, "", "not a JSON document" },
	{ "{\"a\":{'b':2}}", 0, "", "not a JSON document" },
	{ "{\"a\":01}", 0, "", "not a JSON document" },
	{ "{\"a\":True}", 0, "", "not a JSON document" },
	{ "{\"a\":\"\xff\"}", 0, "", "not valid UTF-8" },
	/* json-c's own check lets these through: overlong, surrogate, too big */
	{ "{\"a\":\"\xc0\x80\"}", 0, "", "not valid UTF-8" },
	{ "{\"a\":\"\xe0\x80\xaf\"}", 0, "", "not valid UTF-8" },
	{ "{\"a\":\"\xed\xa0\x80\"}", 0, "", "not valid UTF-8" },
	{ "{\"a\":\"\xf4\x90\x80\x80\"}", 0, "", "not valid UTF-8" },
	{ "{\"\xc0\xaf\":1}", 0, "", "not valid UTF-8" },
	{ "{} x", 0, "", NULL },
	{ "{}{}", 0, "", NULL },
	{ "{}\n]", 0, "", NULL },
	{ "{}\0", 3, "", "not a JSON document" },	/* a NUL after the document */
	{ "{\"a\":\"\0\"}", 9, "", "not a JSON document" },
	{ "[]", 0, "", "must be a JSON object" },
	{ "[{}]", 0, "", "must be a JSON object" },
	{ "\"{}\"", 0, "", "must be a JSON object" },
	{ "1", 0, "", NULL },
	{ "null", 0, "", NULL },
	{ "true", 0, "", NULL },
	{ "true ", 0, "", "must be a JSON object" },
	{ "2 ", 0, "", "must be a JSON object" },
	/* duplicates, pointer at the second occurrence */
	{ "{\"a\":1,\"a\":1}", 0, "/a", "duplicate key" },
	{ "{\"a\":1,\"b\":2,\"a\":3}", 0, "/a", "duplicate key" },
	{ "{\"x\":{\"b\":1,\"b\":2}}", 0, "/x/b", "duplicate key" },
	{ "{\"x\":[0,{\"k\":1,\"k\":2}]}", 0, "/x/1/k", "duplicate key" },
	{ "{\"x\":[[],[{\"y\":{\"z\":0,\"z\":0}}]]}", 0, "/x/1/0/y/z", "duplicate key" },
	{ "{\"a/b\":1,\"a/b\":2}", 0, "/a~1b", "duplicate key" },
	{ "{\"a~b\":1,\"a~b\":2}", 0, "/a~0b", "duplicate key" },
	{ "{\"\":1,\"\":2}", 0, "/", "duplicate key" },
	/* escaped spellings of the same key */
	{ "{\"a\":1,\"\\u0061\":2}", 0, "/a", "duplicate key" },
	{ "{\"\\u0061\":1,\"a\":2}", 0, "/a", "duplicate key" },
	{ "{\"ab\":1,\"\\u0061\\u0062\":2}", 0, "/ab", "duplicate key" },
	{ "{\"argv\":1,\"\\u0061rgv\":2}", 0, "/argv", "duplicate key" },
	{ "{\"a/\":1,\"a\\/\":2}", 0, "/a~1", "duplicate key" },
	{ "{\"\\u0041\":1,\"\\u0041\":2}", 0, "/A", "duplicate key" },
	{ "{\"\xc3\xa9\":1,\"\\u00e9\":2}", 0, "/\xc3\xa9", "duplicate key" },
	{ "{\"\\u00E9\":1,\"\xc3\xa9\":2}", 0, "/\xc3\xa9", "duplicate key" },
	{ "{\"\xe2\x82\xac\":1,\"\\u20ac\":2}", 0, "/\xe2\x82\xac", "duplicate key" },
	{ "{\"\xf0\x9f\x98\x80\":1,\"\\ud83d\\ude00\":2}", 0, "/\xf0\x9f\x98\x80",
	  "duplicate key" },
	{ "{\"x\":{\"\\t\":1,\"\\u0009\":2}}", 0, "/x/?", "duplicate key" },
	{ "{\"\\n\":1,\"\\u000a\":2}", 0, "/?", "duplicate key" },
	/* json-c cuts a key at a NUL: "argv\u0000x" would silently be "argv" */
	{ "{\"argv\\u0000x\":1}", 0, "/argv?x", "key contains NUL" },
	{ "{\"a\":1,\"a\\u0000\":2}", 0, "/a?", "key contains NUL" },
	{ "{\"x\":{\"\\u0000\":1}}", 0, "/x/?", "key contains NUL" },
};

static void test_json_parse_strict_table(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(json_cases); i++) {
		const struct json_want *w = &json_cases[i];
		size_t len = w->len ? w->len : strlen(w->text);
		struct verrors e = { 0 };
		struct json_object *obj = NULL;
		int rc = json_parse_strict(w->text, len, HUTCH_ERR_INVALID_REQUEST, &e, &obj);

		if (!w->pointer) {
			if (rc != 0)
				fprintf(stderr, "\n  case %zu rejected: %s (%s at \"%s\")\n", i,
					w->text, e.n ? e.items[0].reason : "?",
					e.n ? e.items[0].pointer : "?");
			CU_ASSERT_EQUAL(rc, 0);
			CU_ASSERT_EQUAL(e.n, 0);
			CU_ASSERT_PTR_NOT_NULL(obj);
			CU_ASSERT(obj && json_object_is_type(obj, json_type_object));
			json_object_put(obj);
			continue;
		}
		if (rc != -EINVAL || e.n != 1 || strcmp(e.items[0].pointer, w->pointer) != 0 ||
		    (w->reason && strcmp(e.items[0].reason, w->reason) != 0))
			fprintf(stderr, "\n  case %zu: %s: rc %d, %zu errors, first \"%s\" (%s)\n",
				i, w->text, rc, e.n, e.n ? e.items[0].pointer : "",
				e.n ? e.items[0].reason : "");
		CU_ASSERT_EQUAL(rc, -EINVAL);
		CU_ASSERT_PTR_NULL(obj);
		CU_ASSERT_EQUAL_FATAL(e.n, 1);
		CU_ASSERT_EQUAL(e.items[0].code, HUTCH_ERR_INVALID_REQUEST);
		CU_ASSERT_STRING_EQUAL(e.items[0].pointer, w->pointer);
		CU_ASSERT_PTR_NOT_NULL_FATAL(e.items[0].reason);
		if (w->reason)
			CU_ASSERT_STRING_EQUAL(e.items[0].reason, w->reason);
	}
}

/* The error code is the caller's: a policy is policy_invalid. */
static void test_json_parse_strict_code(void)
{
	static const char dup[] = "{\"a\":1,\"a\":2}";
	struct verrors e = { 0 };
	struct json_object *obj = NULL;

	CU_ASSERT_EQUAL(json_parse_strict(dup, strlen(dup), HUTCH_ERR_POLICY_INVALID, &e, &obj),
			-EINVAL);
	CU_ASSERT_EQUAL_FATAL(e.n, 1);
	CU_ASSERT_EQUAL(e.items[0].code, HUTCH_ERR_POLICY_INVALID);
	CU_ASSERT_STRING_EQUAL(e.items[0].pointer, "/a");

	/* Errors append: an earlier one stays first. */
	CU_ASSERT_EQUAL(json_parse_strict("[]", 2, HUTCH_ERR_INVALID_REQUEST, &e, &obj), -EINVAL);
	CU_ASSERT_EQUAL_FATAL(e.n, 2);
	CU_ASSERT_EQUAL(e.items[0].code, HUTCH_ERR_POLICY_INVALID);
	CU_ASSERT_EQUAL(e.items[1].code, HUTCH_ERR_INVALID_REQUEST);
	CU_ASSERT_STRING_EQUAL(e.items[1].pointer, "");
	CU_ASSERT_PTR_NULL(obj);
}

/* Only the given length counts: text after it is not read. */
static void test_json_parse_strict_length(void)
{
	static const char text[] = "{\"a\":1}garbage";
	struct verrors e = { 0 };
	struct json_object *obj = NULL;

	CU_ASSERT_EQUAL(json_parse_strict(text, 7, HUTCH_ERR_INVALID_REQUEST, &e, &obj), 0);
	CU_ASSERT_EQUAL(e.n, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(obj);
	json_object_put(obj);
	obj = NULL;
	CU_ASSERT_EQUAL(json_parse_strict(text, 6, HUTCH_ERR_INVALID_REQUEST, &e, &obj), -EINVAL);
	CU_ASSERT_EQUAL(e.n, 1);
	CU_ASSERT_PTR_NULL(obj);
}

/* {"a": then depth-1 openings around a 0, then their closings. */
static char *nested(int depth, const char *open, const char *close)
{
	size_t cap = 16 + (size_t)depth * 2 * strlen(open);
	char *s = malloc(cap);
	size_t n;

	if (!s)
		return NULL;
	n = (size_t)snprintf(s, cap, "{\"a\":");
	for (int i = 1; i < depth; i++)
		n += (size_t)snprintf(s + n, cap - n, "%s", open);
	n += (size_t)snprintf(s + n, cap - n, "0");
	for (int i = 1; i < depth; i++)
		n += (size_t)snprintf(s + n, cap - n, "%s", close);
	snprintf(s + n, cap - n, "}");
	return s;
}

/* json-c counts values: the top object is level 1, and a scalar (or an
 * empty container) inside it is level 2. JSON_MAX_DEPTH levels pass. */
static void test_json_parse_strict_depth(void)
{
	static const struct {
		const char *open, *close;
	} shapes[] = {
		{ "[", "]" },
		{ "{\"k\":", "}" },
		{ "[{\"k\":", "}]" }, /* two levels per step */
	};

	for (size_t k = 0; k < ARRAY_SIZE(shapes); k++) {
		int step = k == 2 ? 2 : 1;

		for (int depth = 1; depth <= JSON_MAX_DEPTH + 4; depth++) {
			_cleanup_json_ struct json_object *obj = NULL;
			struct verrors e = { 0 };
			char *s = nested(depth, shapes[k].open, shapes[k].close);
			int levels = 1 + (depth - 1) * step + 1;
			int rc;

			CU_ASSERT_PTR_NOT_NULL_FATAL(s);
			rc = json_parse_strict(s, strlen(s), HUTCH_ERR_INVALID_REQUEST, &e, &obj);
			if (levels <= JSON_MAX_DEPTH) {
				CU_ASSERT_EQUAL(rc, 0);
				CU_ASSERT_EQUAL(e.n, 0);
			} else {
				CU_ASSERT_EQUAL(rc, -EINVAL);
				CU_ASSERT_EQUAL(e.n, 1);
				CU_ASSERT_STRING_EQUAL(e.items[0].pointer, "");
				CU_ASSERT_PTR_NULL(obj);
			}
			free(s);
		}
	}
}

/* Empty containers: the innermost is the deepest value. */
static void test_json_parse_strict_depth_empty(void)
{
	for (int depth = JSON_MAX_DEPTH - 2; depth <= JSON_MAX_DEPTH + 2; depth++) {
		_cleanup_json_ struct json_object *obj = NULL;
		struct verrors e = { 0 };
		char text[256];
		size_t n = (size_t)snprintf(text, sizeof(text), "{\"a\":");
		int rc;

		for (int i = 1; i < depth; i++)
			text[n++] = '[';
		for (int i = 1; i < depth; i++)
			text[n++] = ']';
		text[n++] = '}';
		rc = json_parse_strict(text, n, HUTCH_ERR_INVALID_REQUEST, &e, &obj);
		CU_ASSERT_EQUAL(rc, depth <= JSON_MAX_DEPTH ? 0 : -EINVAL);
		CU_ASSERT_EQUAL(e.n, depth <= JSON_MAX_DEPTH ? 0u : 1u);
	}
}

/* A duplicate deep inside, at the deepest level the parser accepts. */
static void test_json_parse_strict_deep_duplicate(void)
{
	char text[512];
	size_t n = 0;
	struct verrors e = { 0 };
	struct json_object *obj = NULL;
	char want[128] = "";

	for (int i = 0; i < JSON_MAX_DEPTH - 1; i++) {
		n += (size_t)snprintf(text + n, sizeof(text) - n, "{\"k\":");
		if (i > 0)
			strcat(want, "/k");
	}
	n += (size_t)snprintf(text + n, sizeof(text) - n, "1,\"k\":2");
	for (int i = 0; i < JSON_MAX_DEPTH - 1; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "}");
	strcat(want, "/k");
	CU_ASSERT_EQUAL(json_parse_strict(text, n, HUTCH_ERR_INVALID_REQUEST, &e, &obj), -EINVAL);
	CU_ASSERT_EQUAL_FATAL(e.n, 1);
	CU_ASSERT_STRING_EQUAL(e.items[0].pointer, want);
	CU_ASSERT_STRING_EQUAL(e.items[0].reason, "duplicate key");
}

/* Many keys: the detector's table grows past its first allocation. */
static void test_json_parse_strict_many_keys(void)
{
	char *text = malloc(64 * 1024);
	size_t n = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(text);
	for (int dup = 0; dup < 2; dup++) {
		struct verrors e = { 0 };
		struct json_object *obj = NULL;
		int rc;

		n = (size_t)sprintf(text, "{");
		for (int i = 0; i < 1000; i++)
			n += (size_t)sprintf(text + n, "%s\"k%d\":%d", i ? "," : "", i, i);
		if (dup)
			n += (size_t)sprintf(text + n, ",\"k777\":0");
		n += (size_t)sprintf(text + n, "}");
		rc = json_parse_strict(text, n, HUTCH_ERR_INVALID_REQUEST, &e, &obj);
		if (dup) {
			CU_ASSERT_EQUAL(rc, -EINVAL);
			CU_ASSERT_EQUAL_FATAL(e.n, 1);
			CU_ASSERT_STRING_EQUAL(e.items[0].pointer, "/k777");
		} else {
			CU_ASSERT_EQUAL(rc, 0);
			CU_ASSERT_EQUAL(json_object_object_length(obj), 1000);
			json_object_put(obj);
		}
	}
	free(text);
}

/* The words for a refused value, and values printed back in the units a
 * person types (the messages of hutch run, issue 11 section 5). */
static void test_problems_and_format(void)
{
	static const struct {
		const char *in, *want;
		bool duration;
	} t[] = {
		{ "1.5s", "use 1500ms", true },
		{ "0.25", "use 250ms", true },
		{ "1.5h", "use 90m", true },
		{ "2x", "a duration is a whole number of seconds, or one with ms, s, m or h "
			"(1500ms, 90s, 2m, 1h)", true },
		{ "99999999999999999999", "too large", true },
		{ "1.0001ms", "a duration is a whole number of seconds, or one with ms, s, m or h "
			      "(1500ms, 90s, 2m, 1h)", true },
		{ "64m", "units are upper case: K, M, G, T (powers of 1024; KiB, MiB, GiB, TiB too) "
			 "or plain bytes", false },
		{ "1.5G", "use a whole number: 1536M", false },
		{ "0.5", "a size is a whole number of bytes, or one with K, M, G or T (powers of "
			 "1024; KiB, MiB, GiB, TiB too)", false },
		{ "-1", "a size is a whole number of bytes, or one with K, M, G or T (powers of "
			"1024; KiB, MiB, GiB, TiB too)", false },
	};
	char buf[200];

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		if (t[i].duration)
			units_duration_problem(t[i].in, buf, sizeof(buf));
		else
			units_size_problem(t[i].in, buf, sizeof(buf));
		if (strcmp(buf, t[i].want) != 0)
			fprintf(stderr, "%s: got '%s'\n", t[i].in, buf);
		CU_ASSERT_STRING_EQUAL(buf, t[i].want);
	}
	units_format_duration(3600000, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "1h");
	units_format_duration(1500, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "1500ms");
	units_format_duration(90000, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "90s");
	units_format_duration(0, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "0ms");
	units_format_size(17179869184ull, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "16G");
	units_format_size(1000, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "1000");
	units_format_size(1536 * KiB, buf, sizeof(buf));
	CU_ASSERT_STRING_EQUAL(buf, "1536K");
}

static const struct unit_case cases[] = {
	{ "units: problems in words, values in typed units", test_problems_and_format },
	{ "units_parse_size table", test_size_table },
	{ "units_parse_duration table", test_duration_table },
	{ "json_parse_strict table", test_json_parse_strict_table },
	{ "json_parse_strict records the caller's code", test_json_parse_strict_code },
	{ "json_parse_strict reads only len bytes", test_json_parse_strict_length },
	{ "json_parse_strict depth limit", test_json_parse_strict_depth },
	{ "json_parse_strict depth limit, empty containers", test_json_parse_strict_depth_empty },
	{ "json_parse_strict deepest duplicate", test_json_parse_strict_deep_duplicate },
	{ "json_parse_strict many keys", test_json_parse_strict_many_keys },
	{ NULL, NULL },
};

UNIT_MAIN("units")
