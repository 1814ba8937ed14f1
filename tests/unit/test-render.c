/* test-render.c: unit tests of the rendered-size path of result documents
 * (frontend/doc/result.c, the caps applied by run/classify.c; issue 9):
 * JSON escaping counted as json-c writes it, base64 sizes in 64 bits, the
 * fit of a stream under its cap, and streams past 2 and 4 GiB (mapped
 * from one small memfd page range, so they cost no memory) that once came
 * back null or as their length modulo 2^32. */
#include <json-c/json.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "doc/outcome.h"
#include "doc/plan.h"
#include "doc/result.h"
#include "run/classify.h"

#include "cunit-main.h"

#define GiB ((uint64_t)1 << 30)
#define CHUNK ((size_t)2 << 20)

static void test_base64_len(void)
{
	CU_ASSERT_EQUAL(result_base64_len(0), 0);
	CU_ASSERT_EQUAL(result_base64_len(1), 4);
	CU_ASSERT_EQUAL(result_base64_len(3), 4);
	CU_ASSERT_EQUAL(result_base64_len(4), 8);
	CU_ASSERT_EQUAL(result_base64_len(4 * GiB + 5), (4 * GiB + 5 + 2) / 3 * 4);
	CU_ASSERT_EQUAL(result_base64_len(UINT64_MAX), UINT64_MAX);
}

/* Our count is json-c's own rendering of each byte, '/' aside (counted
 * escaped whatever the writer's flag). */
static void test_escaped_len_matches_json_c(void)
{
	for (int c = 1; c < 256; c++) {
		char one = (char)c;
		struct json_object *s = json_object_new_string_len(&one, 1);
		size_t len = 0;

		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		json_object_to_json_string_length(s, JSON_C_TO_STRING_PLAIN |
							     JSON_C_TO_STRING_NOSLASHESCAPE, &len);
		CU_ASSERT_EQUAL(result_escaped_len((const uint8_t *)&one, 1), c == '/' ? 2 : len - 2);
		json_object_put(s);
	}
	CU_ASSERT_EQUAL(result_escaped_len((const uint8_t *)"\x01\"a\n", 4), 6 + 2 + 1 + 2);
}

static void test_fit_text(void)
{
	bool text;
	uint64_t r;

	CU_ASSERT_EQUAL(result_fit((const uint8_t *)"aaaa", 4, 2, &text, &r), 2);
	CU_ASSERT_TRUE(text);
	CU_ASSERT_EQUAL(r, 2);
	CU_ASSERT_EQUAL(result_fit((const uint8_t *)"aaaa", 4, 4, &text, &r), 4);
	CU_ASSERT_EQUAL(result_fit((const uint8_t *)"\x01\x01", 2, 11, &text, &r), 1);
	CU_ASSERT_EQUAL(r, 6);
	/* U+00E9 three times, cut at 3 bytes: back to the character's start */
	CU_ASSERT_EQUAL(result_fit((const uint8_t *)"\xc3\xa9\xc3\xa9\xc3\xa9", 6, 3, &text, &r), 2);
	CU_ASSERT_TRUE(text);
	CU_ASSERT_EQUAL(r, 2);
}

static void test_fit_base64(void)
{
	uint8_t zeros[100] = { 0 };
	bool text;
	uint64_t r;

	CU_ASSERT_EQUAL(result_fit(zeros, sizeof(zeros), 10, &text, &r), 6);
	CU_ASSERT_FALSE(text);
	CU_ASSERT_EQUAL(r, 8);
	CU_ASSERT_EQUAL(result_fit(zeros, sizeof(zeros), 0, &text, &r), 100);
	/* not UTF-8: base64 for all of it, though a prefix is ASCII */
	CU_ASSERT_EQUAL(result_fit((const uint8_t *)"\x01\x01\x01\x01\xff", 5, 4, &text, &r), 3);
	CU_ASSERT_FALSE(text);
}

static void test_stream_cap(void)
{
	CU_ASSERT_EQUAL(result_stream_cap(0), RESULT_STREAM_MAX_BYTES);
	CU_ASSERT_EQUAL(result_stream_cap(64 * GiB), RESULT_STREAM_MAX_BYTES);
	CU_ASSERT_EQUAL(result_stream_cap(1024), 1024);
}

