/* test-result-output.c: unit tests of result documents (frontend/doc/result.c)
 * as they carry a run's output, written from outcomes settled as a run
 * settles them (run/classify.c): the shapes of exited and signaled runs,
 * output as text or as base64, and frame mode (the frame grammar, and what
 * a broken frame makes of the run). Failures, result_for_error and the exit
 * status: test-result.c; the fixtures: result-fixtures.c. */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "doc/outcome.h"
#include "doc/plan.h"
#include "doc/result.h"

#include "cunit-main.h"
#include "result-fixtures.h"

/* ---- runs that ended ---- */

static void test_exited_shape(void)
{
	struct plan plan = { .network = NET_NONE };
	struct outcome o;
	struct json_object *doc, *ns;

	outcome_init(&o, OUTCOME_EXITED, "42\n", 3);
	o.exit_code = 3;
	doc = render(&plan, &o, &files, &jr);
	CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
	CU_ASSERT_EQUAL(int_at(doc, "version"), 1);
	CU_ASSERT_STRING_EQUAL(str_at(doc, "status"), "exited");
	CU_ASSERT_EQUAL(int_at(doc, "exit_code"), 3);
	CU_ASSERT_TRUE(null_at(doc, "signal"));
	CU_ASSERT_TRUE(null_at(doc, "error"));
	check_stream(doc, "stdout", "42\n", 3, true, false, 3);
	check_stream(doc, "stderr", err_secret, strlen(err_secret), true, false,
		     strlen(err_secret));
	CU_ASSERT_EQUAL(int_at(doc, "usage/wall_ms"), 14);
	CU_ASSERT_EQUAL(int_at(doc, "usage/cpu_user_ms"), 6);
	CU_ASSERT_EQUAL(int_at(doc, "usage/cpu_sys_ms"), 4);
	CU_ASSERT_EQUAL(int_at(doc, "usage/max_rss_kb"), 9120);
	CU_ASSERT_TRUE(absent_at(doc, "usage/oom_killed"));	/* no cgroup */
	CU_ASSERT_TRUE(null_at(doc, "denials"));		/* no listener */
	CU_ASSERT_STRING_EQUAL(str_at(doc, "jail/policy"), "default");
	CU_ASSERT_STRING_EQUAL(str_at(doc, "jail/digest"), "sha256:0123");
	CU_ASSERT_EQUAL(int_at(doc, "jail/landlock_abi"), 4);
	CU_ASSERT_STRING_EQUAL(str_at(doc, "jail/seccomp"), "deny-list");
	CU_ASSERT_STRING_EQUAL(str_at(doc, "jail/cgroup"), "unavailable");
	CU_ASSERT_STRING_EQUAL(str_at(doc, "jail/network"), "none");
	ns = at(doc, "jail/namespaces", NULL);
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(ns), 7);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_array_get_idx(ns, 6)), "net");
	/* files: content as base64, errors by name */
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(at(doc, "files", NULL)), 2);
	{
		struct json_object *f0 = json_object_array_get_idx(at(doc, "files", NULL), 0);
		struct json_object *f1 = json_object_array_get_idx(at(doc, "files", NULL), 1);

		CU_ASSERT_STRING_EQUAL(str_at(f0, "name"), "out.txt");
		CU_ASSERT_STRING_EQUAL(str_at(f0, "base64"), "U0VDUkVULUZJTEU=");
		CU_ASSERT_EQUAL(int_at(f0, "bytes"), 11);
		CU_ASSERT_STRING_EQUAL(str_at(f1, "name"), "gone");
		CU_ASSERT_STRING_EQUAL(str_at(f1, "error"), "missing");
		CU_ASSERT_TRUE(absent_at(f1, "base64"));
	}
	CU_ASSERT_EQUAL(result_exit_status(doc), 3);
	json_object_put(doc);
	outcome_release(&o);

	/* host network: no network namespace; allow-list named */
	plan.network = NET_HOST;
	plan.seccomp = SECCOMP_ALLOW_LIST;
	outcome_init(&o, OUTCOME_EXITED, "", 0);
	doc = render(&plan, &o, NULL, NULL);
	CU_ASSERT_EQUAL(json_object_array_length(at(doc, "jail/namespaces", NULL)), 6);
	CU_ASSERT_STRING_EQUAL(str_at(doc, "jail/network"), "host");
	CU_ASSERT_STRING_EQUAL(str_at(doc, "jail/seccomp"), "allow-list");
	CU_ASSERT_TRUE(null_at(doc, "jail/policy"));
	CU_ASSERT_EQUAL(json_object_array_length(at(doc, "files", NULL)), 0);
	CU_ASSERT_EQUAL(result_exit_status(doc), 0);
	check_stream(doc, "stdout", "", 0, true, false, 0);
	json_object_put(doc);
	outcome_release(&o);

	/* a cgroup in force: named, and whether the OOM killer struck */
	outcome_init(&o, OUTCOME_SIGNALED, "", 0);
	o.signal = SIGKILL;
	o.cgroup_applied = true;
	o.oom_kills = 1;
	doc = render(&plan, &o, NULL, &jr);
	CU_ASSERT_STRING_EQUAL(str_at(doc, "jail/cgroup"), "applied");
	CU_ASSERT_TRUE(bool_at(doc, "usage/oom_killed"));
	json_object_put(doc);
	outcome_release(&o);
}

