/* request-check.h: what the request unit tests (test-request.c,
 * test-request-bad.c, test-request-limits.c) share: the document macros
 * and check_bad(), which asserts that a document is refused with a code at
 * a JSON pointer and leaves the request untouched. Include after request.h
 * and cunit-main.h. */
#ifndef HUTCH_REQUEST_CHECK_H
#define HUTCH_REQUEST_CHECK_H

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define INV HUTCH_ERR_INVALID_REQUEST

/* A document with what every request needs, then more members. */
#define V "\"version\":1,\"argv\":[\"/bin/true\"]"
#define DOC(members) "{" V "," members "}"

/* inline: test-request.c takes the macros alone, and an unused static
 * function would be a warning there. */
static inline void check_bad(const char *what, const char *text, size_t len,
			     enum hutch_err code, const char *pointer)
{
	struct request r = { .argc = 77 };
	struct verrors e = { 0 };
	int rc = request_parse(text, len, &r, &e);

	if (rc != -EINVAL || e.n < 1 || e.items[0].code != code ||
	    strcmp(e.items[0].pointer, pointer) != 0)
		fprintf(stderr, "\n  %s: rc %d, %zu errors, first %s at \"%s\" (%s); want \"%s\"\n",
			what, rc, e.n, e.n ? hutch_err_name(e.items[0].code) : "-",
			e.n ? e.items[0].pointer : "", e.n ? e.items[0].reason : "", pointer);
	CU_ASSERT_EQUAL(rc, -EINVAL);
	CU_ASSERT_FATAL(e.n >= 1);
	CU_ASSERT_EQUAL(e.items[0].code, code);
	CU_ASSERT_STRING_EQUAL(e.items[0].pointer, pointer);
	CU_ASSERT_PTR_NOT_NULL(e.items[0].reason);
	for (size_t i = 0; i < e.n; i++)
		CU_ASSERT_NOT_EQUAL(e.items[i].code, HUTCH_ERR_INTERNAL);
	if (getenv("TEST_VERBOSE"))
		fprintf(stderr, "\n  %-24s %s", e.items[0].pointer, e.items[0].reason);
	CU_ASSERT_EQUAL(r.argc, 77);	/* *ret untouched */
	CU_ASSERT_PTR_NULL(r.argv);
}

#endif
