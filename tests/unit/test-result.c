/* test-result.c: unit tests of result documents (frontend/doc/result.c),
 * written from outcomes settled as a run settles them (run/classify.c):
 * the UTF-8 check that picks text or base64, the shapes of exited,
 * signaled and failed runs, the partial-output rule, the frame grammar,
 * the words of a refusal, the exit status without --json, and that
 * messages never carry the output. */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "status.h"
#include "doc/outcome.h"
#include "doc/plan.h"
#include "doc/request.h"
#include "doc/result.h"
#include "doc/text.h"
#include "run/classify.h"

#include "cunit-main.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- utf8_valid ---- */

static const struct {
	const char *s;
	size_t len;	/* 0: strlen */
	bool ok;
} utf8_cases[] = {
	{ "", 0, true },
	{ "plain ASCII\n\t", 0, true },
	{ "\x7f", 0, true },
	{ "a\0b", 3, true },			/* NUL is UTF-8; base64 is chosen elsewhere */
	{ "\xc2\x80", 0, true },		/* U+0080, the first 2-byte */
	{ "\xdf\xbf", 0, true },		/* U+07FF */
	{ "\xe0\xa0\x80", 0, true },		/* U+0800 */
	{ "\xef\xbf\xbf", 0, true },		/* U+FFFF */
	{ "\xed\x9f\xbf", 0, true },		/* U+D7FF, below the surrogates */
	{ "\xee\x80\x80", 0, true },		/* U+E000, above them */
	{ "\xf0\x90\x80\x80", 0, true },	/* U+10000 */
	{ "\xf4\x8f\xbf\xbf", 0, true },	/* U+10FFFF, the last */
	{ "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 0, true },
	/* overlong */
	{ "\xc0\x80", 0, false },
	{ "\xc0\xaf", 0, false },
	{ "\xc1\xbf", 0, false },
	{ "\xe0\x80\x80", 0, false },
	{ "\xe0\x9f\xbf", 0, false },
	{ "\xf0\x80\x80\x80", 0, false },
	{ "\xf0\x8f\xbf\xbf", 0, false },
	/* surrogates */
	{ "\xed\xa0\x80", 0, false },
	{ "\xed\xad\xbf", 0, false },
	{ "\xed\xbf\xbf", 0, false },
	{ "\xed\xa0\xbd\xed\xb8\x80", 0, false },	/* a CESU-8 pair */
	/* beyond U+10FFFF, and bytes never used */
	{ "\xf4\x90\x80\x80", 0, false },
	{ "\xf5\x80\x80\x80", 0, false },
	{ "\xf7\xbf\xbf\xbf", 0, false },
	{ "\xf8\x88\x80\x80\x80", 0, false },
	{ "\xfc\x84\x80\x80\x80\x80", 0, false },
	{ "\xfe", 0, false },
	{ "\xff", 0, false },
	/* truncated, stray continuation, bad continuation */
	{ "\xc2", 0, false },
	{ "\xe0\xa0", 0, false },
	{ "\xf0\x90\x80", 0, false },
	{ "ab\xe2\x82", 0, false },
	{ "\x80", 0, false },
	{ "a\xbf", 0, false },
	{ "\xc2\x41", 0, false },
	{ "\xe0\xa0\xc0", 0, false },
	{ "\xf0\x90\x80\x7f", 0, false },
	{ "\xc3\xa9\xc3", 0, false },
};

static void test_utf8_valid(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(utf8_cases); i++) {
		const char *s = utf8_cases[i].s;
		size_t len = utf8_cases[i].len ? utf8_cases[i].len : strlen(s);

		if (utf8_valid((const uint8_t *)s, len) != utf8_cases[i].ok)
			fprintf(stderr, "\n  utf8_cases[%zu]: want %d\n", i, utf8_cases[i].ok);
		CU_ASSERT_EQUAL(utf8_valid((const uint8_t *)s, len), utf8_cases[i].ok);
	}
	/* The length bounds the check: a valid prefix of an invalid buffer. */
	CU_ASSERT_TRUE(utf8_valid((const uint8_t *)"ab\xff", 2));
	CU_ASSERT_FALSE(utf8_valid((const uint8_t *)"\xc3\xa9", 1));
}

/* ---- document access ---- */

/* The member at a '/'-separated path; *ret_present says whether it is
 * there at all (a JSON null is present and NULL). */
static struct json_object *at(struct json_object *o, const char *path, bool *ret_present)
{
	char buf[128];
	char *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, "/", &save); k; k = strtok_r(NULL, "/", &save)) {
		struct json_object *v = NULL;

		if (!o || !json_object_object_get_ex(o, k, &v)) {
			if (ret_present)
				*ret_present = false;
			return NULL;
		}
		o = v;
	}
	if (ret_present)
		*ret_present = true;
	return o;
}