/* Output that is UTF-8 without NUL is text; anything else base64. */
static void test_text_or_base64(void)
{
	static const struct {
		const char *out;
		size_t len;
		bool text;
		const char *b64;	/* when base64 */
	} cases[] = {
		{ "42\n", 3, true, NULL },
		{ "", 0, true, NULL },
		{ "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9, true, NULL },
		{ "tab\tcr\r\x1b[0m\x7f", 12, true, NULL },
		{ "\xff\xfe", 2, false, "//4=" },
		{ "a\0b", 3, false, "YQBi" },
		{ "\0", 1, false, "AA==" },
		{ "\xc0\x80", 2, false, "wIA=" },
		{ "\xed\xa0\x80", 3, false, "7aCA" },
		{ "ab\xe2\x82", 4, false, "YWLigg==" },	/* cut inside a character */
	};
	struct plan plan = { 0 };

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct outcome o;
		struct json_object *doc;

		outcome_init(&o, OUTCOME_EXITED, cases[i].out, cases[i].len);
		free(o.errc.buf);
		set_capture(&o.errc, cases[i].out, cases[i].len);
		doc = render(&plan, &o, NULL, &jr);
		check_stream(doc, "stdout", cases[i].out, cases[i].len, cases[i].text, false,
			     cases[i].len);
		check_stream(doc, "stderr", cases[i].out, cases[i].len, cases[i].text, false,
			     cases[i].len);
		if (!cases[i].text)
			CU_ASSERT_STRING_EQUAL(str_at(doc, "stdout/base64"), cases[i].b64);
		json_object_put(doc);
		outcome_release(&o);
	}
}

static void test_signaled_shape(void)
{
	static const struct {
		int sig;
		const char *name;
	} sigs[] = {
		{ SIGKILL, "SIGKILL" }, { SIGSEGV, "SIGSEGV" }, { SIGTERM, "SIGTERM" },
		{ SIGABRT, "SIGABRT" }, { SIGXCPU, "SIGXCPU" }, { SIGPIPE, "SIGPIPE" },
	};
	struct plan plan = { 0 };

	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++) {
		struct outcome o;
		struct json_object *doc;

		outcome_init(&o, OUTCOME_SIGNALED, secret, strlen(secret));
		o.signal = sigs[i].sig;
		doc = render(&plan, &o, NULL, &jr);
		CU_ASSERT_STRING_EQUAL(str_at(doc, "status"), "signaled");
		CU_ASSERT_TRUE(null_at(doc, "exit_code"));
		CU_ASSERT_TRUE(null_at(doc, "error"));
		CU_ASSERT_EQUAL(int_at(doc, "signal/number"), sigs[i].sig);
		CU_ASSERT_STRING_EQUAL(str_at(doc, "signal/name"), sigs[i].name);
		/* a signal is the command's own end: its output stays */
		check_stream(doc, "stdout", secret, strlen(secret), true, false, strlen(secret));
		CU_ASSERT_EQUAL(result_exit_status(doc), 128 + sigs[i].sig);
		json_object_put(doc);
		outcome_release(&o);
	}
}

