/* test-errors.c: unit tests of the user-visible error table
 * (shared/errors.c): every enum value named exactly once, the names and
 * exit statuses DESIGN.md promises, and messages that are fixed text. */
#include <limits.h>
#include <string.h>

#include "errors.h"

#include "cunit-main.h"

/* ---- the user-visible error table ---- */

static const struct {
	enum hutch_err e;
	const char *name;
	int exit_status;
} err_want[] = {
	/* DESIGN.md "Stable error codes", in order; exit statuses from its
	 * "Exit status of hutch run": 71 jail refused, 124 timeout, 126 could
	 * not execute, 125 any other hutch failure. */
	{ HUTCH_ERR_INVALID_REQUEST, "invalid_request", 125 },
	{ HUTCH_ERR_POLICY_VIOLATION, "policy_violation", 125 },
	{ HUTCH_ERR_POLICY_INVALID, "policy_invalid", 125 },
	{ HUTCH_ERR_SANDBOX_UNAVAILABLE, "sandbox_unavailable", 71 },
	{ HUTCH_ERR_SANDBOX_PROBE_FAILED, "sandbox_probe_failed", 71 },
	{ HUTCH_ERR_HELPER_NOT_FOUND, "helper_not_found", 125 },
	{ HUTCH_ERR_SPAWN_ERROR, "spawn_error", 71 },
	{ HUTCH_ERR_EXEC_FAILED, "exec_failed", 126 },
	{ HUTCH_ERR_TIMEOUT, "timeout", 124 },
	{ HUTCH_ERR_OUTPUT_OVERFLOW, "output_overflow", 125 },
	{ HUTCH_ERR_FRAME_OVERSIZED, "frame_oversized", 125 },
	{ HUTCH_ERR_PROTOCOL_ERROR, "protocol_error", 125 },
	{ HUTCH_ERR_DRAIN_TIMEOUT, "drain_timeout", 125 },
	{ HUTCH_ERR_CRASH, "crash", 125 },
	{ HUTCH_ERR_BUSY, "busy", 125 },
	{ HUTCH_ERR_CANCELLED, "cancelled", 125 },
	{ HUTCH_ERR_STATE_LOST, "state_lost", 125 },
	{ HUTCH_ERR_INTERNAL, "internal", 125 },
};

static void test_err_exit_constants(void)
{
	CU_ASSERT_EQUAL(HUTCH_EXIT_REFUSED, 71);
	CU_ASSERT_EQUAL(HUTCH_EXIT_TIMEOUT, 124);
	CU_ASSERT_EQUAL(HUTCH_EXIT_FAILURE, 125);
	CU_ASSERT_EQUAL(HUTCH_EXIT_CANNOT_EXEC, 126);
	CU_ASSERT_EQUAL(HUTCH_EXIT_NOT_FOUND, 127);
}

static void test_err_names_complete(void)
{
	CU_ASSERT_PTR_NOT_NULL_FATAL(hutch_err_name(HUTCH_ERR_NONE));
	for (unsigned i = 0; i < HUTCH_ERR_MAX; i++) {
		const char *n = hutch_err_name((enum hutch_err)i);

		CU_ASSERT_PTR_NOT_NULL_FATAL(n);
		CU_ASSERT(n[0] != '\0');
		CU_ASSERT_EQUAL(strspn(n, "abcdefghijklmnopqrstuvwxyz_"), strlen(n));
		for (unsigned j = 0; j < i; j++)
			CU_ASSERT(strcmp(n, hutch_err_name((enum hutch_err)j)) != 0);
	}
	CU_ASSERT_PTR_NULL(hutch_err_name(HUTCH_ERR_MAX));
	CU_ASSERT_PTR_NULL(hutch_err_name((enum hutch_err)(HUTCH_ERR_MAX + 1)));
	CU_ASSERT_PTR_NULL(hutch_err_name((enum hutch_err)-1));
	CU_ASSERT_PTR_NULL(hutch_err_name((enum hutch_err)INT_MAX));
}

/* Every code DESIGN.md lists, and nothing else besides NONE. */
static void test_err_names_match_design(void)
{
	CU_ASSERT_EQUAL(sizeof(err_want) / sizeof(err_want[0]), HUTCH_ERR_MAX - 1);
	CU_ASSERT_EQUAL(HUTCH_ERR_NONE, 0);
	for (size_t i = 0; i < sizeof(err_want) / sizeof(err_want[0]); i++) {
		const char *n = hutch_err_name(err_want[i].e);

		CU_ASSERT_EQUAL((unsigned)err_want[i].e, i + 1); /* never renumbered */
		CU_ASSERT_PTR_NOT_NULL_FATAL(n);
		CU_ASSERT_STRING_EQUAL(n, err_want[i].name);
	}
}

static void test_err_exit_statuses(void)
{
	for (size_t i = 0; i < sizeof(err_want) / sizeof(err_want[0]); i++)
		CU_ASSERT_EQUAL(hutch_err_exit_status(err_want[i].e), err_want[i].exit_status);
	CU_ASSERT_EQUAL(hutch_err_exit_status(HUTCH_ERR_NONE), 0);
	/* Out of range is a hutch failure, never success. */
	CU_ASSERT_EQUAL(hutch_err_exit_status(HUTCH_ERR_MAX), 125);
	CU_ASSERT_EQUAL(hutch_err_exit_status((enum hutch_err)-1), 125);
}

static void test_err_messages(void)
{
	for (unsigned i = 0; i < HUTCH_ERR_MAX; i++) {
		const char *m = hutch_err_message((enum hutch_err)i);

		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		CU_ASSERT(m[0] != '\0');
		/* Fixed text, never a format: a stray '%' would mean someone
		 * meant to splice request content in. */
		CU_ASSERT_PTR_NULL(strchr(m, '%'));
		CU_ASSERT_PTR_NULL(strchr(m, '\n'));
	}
	/* Out of range still yields text, so a caller can always print one. */
	CU_ASSERT_PTR_NOT_NULL_FATAL(hutch_err_message(HUTCH_ERR_MAX));
	CU_ASSERT(hutch_err_message(HUTCH_ERR_MAX)[0] != '\0');
	CU_ASSERT_PTR_NOT_NULL_FATAL(hutch_err_message((enum hutch_err)-1));
}

static const struct unit_case cases[] = {
	{ "exit status constants", test_err_exit_constants },
	{ "error names complete and unique", test_err_names_complete },
	{ "error names match DESIGN.md", test_err_names_match_design },
	{ "error exit statuses", test_err_exit_statuses },
	{ "error messages", test_err_messages },
	{ NULL, NULL },
};

UNIT_MAIN("errors")
