/* test-result.c: unit tests of result documents (frontend/doc/result.c)
 * of runs that failed, written from outcomes settled as a run settles them
 * (run/classify.c): the partial-output rule on a limit, the words of the
 * helper's refusal, result_for_error, the exit status without --json, and
 * that messages never carry the output. Exited, signaled and frame-mode
 * runs: test-result-output.c; the fixtures: result-fixtures.c. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "status.h"
#include "doc/outcome.h"
#include "doc/plan.h"
#include "doc/result.h"
#include "run/classify.h"

#include "cunit-main.h"
#include "result-fixtures.h"

/* ---- failures and the partial-output rule ---- */

static char *doc_text(struct json_object *doc)
{
	return strdup(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN |
								JSON_C_TO_STRING_NOSLASHESCAPE));
}

static void check_no_output(struct json_object *doc)
{
	char *t = doc_text(doc);
	const char *msg = str_at(doc, "error/message");

	CU_ASSERT_PTR_NOT_NULL_FATAL(msg);
	CU_ASSERT_PTR_NULL(strstr(msg, "SECRET"));
	CU_ASSERT_PTR_NULL(strstr(t, secret));
	CU_ASSERT_PTR_NULL(strstr(t, err_secret));
	CU_ASSERT_PTR_NULL(strstr(t, "U0VDUkVU"));	/* nor its base64 */
	free(t);
}

