/* test-status.c: unit tests of the helper's status record (shared/status.c)
 * and the user-visible error table (shared/errors.c): every enum value named
 * exactly once, the strings and exit statuses DESIGN.md promises, and the
 * record check that stands between the status pipe and the frontend. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "errors.h"
#include "status.h"

#include "cunit-main.h"

/* ---- the wire record ---- */

static void test_status_record_layout(void)
{
	/* The record crosses a pipe between two binaries: its layout is ABI. */
	CU_ASSERT_EQUAL(sizeof(struct hutch_status), 16);
	CU_ASSERT_EQUAL(offsetof(struct hutch_status, magic), 0);
	CU_ASSERT_EQUAL(offsetof(struct hutch_status, code), 4);
	CU_ASSERT_EQUAL(offsetof(struct hutch_status, stage), 6);
	CU_ASSERT_EQUAL(offsetof(struct hutch_status, item), 8);
	CU_ASSERT_EQUAL(offsetof(struct hutch_status, err), 12);
	CU_ASSERT(sizeof(struct hutch_status) <= PIPE_BUF);
	CU_ASSERT_EQUAL(HUTCH_STATUS_MAGIC, 0x48535431u);
}

/* Numbers are stable across releases (status.h: append only). */
static void test_status_numbers_stable(void)
{
	CU_ASSERT_EQUAL(HUTCH_SETUP_FAILED, 1);
	CU_ASSERT_EQUAL(HUTCH_EXEC_FAILED, 2);
	CU_ASSERT_EQUAL(HUTCH_MECH_UNAVAILABLE, 3);
	CU_ASSERT_EQUAL(HUTCH_PRIVILEGED_BINARY, 4);
	CU_ASSERT_EQUAL(HUTCH_BAD_SPEC, 5);
	CU_ASSERT_EQUAL(HUTCH_HELPER_CRASHED, 6);
	CU_ASSERT_EQUAL(STAGE_SELF_CHECK, 1);
	CU_ASSERT_EQUAL(STAGE_SPEC_DECODE, 3);
	CU_ASSERT_EQUAL(STAGE_MOUNT, 15);
	CU_ASSERT_EQUAL(STAGE_SECCOMP, 31);
	CU_ASSERT_EQUAL(STAGE_EXEC, 32);
	CU_ASSERT_EQUAL(STAGE_JAIL_INIT, 34);
}

/* ---- name tables ---- */

/* Every value in [1, max) has a distinct, non-empty, lower_snake name;
 * 0, max and far beyond have none. */
static void check_name_table(const char *(*name_of)(unsigned), unsigned max)
{
	for (unsigned i = 1; i < max; i++) {
		const char *n = name_of(i);

		CU_ASSERT_PTR_NOT_NULL_FATAL(n);
		CU_ASSERT(n[0] != '\0');
		CU_ASSERT_EQUAL(strspn(n, "abcdefghijklmnopqrstuvwxyz_"), strlen(n));
		for (unsigned j = 1; j < i; j++)
			CU_ASSERT(strcmp(n, name_of(j)) != 0);
	}
	CU_ASSERT_PTR_NULL(name_of(0));
	CU_ASSERT_PTR_NULL(name_of(max));
	CU_ASSERT_PTR_NULL(name_of(max + 1));
	CU_ASSERT_PTR_NULL(name_of(0xffffu));
	CU_ASSERT_PTR_NULL(name_of(UINT_MAX));
}

static void test_stage_names(void)
{
	check_name_table(status_stage_name, STAGE_MAX);
	CU_ASSERT_STRING_EQUAL(status_stage_name(STAGE_SELF_CHECK), "self_check");
	CU_ASSERT_STRING_EQUAL(status_stage_name(STAGE_SPEC_DECODE), "spec_decode");
	CU_ASSERT_STRING_EQUAL(status_stage_name(STAGE_USERNS), "user_namespace");
	CU_ASSERT_STRING_EQUAL(status_stage_name(STAGE_MOUNT), "mount");
	CU_ASSERT_STRING_EQUAL(status_stage_name(STAGE_SECCOMP), "seccomp");
	CU_ASSERT_STRING_EQUAL(status_stage_name(STAGE_EXEC), "exec");
	CU_ASSERT_STRING_EQUAL(status_stage_name(STAGE_JAIL_INIT), "jail_init");
}

