/* test-request-limits.c: unit tests of request documents (frontend/doc/request.c)
 * at their size bounds: generated documents at and one past every bound,
 * the document size checked before parsing, and every limit a request may
 * set at its minimum, its maximum and one past. */
#include <errno.h>
#include <stdarg.h>
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

/* ---- generated documents at and past the size bounds ---- */

struct sb {
	char *p;
	size_t n, cap;
};

static void sb_grow(struct sb *s, size_t more)
{
	if (s->n + more + 1 <= s->cap)
		return;
	s->cap = (s->n + more + 1) * 2;
	s->p = realloc(s->p, s->cap);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s->p);
}

__attribute__((format(printf, 2, 3))) static void sb_printf(struct sb *s, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	sb_grow(s, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(s->p + s->n, s->cap - s->n, fmt, ap);
	va_end(ap);
	s->n += (size_t)n;
}

static void sb_repeat(struct sb *s, char c, size_t count)
{
	sb_grow(s, count);
	memset(s->p + s->n, c, count);
	s->n += count;
	s->p[s->n] = '\0';
}

/* Each builder writes a document for parameter n; the table gives the
 * largest n that passes and the pointer n + 1 gets. */
static void gen_argc(struct sb *s, size_t n)
{
	sb_printf(s, "{\"version\":1,\"argv\":[\"/bin/true\"");
	for (size_t i = 1; i < n; i++)
		sb_printf(s, ",\"a\"");
	sb_printf(s, "]}");
}

static void gen_arg_len(struct sb *s, size_t n)
{
	sb_printf(s, "{\"version\":1,\"argv\":[\"/bin/true\",\"");
	sb_repeat(s, 'a', n);
	sb_printf(s, "\"]}");
}

/* n entries of 131071 bytes: 8 of them fill 1 MiB with their NULs. */
static void gen_argv_total(struct sb *s, size_t n)
{
	sb_printf(s, "{\"version\":1,\"argv\":[");
	for (size_t i = 0; i < n; i++) {
		sb_printf(s, "%s\"", i ? "," : "");
		sb_repeat(s, 'a', (128u << 10) - 1);
		sb_printf(s, "\"");
	}
	sb_printf(s, "]}");
}

static void gen_env_count(struct sb *s, size_t n)
{
	sb_printf(s, "{" V ",\"env\":{");
	for (size_t i = 0; i < n; i++)
		sb_printf(s, "%s\"V%zu\":\"x\"", i ? "," : "", i);
	sb_printf(s, "}}");
}

static void gen_env_name_len(struct sb *s, size_t n)
{
	sb_printf(s, "{" V ",\"env\":{\"");
	sb_repeat(s, 'A', n);
	sb_printf(s, "\":\"x\"}}");
}

/* n variables of 100000-byte values: two fit in 256 KiB, three do not. */
static void gen_env_total(struct sb *s, size_t n)
{
	sb_printf(s, "{" V ",\"env\":{");
	for (size_t i = 0; i < n; i++) {
		sb_printf(s, "%s\"V%zu\":\"", i ? "," : "", i);
		sb_repeat(s, 'x', 100000);
		sb_printf(s, "\"");
	}
	sb_printf(s, "}}");
}

static void gen_cwd_len(struct sb *s, size_t n)
{
	sb_printf(s, "{" V ",\"cwd\":\"/");
	sb_repeat(s, 'c', n - 1);
	sb_printf(s, "\"}");
}

static void gen_policy_len(struct sb *s, size_t n)
{
	sb_printf(s, "{" V ",\"policy\":\"");
	sb_repeat(s, 'p', n);
	sb_printf(s, "\"}");
}

static void gen_file_count(struct sb *s, size_t n)
{
	sb_printf(s, "{" V ",\"files\":[");
	for (size_t i = 0; i < n; i++)
		sb_printf(s, "%s{\"name\":\"f%zu\",\"text\":\"\"}", i ? "," : "", i);
	sb_printf(s, "]}");
}

static void gen_file_name_len(struct sb *s, size_t n)
{
	sb_printf(s, "{" V ",\"files\":[{\"name\":\"");
	sb_repeat(s, 'n', n);
	sb_printf(s, "\",\"text\":\"\"}]}");
}

static void gen_file_text_len(struct sb *s, size_t n)
{
	sb_printf(s, "{" V ",\"files\":[{\"name\":\"big\",\"text\":\"");
	sb_repeat(s, 't', n);
	sb_printf(s, "\"}]}");
}

static void gen_collect_count(struct sb *s, size_t n)
{
	sb_printf(s, "{" V ",\"collect\":[");
	for (size_t i = 0; i < n; i++)
		sb_printf(s, "%s\"c%zu\"", i ? "," : "", i);
	sb_printf(s, "]}");
}

static void gen_mount_count(struct sb *s, size_t n)
{
	sb_printf(s, "{" V ",\"mounts\":[");
	for (size_t i = 0; i < n; i++)
		sb_printf(s, "%s{\"source\":\"/srv\",\"target\":\"/m%zu\"}", i ? "," : "", i);
	sb_printf(s, "]}");
}

/* n levels of arrays under limits.wall_ms, around a 0. */
static void gen_depth(struct sb *s, size_t n)
{
	sb_printf(s, "{" V ",\"limits\":{\"wall_ms\":");
	sb_repeat(s, '[', n);
	sb_printf(s, "0");
	sb_repeat(s, ']', n);
	sb_printf(s, "}}");
}

static const struct {
	const char *what;
	void (*gen)(struct sb *s, size_t n);
	size_t max_ok;		/* the largest n that parses */
	const char *pointer;	/* for max_ok + 1 */
	char fill;		/* then max_ok + 1 of these (a name in the pointer) */
} bounds[] = {
	{ "argc", gen_argc, REQ_MAX_ARGC, "/argv", 0 },
	{ "argument length", gen_arg_len, HUTCH_SPEC_MAX_ARG_BYTES - 1, "/argv/1", 0 },
	{ "argv total", gen_argv_total, 8, "/argv", 0 },
	{ "env count", gen_env_count, REQ_MAX_ENV, "/env", 0 },
	{ "env name length", gen_env_name_len, 128, "/env/", 'A' },
	{ "env total", gen_env_total, 2, "/env", 0 },
	{ "cwd length", gen_cwd_len, HUTCH_SPEC_MAX_PATH, "/cwd", 0 },
	{ "policy name length", gen_policy_len, POLICY_NAME_MAX, "/policy", 0 },
	{ "file count", gen_file_count, REQ_MAX_FILES, "/files", 0 },
	{ "file name length", gen_file_name_len, REQ_MAX_NAME, "/files/0/name", 0 },
	{ "file text length", gen_file_text_len, HUTCH_SPEC_MAX_FILE_BYTES, "/files/0/text", 0 },
	{ "collect count", gen_collect_count, REQ_MAX_COLLECT, "/collect", 0 },
	{ "mount count", gen_mount_count, REQ_MAX_MOUNTS, "/mounts", 0 },
	/* the top object and limits are two levels; the 0 is the last */
	{ "nesting depth", gen_depth, JSON_MAX_DEPTH - 3, "", 0 },
};

static void test_bounds(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(bounds); i++) {
		for (size_t n = bounds[i].max_ok; n <= bounds[i].max_ok + 1; n++) {
			struct sb s = { 0 };
			struct request r = { 0 };
			struct verrors e = { 0 };
			char what[96];

			bounds[i].gen(&s, n);
			snprintf(what, sizeof(what), "%s %zu", bounds[i].what, n);
			if (n == bounds[i].max_ok + 1) {
				struct sb ptr = { 0 };

				sb_printf(&ptr, "%s", bounds[i].pointer);
				if (bounds[i].fill)
					sb_repeat(&ptr, bounds[i].fill, n);
				check_bad(what, s.p, s.n, INV, ptr.p);
				free(ptr.p);
				free(s.p);
				continue;
			}
			if (request_parse(s.p, s.n, &r, &e) != 0 && bounds[i].gen != gen_depth)
				fprintf(stderr, "\n  %s rejected at \"%s\" (%s)\n", what,
					e.n ? e.items[0].pointer : "",
					e.n ? e.items[0].reason : "");
			/* nesting: parses as JSON, then wall_ms is no integer */
			if (bounds[i].gen == gen_depth) {
				CU_ASSERT_EQUAL(e.n, 1);
				CU_ASSERT_STRING_EQUAL(e.items[0].pointer, "/limits/wall_ms");
			} else {
				CU_ASSERT_EQUAL(e.n, 0);
				request_free(&r);
			}
			free(s.p);
		}
	}
}