static void test_failed_limits(void)
{
	static const struct {
		enum hutch_err err;
		const char *limit;
		const char *code;
		int exit_status;
	} cases[] = {
		{ HUTCH_ERR_TIMEOUT, "wall_ms", "timeout", 124 },
		{ HUTCH_ERR_TIMEOUT, "idle_ms", "timeout", 124 },
		{ HUTCH_ERR_OUTPUT_OVERFLOW, "stdout_bytes", "output_overflow", 125 },
		{ HUTCH_ERR_FRAME_OVERSIZED, "stdout_bytes", "frame_oversized", 125 },
		{ HUTCH_ERR_CANCELLED, NULL, "cancelled", 125 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		for (int partial = 0; partial < 2; partial++) {
			struct plan plan = { .partial_output = partial };
			struct outcome o;
			struct json_object *doc;
			char want_msg[256];

			outcome_init(&o, OUTCOME_FAILED, secret, strlen(secret));
			o.err = cases[i].err;
			o.limit = cases[i].limit;
			o.out.bytes = 1000;	/* more was written than kept */
			o.out.truncated = true;
			doc = render(&plan, &o, &files, &jr);
			CU_ASSERT_STRING_EQUAL(str_at(doc, "status"), "failed");
			CU_ASSERT_TRUE(null_at(doc, "exit_code"));
			CU_ASSERT_TRUE(null_at(doc, "signal"));
			CU_ASSERT_STRING_EQUAL(str_at(doc, "error/code"), cases[i].code);
			snprintf(want_msg, sizeof(want_msg), "%s%s%s",
				 hutch_err_message(cases[i].err), cases[i].limit ? ": " : "",
				 cases[i].limit ? cases[i].limit : "");
			CU_ASSERT_STRING_EQUAL(str_at(doc, "error/message"), want_msg);
			if (cases[i].limit) {
				CU_ASSERT_STRING_EQUAL(str_at(doc, "error/limit"), cases[i].limit);
			} else {
				CU_ASSERT_TRUE(absent_at(doc, "error/limit"));
			}
			CU_ASSERT_TRUE(absent_at(doc, "error/stage"));
			if (partial) {
				/* kept, marked as the capture says */
				check_stream(doc, "stdout", secret, strlen(secret), true, true,
					     1000);
				check_stream(doc, "stderr", err_secret, strlen(err_secret), true,
					     false, strlen(err_secret));
				CU_ASSERT_STRING_EQUAL(
					str_at(json_object_array_get_idx(at(doc, "files", NULL), 0),
					       "base64"),
					"U0VDUkVULUZJTEU=");
			} else {
				/* fail closed: nothing, and marked truncated */
				check_stream(doc, "stdout", "", 0, true, true, 1000);
				check_stream(doc, "stderr", "", 0, true, true, strlen(err_secret));
				CU_ASSERT_STRING_EQUAL(
					str_at(json_object_array_get_idx(at(doc, "files", NULL), 0),
					       "error"),
					"discarded");
				check_no_output(doc);
			}
			CU_ASSERT_PTR_NULL(strstr(str_at(doc, "error/message"), "SECRET"));
			CU_ASSERT_EQUAL(result_exit_status(doc), cases[i].exit_status);
			json_object_put(doc);
			outcome_release(&o);
		}
	}
}

/* The helper's record: the code it maps to, stage and errno named, the
 * failure in words from the spec it was sent, output never kept. The
 * outcome is settled from the record and wait status, as a real run's. */
static void test_failed_record(void)
{
	static const struct spec_mount mounts[] = {
		{ .kind = HUTCH_MOUNT_BIND, .source = "/usr", .target = "/usr" },
		{ .kind = HUTCH_MOUNT_BIND, .source = "/srv/data", .target = "/data" },
		{ .kind = HUTCH_MOUNT_TMPFS, .source = "", .target = "/work" },
	};
	static const struct {
		uint16_t code, stage;
		uint32_t item;
		int err;
		enum hutch_err herr;
		const char *stage_name, *errno_name, *words;
		int exit_status;
	} cases[] = {
		{ HUTCH_EXEC_FAILED, STAGE_EXEC, SITE_EXEC_EXECVE, ENOENT, HUTCH_ERR_EXEC_FAILED,
		  "exec", "ENOENT", "executing the command: ENOENT", 127 },
		{ HUTCH_EXEC_FAILED, STAGE_EXEC, SITE_EXEC_EXECVE, EACCES, HUTCH_ERR_EXEC_FAILED,
		  "exec", "EACCES", "executing the command: EACCES", 126 },
		{ HUTCH_EXEC_FAILED, STAGE_EXEC, SITE_EXEC_EXECVE, ENOEXEC, HUTCH_ERR_EXEC_FAILED,
		  "exec", "ENOEXEC", "executing the command: ENOEXEC", 126 },
		{ HUTCH_MECH_UNAVAILABLE, STAGE_USERNS, SITE_USERNS_CLONE, EPERM,
		  HUTCH_ERR_SANDBOX_UNAVAILABLE, "user_namespace", "EPERM",
		  "user_namespaces: creating the jail's user namespace: EPERM", 71 },
		/* the host refusing a mechanism after the probe passed */
		{ HUTCH_SETUP_FAILED, STAGE_ID_MAP, SITE_ID_MAP_GID, EPERM,
		  HUTCH_ERR_SANDBOX_UNAVAILABLE, "id_map", "EPERM",
		  "user_namespaces: writing gid_map: EPERM", 71 },
		{ HUTCH_SETUP_FAILED, STAGE_MOUNT_PRIVATE, SITE_MOUNT_PRIVATE_PROPAGATION, EPERM,
		  HUTCH_ERR_SANDBOX_UNAVAILABLE, "mount_private", "EPERM",
		  "mounts: making mount propagation private: EPERM", 71 },
		{ HUTCH_SETUP_FAILED, STAGE_LANDLOCK_ENFORCE, SITE_LANDLOCK_ENFORCE_RESTRICT, EPERM,
		  HUTCH_ERR_SANDBOX_UNAVAILABLE, "landlock_enforce", "EPERM",
		  "landlock: enforcing the Landlock ruleset: EPERM", 71 },
		/* the request's own step */
		{ HUTCH_SETUP_FAILED, STAGE_CHDIR, SITE_CHDIR_CWD, EACCES, HUTCH_ERR_SPAWN_ERROR,
		  "chdir", "EACCES", "changing to the working directory: EACCES", 71 },
		{ HUTCH_SETUP_FAILED, STAGE_BIND_SOURCE, 1, ENOENT, HUTCH_ERR_SPAWN_ERROR,
		  "bind_source", "ENOENT", "bind of /srv/data: ENOENT", 71 },
		{ HUTCH_SETUP_FAILED, STAGE_MOUNT, 2, 0, HUTCH_ERR_SANDBOX_UNAVAILABLE, "mount", NULL,
		  "mounts: mount of tmpfs at /work", 71 },
		{ HUTCH_SETUP_FAILED, STAGE_HELPER_EXEC, SITE_HELPER_EXEC_EXECVE, ENOENT,
		  HUTCH_ERR_HELPER_NOT_FOUND, "helper_exec", "ENOENT", "executing hutch-exec: ENOENT",
		  125 },
		{ HUTCH_BAD_SPEC, STAGE_SPEC_DECODE, SITE_SPEC_DECODE_BODY, EINVAL,
		  HUTCH_ERR_SPAWN_ERROR, "spec_decode", "EINVAL", "decoding the spec: EINVAL", 71 },
	};
	const struct spec sp = { .n_mounts = ARRAY_SIZE(mounts),
				 .mounts = (struct spec_mount *)mounts };

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct plan plan = { .partial_output = true };
		struct outcome o;
		struct json_object *doc;
		char want[256];

		outcome_init(&o, OUTCOME_FAILED, secret, strlen(secret));
		o.exit_status_raw = 71 << 8; /* the helper's exit 71 */
		o.have_record = true;
		o.record = (struct hutch_status){ .magic = HUTCH_STATUS_MAGIC,
						  .code = cases[i].code,
						  .stage = cases[i].stage,
						  .item = cases[i].item,
						  .err = cases[i].err };
		classify_outcome(&plan, &sp, &o);
		CU_ASSERT_EQUAL(o.status, OUTCOME_FAILED);
		CU_ASSERT_EQUAL(o.err, cases[i].herr);
		CU_ASSERT_STRING_EQUAL(o.detail, cases[i].words);
		doc = result_for_outcome(&plan, &o, &files, &jr);
		CU_ASSERT_STRING_EQUAL(str_at(doc, "error/code"), hutch_err_name(cases[i].herr));
		CU_ASSERT_STRING_EQUAL(str_at(doc, "error/stage"), cases[i].stage_name);
		if (cases[i].errno_name) {
			CU_ASSERT_STRING_EQUAL(str_at(doc, "error/errno"), cases[i].errno_name);
		} else {
			CU_ASSERT_TRUE(null_at(doc, "error/errno"));
		}
		snprintf(want, sizeof(want), "%s: %s", hutch_err_message(cases[i].herr),
			 cases[i].words);
		CU_ASSERT_STRING_EQUAL(str_at(doc, "error/message"), want);
		/* even with partial_output: the command never ran as asked */
		check_stream(doc, "stdout", "", 0, true, true, strlen(secret));
		check_no_output(doc);
		CU_ASSERT_EQUAL(result_exit_status(doc), cases[i].exit_status);
		json_object_put(doc);
		outcome_release(&o);
	}
}