/* ---- frame mode ---- */

static void test_check_frame(void)
{
	static const struct {
		const char *buf;
		size_t len;
		enum hutch_err err;
		size_t off, plen;
	} cases[] = {
		{ "", 0, HUTCH_ERR_PROTOCOL_ERROR, 0, 0 },
		{ "\0\0", 2, HUTCH_ERR_PROTOCOL_ERROR, 0, 0 },
		{ "\0\0\0", 3, HUTCH_ERR_PROTOCOL_ERROR, 0, 0 },
		{ "\0\0\0\0", 4, HUTCH_ERR_NONE, 4, 0 },		/* header only, empty */
		{ "\0\0\0\2hi", 6, HUTCH_ERR_NONE, 4, 2 },		/* exact */
		{ "\0\0\0\5", 4, HUTCH_ERR_PROTOCOL_ERROR, 0, 0 },	/* header only, short */
		{ "\0\0\0\5hi", 6, HUTCH_ERR_PROTOCOL_ERROR, 0, 0 },	/* short */
		{ "\0\0\0\2hi!", 7, HUTCH_ERR_OUTPUT_OVERFLOW, 0, 0 },	/* trailing */
		{ "\0\0\0\0\0", 5, HUTCH_ERR_OUTPUT_OVERFLOW, 0, 0 },
		{ "\0\0\1\0", 4, HUTCH_ERR_PROTOCOL_ERROR, 0, 0 },	/* big-endian 256 */
		{ "\xff\xff\xff\xff", 4, HUTCH_ERR_PROTOCOL_ERROR, 0, 0 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct capture c = { .buf = (uint8_t *)cases[i].buf, .len = cases[i].len,
				     .bytes = cases[i].len, .echo_fd = -1 };
		size_t off = 99, len = 99;
		enum hutch_err r = result_check_frame(&c, &off, &len);

		if (r != cases[i].err)
			fprintf(stderr, "\n  frame case %zu: %s\n", i, hutch_err_name(r));
		CU_ASSERT_EQUAL(r, cases[i].err);
		CU_ASSERT_EQUAL(off, r == HUTCH_ERR_NONE ? cases[i].off : 99);
		CU_ASSERT_EQUAL(len, r == HUTCH_ERR_NONE ? cases[i].plen : 99);
	}
	/* 256 bytes of payload after a big-endian header */
	{
		uint8_t buf[4 + 256] = { 0, 0, 1, 0 };
		struct capture c = { .buf = buf, .len = sizeof(buf), .bytes = sizeof(buf) };
		size_t off = 0, len = 0;

		CU_ASSERT_EQUAL(result_check_frame(&c, &off, &len), HUTCH_ERR_NONE);
		CU_ASSERT_EQUAL(off, 4);
		CU_ASSERT_EQUAL(len, 256);
	}
}

static void test_frame_outcomes(void)
{
	static const struct {
		enum outcome_status st;
		int code;		/* exit code or signal */
		const char *out;
		size_t len;
		const char *status;	/* result status */
		const char *err;	/* error code, or NULL */
		const char *payload;	/* kept stdout */
		size_t plen;
		bool text;
	} cases[] = {
		{ OUTCOME_EXITED, 0, "\0\0\0\2hi", 6, "exited", NULL, "hi", 2, true },
		{ OUTCOME_EXITED, 0, "\0\0\0\0", 4, "exited", NULL, "", 0, true },
		{ OUTCOME_EXITED, 0, "\0\0\0\2\xff\0", 6, "exited", NULL, "\xff\0", 2, false },
		{ OUTCOME_EXITED, 1, "\0\0\0\2hi", 6, "failed", "crash", "", 0, true },
		{ OUTCOME_EXITED, 2, "", 0, "failed", "crash", "", 0, true },
		{ OUTCOME_SIGNALED, SIGKILL, "\0\0\0\2hi", 6, "failed", "crash", "", 0, true },
		{ OUTCOME_EXITED, 0, "\0\0\0\5hi", 6, "failed", "protocol_error", "", 0, true },
		{ OUTCOME_EXITED, 0, "\0\0", 2, "failed", "protocol_error", "", 0, true },
		{ OUTCOME_EXITED, 0, "", 0, "failed", "protocol_error", "", 0, true },
		{ OUTCOME_EXITED, 0, "\0\0\0\2hi!", 7, "failed", "output_overflow", "", 0, true },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct plan plan = { .stdout_mode = STDOUT_FRAME, .partial_output = true };
		struct outcome o;
		struct json_object *doc;

		outcome_init(&o, cases[i].st, cases[i].out, cases[i].len);
		if (cases[i].st == OUTCOME_EXITED)
			o.exit_code = cases[i].code;
		else
			o.signal = cases[i].code;
		doc = render(&plan, &o, NULL, &jr);
		if (strcmp(str_at(doc, "status"), cases[i].status) != 0)
			fprintf(stderr, "\n  frame outcome %zu: %s\n", i, str_at(doc, "status"));
		CU_ASSERT_STRING_EQUAL(str_at(doc, "status"), cases[i].status);
		if (cases[i].err) {
			CU_ASSERT_STRING_EQUAL(str_at(doc, "error/code"), cases[i].err);
			CU_ASSERT_TRUE(null_at(doc, "exit_code"));
			CU_ASSERT_TRUE(null_at(doc, "signal"));
			/* the frame is the contract: a broken one is never half-kept */
			check_stream(doc, "stdout", "", 0, true, true, cases[i].len);
			CU_ASSERT_EQUAL(result_exit_status(doc), 125);
		} else {
			CU_ASSERT_EQUAL(int_at(doc, "exit_code"), 0);
			CU_ASSERT_TRUE(null_at(doc, "error"));
			check_stream(doc, "stdout", cases[i].payload, cases[i].plen, cases[i].text,
				     false, cases[i].len);
			CU_ASSERT_EQUAL(result_exit_status(doc), 0);
		}
		json_object_put(doc);
		outcome_release(&o);
	}

	/* A run that already failed keeps its own error. */
	{
		struct plan plan = { .stdout_mode = STDOUT_FRAME };
		struct outcome o;
		struct json_object *doc;

		outcome_init(&o, OUTCOME_FAILED, "\0\0\0\2hi", 6);
		o.err = HUTCH_ERR_TIMEOUT;
		o.limit = "wall_ms";
		doc = render(&plan, &o, NULL, &jr);
		CU_ASSERT_STRING_EQUAL(str_at(doc, "error/code"), "timeout");
		CU_ASSERT_EQUAL(result_exit_status(doc), 124);
		json_object_put(doc);
		outcome_release(&o);
	}
}

static const struct unit_case cases[] = {
	{ "exited: shape", test_exited_shape },
	{ "text or base64", test_text_or_base64 },
	{ "signaled: shape", test_signaled_shape },
	{ "result_check_frame", test_check_frame },
	{ "frame mode outcomes", test_frame_outcomes },
	{ NULL, NULL },
};

UNIT_MAIN("result-output")
