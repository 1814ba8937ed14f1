/* narrow-fixtures.c: the fixtures of the narrowing unit tests (see
 * narrow-fixtures.h), linked into test-narrow and test-narrow-mounts. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "doc/policy.h"
#include "doc/request.h"
#include "jail/narrow.h"

#include "narrow-fixtures.h"

/* ---- the policy under test ---- */

uint64_t lim_def(int i)
{
	return limit_defs[i].min + 5;
}

uint64_t lim_max(int i)
{
	return limit_defs[i].min + 50;
}

void make_policy(const char *mount_rules, struct policy *ret)
{
	struct verrors e = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int rc;

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fprintf(f, "{\"version\":1,\"description\":\"narrow test\",\"limits\":{");
	for (int i = 0; i < LIM_COUNT; i++)
		fprintf(f, "%s\"%s\":{\"default\":%llu,\"max\":%llu}", i ? "," : "",
			limit_defs[i].name, (unsigned long long)lim_def(i),
			(unsigned long long)lim_max(i));
	fprintf(f, "},\"filesystem\":{\"binds\":[{\"path\":\"/usr\",\"exec\":true},"
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
	CU_ASSERT_EQUAL_FATAL(fclose(f), 0);
	rc = policy_parse(text, len, "narrowtest", ret, &e);
	for (size_t i = 0; i < e.n; i++)
		fprintf(stderr, "\n  test policy: \"%s\": %s\n", e.items[i].pointer,
			e.items[i].reason);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	free(text);
}

/* ---- running narrow ---- */

int narrow_fmt(const struct policy *pol, struct plan *plan, struct verrors *e, const char *fmt,
	       ...)
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

void expect_fail(int rc, const struct plan *plan, const struct verrors *e, enum hutch_err code,
		 const char *pointer, const char *what)
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