/* ---- result_for_error ---- */

static void test_for_error(void)
{
	struct json_object *doc;
	char want[256];

	doc = result_for_error(HUTCH_ERR_INVALID_REQUEST, "/limits/wall_ms", "out of range", NULL,
			       &jr);
	CU_ASSERT_EQUAL(int_at(doc, "version"), 1);
	CU_ASSERT_STRING_EQUAL(str_at(doc, "status"), "failed");
	CU_ASSERT_TRUE(null_at(doc, "exit_code"));
	CU_ASSERT_TRUE(null_at(doc, "signal"));
	CU_ASSERT_TRUE(null_at(doc, "usage"));
	CU_ASSERT_STRING_EQUAL(str_at(doc, "error/code"), "invalid_request");
	CU_ASSERT_STRING_EQUAL(str_at(doc, "error/pointer"), "/limits/wall_ms");
	snprintf(want, sizeof(want), "%s: out of range",
		 hutch_err_message(HUTCH_ERR_INVALID_REQUEST));
	CU_ASSERT_STRING_EQUAL(str_at(doc, "error/message"), want);
	check_stream(doc, "stdout", "", 0, true, false, 0);
	check_stream(doc, "stderr", "", 0, true, false, 0);
	CU_ASSERT_EQUAL(json_object_array_length(at(doc, "files", NULL)), 0);
	CU_ASSERT_STRING_EQUAL(str_at(doc, "jail/policy"), "default");
	CU_ASSERT_STRING_EQUAL(str_at(doc, "jail/digest"), "sha256:0123");
	CU_ASSERT_EQUAL(result_exit_status(doc), 125);
	json_object_put(doc);

	doc = result_for_error(HUTCH_ERR_SANDBOX_UNAVAILABLE, NULL, NULL, "no user namespaces",
			       NULL);
	CU_ASSERT_TRUE(absent_at(doc, "error/pointer"));
	CU_ASSERT_TRUE(null_at(doc, "jail"));
	snprintf(want, sizeof(want), "%s: no user namespaces",
		 hutch_err_message(HUTCH_ERR_SANDBOX_UNAVAILABLE));
	CU_ASSERT_STRING_EQUAL(str_at(doc, "error/message"), want);
	CU_ASSERT_EQUAL(result_exit_status(doc), 71);
	json_object_put(doc);

	doc = result_for_error(HUTCH_ERR_POLICY_VIOLATION, "/env/HOME", "not allowed", "x", NULL);
	snprintf(want, sizeof(want), "%s: not allowed: x",
		 hutch_err_message(HUTCH_ERR_POLICY_VIOLATION));
	CU_ASSERT_STRING_EQUAL(str_at(doc, "error/message"), want);
	json_object_put(doc);
}