/* The document size is checked before anything is read. */
static void test_document_too_large(void)
{
	char *big = calloc(1, REQ_MAX_DOC_BYTES + 1);
	struct request r = { 0 };
	struct verrors e = { 0 };

	CU_ASSERT_PTR_NOT_NULL_FATAL(big);
	CU_ASSERT_EQUAL(request_parse(big, REQ_MAX_DOC_BYTES + 1, &r, &e), -EINVAL);
	CU_ASSERT_EQUAL_FATAL(e.n, 1);
	CU_ASSERT_EQUAL(e.items[0].code, INV);
	CU_ASSERT_STRING_EQUAL(e.items[0].pointer, "");
	CU_ASSERT_STRING_EQUAL(e.items[0].reason, "document too large");
	free(big);
}

/* Every limit a request may set: min and max pass, one past fails; a
 * policy-only limit is an unknown field. */
static void test_limits_every_def(void)
{
	for (int i = 0; i < LIM_COUNT; i++) {
		const struct limit_def *d = &limit_defs[i];
		char ptr[64];
		uint64_t ok[2] = { d->min, d->max };

		snprintf(ptr, sizeof(ptr), "/limits/%s", d->name);
		for (int k = 0; k < 2; k++) {
			struct sb s = { 0 };
			struct request r = { 0 };
			struct verrors e = { 0 };

			sb_printf(&s, DOC("\"limits\":{\"%s\":%llu}"), d->name,
				  (unsigned long long)ok[k]);
			if (!d->in_request) {
				check_bad(s.p, s.p, s.n, INV, ptr);
				free(s.p);
				continue;
			}
			CU_ASSERT_EQUAL_FATAL(request_parse(s.p, s.n, &r, &e), 0);
			for (int j = 0; j < LIM_COUNT; j++)
				CU_ASSERT_EQUAL(r.limit_set[j], j == i);
			CU_ASSERT_EQUAL(r.limits[i], ok[k]);
			request_free(&r);
			free(s.p);
		}
		if (!d->in_request)
			continue;
		for (int k = 0; k < 2; k++) {
			struct sb s = { 0 };

			if (k == 0 && d->min == 0)
				continue;
			sb_printf(&s, DOC("\"limits\":{\"%s\":%llu}"), d->name,
				  (unsigned long long)(k == 0 ? d->min - 1 : d->max + 1));
			check_bad(s.p, s.p, s.n, INV, ptr);
			free(s.p);
		}
	}
}

static const struct unit_case cases[] = {
	{ "size bounds: at the bound and one past", test_bounds },
	{ "document too large", test_document_too_large },
	{ "every limit: min, max, one past", test_limits_every_def },
	{ NULL, NULL },
};

UNIT_MAIN("request-limits")
