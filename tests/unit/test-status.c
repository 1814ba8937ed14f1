/* test-status.c: unit tests of the helper's status record (shared/status.c):
 * its layout and numbers, the names of every code and stage (each enum value
 * named exactly once), the mechanism each stage names, and the record check
 * that stands between the status pipe and the frontend. The words for every
 * stage and site: test-status-words.c; the user-visible error table:
 * test-errors.c. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "spec.h"
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

/* Every stage is decided: the mechanism a refusal there names (then
 * sandbox_unavailable), or none (spawn_error). A new stage fails here
 * until it is put on one side. */
static void test_stage_mechanisms(void)
{
	static const unsigned none[] = { STAGE_SELF_CHECK, STAGE_SPEC_READ, STAGE_SPEC_DECODE,
					 STAGE_FORK, STAGE_PARENT_GONE, STAGE_BIND_SOURCE,
					 STAGE_MOUNT_TARGET, STAGE_CHDIR, STAGE_CWD_CHECK,
					 STAGE_CLOSE_FDS, STAGE_SETSID, STAGE_EXEC,
					 STAGE_HELPER_EXEC, STAGE_JAIL_INIT, STAGE_BIND_IDMAP,
					 STAGE_TTY };
	static const char *const known[] = { "user_namespaces", "namespaces", "mounts",
					     "uts_namespace", "network_namespace", "landlock",
					     "rlimits", "privileges", "seccomp", "overlay" };
	unsigned n_mech = 0;

	for (unsigned st = 1; st < STAGE_MAX; st++) {
		const char *m = status_stage_mechanism(st);
		bool listed = false, named = false;

		for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
			listed |= none[i] == st;
		for (size_t i = 0; m && i < sizeof(known) / sizeof(known[0]); i++)
			named |= strcmp(m, known[i]) == 0;
		CU_ASSERT(listed != (m != NULL));
		CU_ASSERT(!m || named);
		n_mech += m != NULL;
	}
	CU_ASSERT_EQUAL(n_mech + sizeof(none) / sizeof(none[0]), STAGE_MAX - 1);
	CU_ASSERT_STRING_EQUAL(status_stage_mechanism(STAGE_MOUNT_PRIVATE), "mounts");
	CU_ASSERT_STRING_EQUAL(status_stage_mechanism(STAGE_USERNS), "user_namespaces");
	CU_ASSERT_PTR_NULL(status_stage_mechanism(0));
	CU_ASSERT_PTR_NULL(status_stage_mechanism(STAGE_MAX));
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

static const struct unit_case cases[] = {
	{ "status record layout", test_status_record_layout },
	{ "status numbers stable", test_status_numbers_stable },
	{ "stage names", test_stage_names },
	{ "every stage: a mechanism or none", test_stage_mechanisms },
	{ "code names", test_code_names },
	{ "status_check accepts valid records", test_status_check_accepts },
	{ "status_check rejects bad records", test_status_check_rejects },
	{ NULL, NULL },
};

UNIT_MAIN("status")