/* ---- exit status without --json ---- */

static void test_exit_status_every_code(void)
{
	for (int i = 1; i < HUTCH_ERR_MAX; i++) {
		struct json_object *doc =
			result_for_error((enum hutch_err)i, NULL, NULL, NULL, NULL);
		int want = hutch_err_exit_status((enum hutch_err)i);

		if (i == HUTCH_ERR_EXEC_FAILED)
			CU_ASSERT_EQUAL(want, 126);	/* without an errno: cannot execute */
		CU_ASSERT_EQUAL(result_exit_status(doc), want);
		json_object_put(doc);
	}
}

static void test_exit_status_docs(void)
{
	static const struct {
		const char *doc;
		int want;
	} cases[] = {
		{ "{\"status\":\"exited\",\"exit_code\":0}", 0 },
		{ "{\"status\":\"exited\",\"exit_code\":1}", 1 },
		{ "{\"status\":\"exited\",\"exit_code\":255}", 255 },
		{ "{\"status\":\"signaled\",\"signal\":{\"number\":9,\"name\":\"SIGKILL\"}}", 137 },
		{ "{\"status\":\"signaled\",\"signal\":{\"number\":1,\"name\":\"SIGHUP\"}}", 129 },
		{ "{\"status\":\"failed\",\"error\":{\"code\":\"timeout\"}}", 124 },
		{ "{\"status\":\"failed\","
		  "\"error\":{\"code\":\"exec_failed\",\"errno\":\"ENOENT\"}}",
		  127 },
		{ "{\"status\":\"failed\","
		  "\"error\":{\"code\":\"exec_failed\",\"errno\":\"EACCES\"}}",
		  126 },
		{ "{\"status\":\"failed\",\"error\":{\"code\":\"exec_failed\",\"errno\":null}}",
		  126 },
		{ "{\"status\":\"failed\",\"error\":{\"code\":\"exec_failed\"}}", 126 },
		{ "{\"status\":\"failed\",\"error\":{\"code\":\"sandbox_unavailable\"}}", 71 },
		{ "{\"status\":\"failed\",\"error\":{\"code\":\"sandbox_probe_failed\"}}", 71 },
		{ "{\"status\":\"failed\",\"error\":{\"code\":\"spawn_error\"}}", 71 },
		{ "{\"status\":\"failed\",\"error\":{\"code\":\"invalid_request\"}}", 125 },
		{ "{\"status\":\"failed\",\"error\":{\"code\":\"policy_violation\"}}", 125 },
		{ "{\"status\":\"failed\",\"error\":{\"code\":\"crash\"}}", 125 },
		{ "{\"status\":\"failed\",\"error\":{\"code\":\"no_such_code\"}}", 125 },
		{ "{\"status\":\"failed\",\"error\":{}}", 125 },
		{ "{\"status\":\"failed\",\"error\":null}", 125 },
		{ "{\"status\":\"failed\"}", 125 },
		{ "{}", 125 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct json_object *doc = json_tokener_parse(cases[i].doc);

		CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
		if (result_exit_status(doc) != cases[i].want)
			fprintf(stderr, "\n  %s: %d\n", cases[i].doc, result_exit_status(doc));
		CU_ASSERT_EQUAL(result_exit_status(doc), cases[i].want);
		json_object_put(doc);
	}
}

static const struct unit_case cases[] = {
	{ "failed on a limit: partial output kept or discarded", test_failed_limits },
	{ "failed with the helper's record", test_failed_record },
	{ "result_for_error", test_for_error },
	{ "exit status of every error code", test_exit_status_every_code },
	{ "exit status of documents", test_exit_status_docs },
	{ NULL, NULL },
};

UNIT_MAIN("result")