/* len bytes of 'a' at one address: a 2 MiB memfd mapped again and again. */
static uint8_t *map_text(size_t len, size_t *ret_span)
{
	size_t span = (len + CHUNK - 1) / CHUNK * CHUNK;
	int fd = memfd_create("render-test", MFD_CLOEXEC);
	uint8_t *base, *page;

	if (fd < 0 || ftruncate(fd, (off_t)CHUNK) < 0)
		return NULL;
	page = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	base = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (page == MAP_FAILED || base == MAP_FAILED) {
		close(fd);
		return NULL;
	}
	memset(page, 'a', CHUNK);
	munmap(page, CHUNK);
	for (size_t off = 0; off < span; off += CHUNK)
		if (mmap(base + off, CHUNK, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
			munmap(base, span);
			close(fd);
			return NULL;
		}
	close(fd);
	*ret_span = span;
	return base;
}

/* A run settled as exec_finish settles it, then written. */
static struct json_object *render(const struct plan *plan, struct outcome *o)
{
	classify_output(plan, NULL, o);
	return result_for_outcome(plan, o, NULL, NULL);
}

static const char *stream_text(struct json_object *doc, size_t *ret_len, bool *ret_trunc,
			       int64_t *ret_bytes)
{
	struct json_object *s, *t, *v;

	if (!json_object_object_get_ex(doc, "stdout", &s) ||
	    !json_object_object_get_ex(s, "text", &t) || !t)
		return NULL;
	*ret_len = (size_t)json_object_get_string_len(t);
	if (json_object_object_get_ex(s, "truncated", &v))
		*ret_trunc = json_object_get_boolean(v);
	if (json_object_object_get_ex(s, "bytes", &v))
		*ret_bytes = json_object_get_int64(v);
	return json_object_get_string(t);
}

/* Finding 10: 4 GiB + 5 bytes once came back as "aaaaa", not truncated,
 * and 3 GiB as null. Now: the cap's worth, marked truncated, and the true
 * byte count. */
static void test_streams_past_4gib(void)
{
	static const uint64_t sizes[] = { 3 * GiB, 4 * GiB + 5 };
	size_t span = 0;
	uint8_t *big = map_text((size_t)(4 * GiB + 5), &span);

	CU_ASSERT_PTR_NOT_NULL_FATAL(big);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		struct plan plan = { .overflow_truncate = true };
		struct outcome o = { .status = OUTCOME_EXITED, .workdir_fd = -1 };
		struct json_object *doc;
		const char *t;
		size_t len = 0;
		bool trunc = false;
		int64_t bytes = 0;

		plan.limits.stdout_bytes = 64;
		o.out = (struct capture){ .buf = big, .len = (size_t)sizes[i], .bytes = sizes[i],
					  .echo_fd = -1 };
		o.errc.echo_fd = -1;
		doc = render(&plan, &o);
		CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
		t = stream_text(doc, &len, &trunc, &bytes);
		CU_ASSERT_PTR_NOT_NULL(t);
		CU_ASSERT_EQUAL(len, 64);
		CU_ASSERT_TRUE(trunc);
		CU_ASSERT_EQUAL(bytes, (int64_t)sizes[i]);
		json_object_put(doc);
	}
	munmap(big, span);
}

/* The same stream with the default policy's behaviour (kill on overflow,
 * no partial output): output_overflow, nothing shown; never a NULL. */
static void test_past_cap_kill_mode(void)
{
	size_t span = 0;
	uint8_t *big = map_text((size_t)(4 * GiB + 5), &span);
	struct plan plan = { 0 };
	struct outcome o = { .status = OUTCOME_EXITED, .workdir_fd = -1 };
	struct json_object *doc, *e, *c;
	size_t len = 99;
	bool trunc = false;
	int64_t bytes = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(big);
	plan.limits.stdout_bytes = 1024;
	o.out = (struct capture){ .buf = big, .len = (size_t)(4 * GiB + 5), .bytes = 4 * GiB + 5,
				  .echo_fd = -1 };
	doc = render(&plan, &o);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	CU_ASSERT_TRUE(json_object_object_get_ex(doc, "error", &e) && e &&
		       json_object_object_get_ex(e, "code", &c) &&
		       strcmp(json_object_get_string(c), "output_overflow") == 0);
	CU_ASSERT_PTR_NOT_NULL(stream_text(doc, &len, &trunc, &bytes));
	CU_ASSERT_EQUAL(len, 0);
	CU_ASSERT_TRUE(trunc);
	json_object_put(doc);
	munmap(big, span);
}

static const struct unit_case cases[] = {
	{ "base64 sizes are 64-bit", test_base64_len },
	{ "escaping counted as json-c writes it", test_escaped_len_matches_json_c },
	{ "text fit, cut on a character boundary", test_fit_text },
	{ "base64 fit, chosen on all of the data", test_fit_base64 },
	{ "stream cap never past the maximum", test_stream_cap },
	{ "streams of 3 GiB and 4 GiB + 5 render the cap, truncated", test_streams_past_4gib },
	{ "4 GiB + 5 past a kill-mode cap: output_overflow", test_past_cap_kill_mode },
	{ NULL, NULL },
};

UNIT_MAIN("render")