static void test_code_names(void)
{
	static const struct {
		unsigned code;
		const char *name;
	} want[] = {
		{ HUTCH_SETUP_FAILED, "setup_failed" },
		{ HUTCH_EXEC_FAILED, "exec_failed" },
		{ HUTCH_MECH_UNAVAILABLE, "mechanism_unavailable" },
		{ HUTCH_PRIVILEGED_BINARY, "privileged_binary" },
		{ HUTCH_BAD_SPEC, "bad_spec" },
		{ HUTCH_HELPER_CRASHED, "helper_crashed" },
	};

	check_name_table(status_code_name, HUTCH_STATUS_CODE_MAX);
	CU_ASSERT_EQUAL(sizeof(want) / sizeof(want[0]), HUTCH_STATUS_CODE_MAX - 1);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CU_ASSERT_STRING_EQUAL(status_code_name(want[i].code), want[i].name);
}

/* ---- status_check ---- */

static const struct hutch_status good_status = {
	.magic = HUTCH_STATUS_MAGIC,
	.code = HUTCH_SETUP_FAILED,
	.stage = STAGE_MOUNT,
	.item = 3,
	.err = EPERM,
};

static void test_status_check_accepts(void)
{
	struct hutch_status st = good_status;

	CU_ASSERT_EQUAL(status_check(&st), 0);
	st.err = 0;
	CU_ASSERT_EQUAL(status_check(&st), 0);
	st.item = UINT32_MAX; /* an index: any value is well formed */
	CU_ASSERT_EQUAL(status_check(&st), 0);
	st.err = INT32_MAX;
	CU_ASSERT_EQUAL(status_check(&st), 0);

	/* The extremes of both ranges. */
	st = good_status;
	st.code = HUTCH_STATUS_CODE_MAX - 1;
	st.stage = STAGE_MAX - 1;
	CU_ASSERT_EQUAL(status_check(&st), 0);
	st.code = 1;
	st.stage = 1;
	CU_ASSERT_EQUAL(status_check(&st), 0);
	st.code = HUTCH_EXEC_FAILED;
	st.stage = STAGE_EXEC;
	st.err = ENOENT;
	CU_ASSERT_EQUAL(status_check(&st), 0);
}

static void test_status_check_rejects(void)
{
	static const struct {
		const char *what;
		uint32_t magic;
		uint16_t code, stage;
		int32_t err;
	} bad[] = {
		{ "magic 0", 0, HUTCH_SETUP_FAILED, STAGE_MOUNT, 0 },
		{ "magic byte-swapped", 0x31545348u, HUTCH_SETUP_FAILED, STAGE_MOUNT, 0 },
		{ "magic off by one", HUTCH_STATUS_MAGIC + 1, HUTCH_SETUP_FAILED, STAGE_MOUNT, 0 },
		{ "magic all ones", UINT32_MAX, HUTCH_SETUP_FAILED, STAGE_MOUNT, 0 },
		{ "code 0", HUTCH_STATUS_MAGIC, 0, STAGE_MOUNT, 0 },
		{ "code max", HUTCH_STATUS_MAGIC, HUTCH_STATUS_CODE_MAX, STAGE_MOUNT, 0 },
		{ "code 0xffff", HUTCH_STATUS_MAGIC, 0xffff, STAGE_MOUNT, 0 },
		{ "stage 0", HUTCH_STATUS_MAGIC, HUTCH_SETUP_FAILED, 0, 0 },
		{ "stage max", HUTCH_STATUS_MAGIC, HUTCH_SETUP_FAILED, STAGE_MAX, 0 },
		{ "stage 0xffff", HUTCH_STATUS_MAGIC, HUTCH_SETUP_FAILED, 0xffff, 0 },
		{ "err -1", HUTCH_STATUS_MAGIC, HUTCH_SETUP_FAILED, STAGE_MOUNT, -1 },
		{ "err -EPERM", HUTCH_STATUS_MAGIC, HUTCH_SETUP_FAILED, STAGE_MOUNT, -EPERM },
		{ "err INT32_MIN", HUTCH_STATUS_MAGIC, HUTCH_SETUP_FAILED, STAGE_MOUNT, INT32_MIN },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct hutch_status st = good_status;

		st.magic = bad[i].magic;
		st.code = bad[i].code;
		st.stage = bad[i].stage;
		st.err = bad[i].err;
		if (status_check(&st) != -EBADMSG)
			fprintf(stderr, "\n  accepted: %s\n", bad[i].what);
		CU_ASSERT_EQUAL(status_check(&st), -EBADMSG);
	}
}

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
	{ "status record layout", test_status_record_layout },
	{ "status numbers stable", test_status_numbers_stable },
	{ "stage names", test_stage_names },
	{ "code names", test_code_names },
	{ "status_check accepts valid records", test_status_check_accepts },
	{ "status_check rejects bad records", test_status_check_rejects },
	{ "exit status constants", test_err_exit_constants },
	{ "error names complete and unique", test_err_names_complete },
	{ "error names match DESIGN.md", test_err_names_match_design },
	{ "error exit statuses", test_err_exit_statuses },
	{ "error messages", test_err_messages },
	{ NULL, NULL },
};

UNIT_MAIN("status")