static const char *str_at(struct json_object *o, const char *path)
{
	struct json_object *v = at(o, path, NULL);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

static int64_t int_at(struct json_object *o, const char *path)
{
	struct json_object *v = at(o, path, NULL);

	CU_ASSERT_FATAL(v && json_object_is_type(v, json_type_int));
	return json_object_get_int64(v);
}

static bool bool_at(struct json_object *o, const char *path)
{
	struct json_object *v = at(o, path, NULL);

	CU_ASSERT_FATAL(v && json_object_is_type(v, json_type_boolean));
	return json_object_get_boolean(v);
}

static bool null_at(struct json_object *o, const char *path)
{
	bool present = false;
	struct json_object *v = at(o, path, &present);

	return present && !v;
}

static bool absent_at(struct json_object *o, const char *path)
{
	bool present = true;

	at(o, path, &present);
	return !present;
}

/* A stream object: exactly one of text and base64, holding these bytes. */
static void check_stream(struct json_object *doc, const char *name, const void *want,
			 size_t want_len, bool want_text, bool truncated, uint64_t bytes)
{
	struct json_object *s = at(doc, name, NULL);
	struct json_object *t = at(s, "text", NULL), *b = at(s, "base64", NULL);

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(json_object_object_length(s), 3);
	if (want_text) {
		CU_ASSERT_PTR_NULL(b);
		CU_ASSERT_PTR_NOT_NULL_FATAL(t);
		CU_ASSERT_EQUAL_FATAL((size_t)json_object_get_string_len(t), want_len);
		CU_ASSERT_EQUAL(memcmp(json_object_get_string(t), want, want_len), 0);
	} else {
		uint8_t *dec = NULL;
		size_t len = 0;

		CU_ASSERT_PTR_NULL(t);
		CU_ASSERT_PTR_NOT_NULL_FATAL(b);
		CU_ASSERT_EQUAL_FATAL(base64_decode_strict(json_object_get_string(b),
							   (size_t)json_object_get_string_len(b),
							   &dec, &len),
				      0);
		CU_ASSERT_EQUAL(len, want_len);
		CU_ASSERT(len == want_len && memcmp(dec, want, len) == 0);
		free(dec);
	}
	CU_ASSERT_EQUAL(bool_at(s, "truncated"), truncated);
	CU_ASSERT_EQUAL(int_at(s, "bytes"), (int64_t)bytes);
}

/* ---- synthetic runs ---- */

static const char secret[] = "SECRET-OUTPUT-7f3a";
static const char err_secret[] = "SECRET-STDERR-91c2";

static void set_capture(struct capture *c, const void *data, size_t len)
{
	c->buf = malloc(len + 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c->buf);
	memcpy(c->buf, data, len);
	c->len = len;
	c->bytes = len;
	c->echo_fd = -1;
}

static void outcome_init(struct outcome *o, enum outcome_status st, const void *out,
			 size_t out_len)
{
	*o = (struct outcome){ .status = st, .workdir_fd = -1 };
	set_capture(&o->out, out, out_len);
	set_capture(&o->errc, err_secret, strlen(err_secret));
	o->wall_ms = 14;
	o->cpu_user_ms = 6;
	o->cpu_sys_ms = 4;
	o->max_rss_kb = 9120;
}

static void outcome_release(struct outcome *o)
{
	free(o->out.buf);
	free(o->errc.buf);
	*o = (struct outcome){ 0 };
}

static const struct jail_report jr = {
	.policy = "default",
	.digest = "sha256:0123",
	.landlock_abi = 4,
	.cgroup = "unavailable",
};

static struct collected_file one_file[] = {
	{ .name = (char *)"out.txt", .data = (uint8_t *)"SECRET-FILE", .len = 11, .error = NULL },
	{ .name = (char *)"gone", .data = NULL, .len = 0, .error = "missing" },
};
static const struct collected files = { .files = one_file, .n = 2 };

/* A synthetic run as a document: settled as exec_finish settles a real
 * one once its status is known, then written. */
static struct json_object *render(const struct plan *plan, struct outcome *o,
				  const struct collected *fl, const struct jail_report *j)
{
	classify_output(plan, NULL, o);
	return result_for_outcome(plan, o, fl, j);
}

static char *doc_text(struct json_object *doc)
{
	return strdup(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN |
								JSON_C_TO_STRING_NOSLASHESCAPE));
}

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

/* ---- failures and the partial-output rule ---- */

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
		  "creating the jail's user namespace: EPERM", 71 },
		{ HUTCH_SETUP_FAILED, STAGE_ID_MAP, SITE_ID_MAP_GID, EPERM, HUTCH_ERR_SPAWN_ERROR,
		  "id_map", "EPERM", "writing gid_map: EPERM", 71 },
		{ HUTCH_SETUP_FAILED, STAGE_BIND_SOURCE, 1, ENOENT, HUTCH_ERR_SPAWN_ERROR,
		  "bind_source", "ENOENT", "bind of /srv/data: ENOENT", 71 },
		{ HUTCH_SETUP_FAILED, STAGE_MOUNT, 2, 0, HUTCH_ERR_SPAWN_ERROR, "mount", NULL,
		  "mount of tmpfs at /work", 71 },
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
	{ "utf8_valid", test_utf8_valid },
	{ "exited: shape", test_exited_shape },
	{ "text or base64", test_text_or_base64 },
	{ "signaled: shape", test_signaled_shape },
	{ "failed on a limit: partial output kept or discarded", test_failed_limits },
	{ "failed with the helper's record", test_failed_record },
	{ "result_check_frame", test_check_frame },
	{ "frame mode outcomes", test_frame_outcomes },
	{ "result_for_error", test_for_error },
	{ "exit status of every error code", test_exit_status_every_code },
	{ "exit status of documents", test_exit_status_docs },
	{ NULL, NULL },
};

UNIT_MAIN("result")
