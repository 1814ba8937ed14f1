/* test-refusal.c: unit tests of issue 23's pure code: the refusal-message
 * machinery (doc/verror.c: given, accepted, allowed_by, their words), the
 * request's refusals that fill it (an enum, a range with its unit, the
 * version), keep_partial from the request to classify's verdict and the
 * result's "partial", the non-framing streams serve tells apart
 * (frame_foreign_stream, proto_oversized_words), and the grants
 * `hutch policy check` flags (doc/policy-review.c). */
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame-codec.h"
#include "doc/json-util.h"
#include "doc/outcome.h"
#include "doc/plan.h"
#include "doc/policy-review.h"
#include "doc/protocol.h"
#include "doc/request.h"
#include "doc/result.h"
#include "doc/text.h"
#include "doc/verror.h"
#include "run/classify.h"

#include "cunit-main.h"

static void test_verror_lists(void)
{
	struct verrors e = { 0 };
	char words[1024];
	const char *pos, *value;

	verror_accept(&e, "nothing to attach to");	/* no error yet: ignored */
	verror_add(&e, HUTCH_ERR_INVALID_REQUEST, "/network", "not an allowed value");
	verror_given(&e, "wi\nfi");
	verror_accept(&e, "%s", "none");
	verror_accept_names(&e, (const char *const[]){ "loopback", NULL, "host" }, 3);
	CU_ASSERT_STRING_EQUAL(e.items[0].given, "wi?fi");
	CU_ASSERT_STRING_EQUAL(e.items[0].accepted, "none\nloopback\nhost\n");
	pos = e.items[0].accepted;
	CU_ASSERT_EQUAL(verror_list_next(&pos, &value), 4);
	CU_ASSERT_EQUAL(strncmp(value, "none", 4), 0);
	CU_ASSERT_EQUAL(verror_list_next(&pos, &value), 8);
	CU_ASSERT_EQUAL(verror_list_next(&pos, &value), 4);
	CU_ASSERT_EQUAL(verror_list_next(&pos, &value), 0);
	verror_accepted_words(&e.items[0], words, sizeof(words));
	CU_ASSERT_STRING_EQUAL(words, "; accepted: none, loopback, host");
	verror_allowed_by(&e, "network");
	verror_accepted_words(&e.items[0], words, sizeof(words));
	CU_ASSERT_STRING_EQUAL(words, "; accepted: none, loopback, host; the shipped policy network "
				      "allows it (--policy network)");
	verror_allowed_by(&e, "build");
	verror_message(&e.items[0], words, sizeof(words));
	CU_ASSERT_STRING_EQUAL(words, "not an allowed value (given wi?fi); accepted: none, "
				      "loopback, host; the shipped policies network, build allow it "
				      "(--policy NAME)");
	/* Bounded: a list that would overflow ends in "...", once. */
	for (int i = 0; i < 200; i++)
		verror_accept(&e, "/a/rather/long/prefix/%d (ro, rw)", i);
	CU_ASSERT(strlen(e.items[0].accepted) < VERROR_ACCEPTED_MAX);
	CU_ASSERT_PTR_NOT_NULL(strstr(e.items[0].accepted, "...\n"));
	CU_ASSERT_PTR_NULL(strstr(strstr(e.items[0].accepted, "...\n") + 4, "..."));
	/* A message buffer too small is cut, never overrun. */
	verror_message(&e.items[0], words, 16);
	CU_ASSERT_EQUAL(strlen(words), 15);
}

/* The first error of parsing text as a request. */
static struct verror parse_error(const char *text)
{
	struct verrors e = { 0 };
	struct request r = { 0 };

	CU_ASSERT_EQUAL(request_parse(text, strlen(text), &r, &e), -EINVAL);
	CU_ASSERT_FATAL(e.n > 0);
	return e.items[0];
}

static void test_request_refusals(void)
{
	struct verror v;
	struct verrors e = { 0 };
	struct request r = { 0 };
	const char *kp = "{\"version\":1,\"argv\":[\"x\"],\"keep_partial\":true}";

	v = parse_error("{\"version\":1,\"argv\":[\"x\"],\"network\":\"wifi\"}");
	CU_ASSERT_STRING_EQUAL(v.pointer, "/network");
	CU_ASSERT_STRING_EQUAL(v.given, "wifi");
	CU_ASSERT_STRING_EQUAL(v.accepted, "none\nloopback\nhost\nproxy\n");
	v = parse_error("{\"version\":1,\"argv\":[\"x\"],\"network\":\"Wi Fi SECRET\"}");
	CU_ASSERT_STRING_EQUAL(v.given, "");	/* not a word: not repeated */
	CU_ASSERT_STRING_EQUAL(v.accepted, "none\nloopback\nhost\nproxy\n");
	v = parse_error("{\"version\":2,\"argv\":[\"x\"]}");
	CU_ASSERT_STRING_EQUAL(v.pointer, "/version");
	CU_ASSERT_STRING_EQUAL(v.given, "2");
	CU_ASSERT_STRING_EQUAL(v.accepted, "1\n");
	v = parse_error("{\"version\":1,\"argv\":[\"x\"],\"limits\":{\"wall_ms\":0}}");
	CU_ASSERT_STRING_EQUAL(v.accepted, "1 to 604800000 milliseconds (1ms to 168h)\n");
	v = parse_error("{\"version\":1,\"argv\":[\"x\"],\"limits\":{\"memory_bytes\":1}}");
	CU_ASSERT_STRING_EQUAL(v.accepted, "16777216 to 1099511627776 bytes (16M to 1T)\n");
	v = parse_error("{\"version\":1,\"argv\":[\"x\"],\"limits\":{\"processes\":0}}");
	CU_ASSERT_STRING_EQUAL(v.accepted, "1 to 1048576\n");
	v = parse_error("{\"version\":1,\"argv\":[\"x\"],\"limits\":{\"wall\":1}}");
	CU_ASSERT_STRING_EQUAL(v.pointer, "/limits/wall");
	CU_ASSERT_PTR_NOT_NULL(strstr(v.accepted, "wall_ms\ncpu_ms\n"));
	CU_ASSERT_PTR_NULL(strstr(v.accepted, "tmp_bytes"));	/* policy only */
	v = parse_error("{\"version\":1,\"argv\":[\"x\"],\"keep_partial\":\"yes\"}");
	CU_ASSERT_STRING_EQUAL(v.pointer, "/keep_partial");
	CU_ASSERT_EQUAL(request_parse(kp, strlen(kp), &r, &e), 0);
	CU_ASSERT_TRUE(r.keep_partial);
	request_free(&r);
}

static void test_result_carries_accepted(void)
{
	struct verrors e = { 0 };
	struct json_object *doc, *err, *v;

	verror_add(&e, HUTCH_ERR_POLICY_VIOLATION, "/network", "not allowed by the policy");
	verror_given(&e, "host");
	verror_accept(&e, "none");
	verror_accept(&e, "loopback");
	verror_allowed_by(&e, "network");
	doc = result_for_verror(&e.items[0], NULL);
	CU_ASSERT_FATAL(doc && json_object_object_get_ex(doc, "error", &err));
	CU_ASSERT_FATAL(json_object_object_get_ex(err, "message", &v));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(v),
			       "the request asks for more than the policy allows: not allowed by the "
			       "policy (given host); accepted: none, loopback; the shipped policy "
			       "network allows it (--policy network)");
	CU_ASSERT_FATAL(json_object_object_get_ex(err, "accepted", &v));
	CU_ASSERT_EQUAL(json_object_array_length(v), 2);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_array_get_idx(v, 1)), "loopback");
	CU_ASSERT_FATAL(json_object_object_get_ex(err, "allowed_by", &v));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_array_get_idx(v, 0)), "network");
	json_object_put(doc);
	/* No lists: neither member. */
	e = (struct verrors){ 0 };
	verror_add(&e, HUTCH_ERR_INVALID_REQUEST, "/argv", "missing");
	doc = result_for_verror(&e.items[0], NULL);
	CU_ASSERT_FATAL(doc && json_object_object_get_ex(doc, "error", &err));
	CU_ASSERT_FALSE(json_object_object_get_ex(err, "accepted", NULL));
	CU_ASSERT_FALSE(json_object_object_get_ex(err, "allowed_by", NULL));
	json_object_put(doc);
}

/* A run our kill cut short after it wrote "before\n" (and a frame's
 * first bytes when frame). */
static void cut_short(struct outcome *o, uint8_t *buf, size_t len)
{
	*o = (struct outcome){ .status = OUTCOME_FAILED, .err = HUTCH_ERR_TIMEOUT };
	o->out = (struct capture){ .buf = buf, .len = len, .alloc = len, .bytes = len };
	o->errc = (struct capture){ .buf = (uint8_t *)"e\n", .len = 2, .alloc = 2, .bytes = 2 };
}

static bool has_partial(const struct plan *plan, struct outcome *o)
{
	struct json_object *doc = result_for_outcome(plan, o, NULL, NULL);
	bool p = json_object_object_get_ex(doc, "partial", NULL);

	json_object_put(doc);
	return p;
}

static void test_keep_partial(void)
{
	struct plan plan = { 0 };
	struct outcome o;
	uint8_t before[] = "before\n", frame[] = { 0, 0, 0, 5, 'h', 'e' };

	plan.limits.stdout_bytes = plan.limits.stderr_bytes = 1024;
	cut_short(&o, before, 7);
	classify_output(&plan, NULL, &o);
	CU_ASSERT_TRUE(o.output_withheld);	/* as before: fail closed */
	CU_ASSERT_FALSE(o.partial);
	CU_ASSERT_FALSE(has_partial(&plan, &o));
	plan.keep_partial = true;
	cut_short(&o, before, 7);
	classify_output(&plan, NULL, &o);
	CU_ASSERT_FALSE(o.output_withheld);
	CU_ASSERT_TRUE(o.partial);
	CU_ASSERT_EQUAL(o.show_out.len, 7);
	CU_ASSERT_TRUE(has_partial(&plan, &o));
	/* A frame cut short is never shown; stderr is. */
	plan.stdout_mode = STDOUT_FRAME;
	cut_short(&o, frame, sizeof(frame));
	classify_output(&plan, NULL, &o);
	CU_ASSERT_TRUE(o.partial);
	CU_ASSERT_EQUAL(o.show_out.len, 0);
	CU_ASSERT_TRUE(o.show_out.truncated);
	CU_ASSERT_EQUAL(o.show_err.len, 2);
	/* A refused jail has nothing of its own to keep. */
	plan.stdout_mode = STDOUT_STREAM;
	cut_short(&o, before, 7);
	o.have_record = true;
	o.err = HUTCH_ERR_SANDBOX_UNAVAILABLE;
	classify_output(&plan, NULL, &o);
	CU_ASSERT_TRUE(o.output_withheld);
	CU_ASSERT_FALSE(o.partial);
	/* A run that exited is whole, never partial. */
	cut_short(&o, before, 7);
	o.status = OUTCOME_EXITED;
	o.err = HUTCH_ERR_NONE;
	classify_output(&plan, NULL, &o);
	CU_ASSERT_FALSE(o.partial);
}

static void test_foreign_streams(void)
{
	static const char *const foreign[] = { "GET /", "POST", "PUT /", "HEAD", "DELETE",
						"OPTIONS", "PATCH", "CONNECT", "TRACE", "PRI * HTTP/2.0",
						"\x16\x03\x01\x02", "SSH-2.0", "{\"ve", "[1,2" };
	uint8_t hdr[4];
	enum hutch_err code;
	char words[256];

	for (size_t i = 0; i < sizeof(foreign) / sizeof(foreign[0]); i++) {
		memcpy(hdr, foreign[i], 4);
		CU_ASSERT_PTR_NOT_NULL(frame_foreign_stream(hdr));
		/* Every one is far over the default 96M limit. */
		CU_ASSERT(frame_decode_header(hdr) > (96u << 20));
	}
	memcpy(hdr, "GET ", 4);
	CU_ASSERT_STRING_EQUAL(frame_foreign_stream(hdr), "an HTTP request");
	memcpy(hdr, "GEX ", 4);
	CU_ASSERT_PTR_NULL(frame_foreign_stream(hdr));
	frame_put_header(hdr, 1u << 20);
	CU_ASSERT_PTR_NULL(frame_foreign_stream(hdr));
	proto_oversized_words(hdr, 1024, &code, words, sizeof(words));
	CU_ASSERT_EQUAL(code, HUTCH_ERR_FRAME_OVERSIZED);
	CU_ASSERT_STRING_EQUAL(words, "a frame header announced 1048576 bytes; the limit is 1024 "
				      "bytes (--max-frame)");
	memcpy(hdr, "POST", 4);
	proto_oversized_words(hdr, 1024, &code, words, sizeof(words));
	CU_ASSERT_EQUAL(code, HUTCH_ERR_PROTOCOL_ERROR);
	CU_ASSERT_PTR_NOT_NULL(strstr(words, "not hutch framing: the stream starts as an HTTP request"));
}

static void test_failed_accepting(void)
{
	size_t len = 0;
	uint8_t *f = proto_failed_accepting(3, HUTCH_ERR_POLICY_VIOLATION, "r", "/network",
					    "none\nloopback\n", &len);
	struct json_object *ev, *failed, *acc;
	struct json_tokener *tok;

	CU_ASSERT_FATAL(f && len > FRAME_HEADER_BYTES);
	/* a frame's body is not NUL-terminated: parse it by its length */
	ev = json_tokener_parse_ex(tok = json_tokener_new(), (const char *)f + FRAME_HEADER_BYTES,
				   (int)(len - FRAME_HEADER_BYTES));
	json_tokener_free(tok);
	CU_ASSERT_FATAL(ev && json_object_object_get_ex(ev, "failed", &failed));
	CU_ASSERT_FATAL(json_object_object_get_ex(failed, "accepted", &acc));
	CU_ASSERT_EQUAL(json_object_array_length(acc), 2);
	json_object_put(ev);
	free(f);
}

/* A policy granting what the case names, and nothing else flagged. */
static struct policy quiet(void)
{
	return (struct policy){ .net_allowed = { true, true, false },
				.requires = REQ_USER_NAMESPACES | REQ_SECCOMP };
}

static size_t review(struct policy *p, struct policy_warning *w)
{
	return policy_review(p, w, POLICY_REVIEW_MAX);
}

static void test_review(void)
{
	struct policy_mount_rule rules[] = {
		{ "/", true, true, false },	 { "/srv", true, true, false },
		{ "/home/alice", false, true, false }, { "/etc", true, false, false },
		{ "/root", false, true, false },	 { "/homestead", true, true, true },
	};
	struct policy_warning w[POLICY_REVIEW_MAX];
	struct policy p = quiet();

	CU_ASSERT_EQUAL(review(&p, w), 0);
	p.mount_rules = rules;
	p.n_mount_rules = sizeof(rules) / sizeof(rules[0]);
	/* "/" rw, /home/alice rw, /root rw; /srv, ro /etc and /homestead are fine. */
	CU_ASSERT_EQUAL_FATAL(review(&p, w), 3);
	CU_ASSERT_STRING_EQUAL(w[0].pointer, "/mounts/0");
	CU_ASSERT_PTR_NOT_NULL(strstr(w[0].words, "the whole host"));
	CU_ASSERT_STRING_EQUAL(w[1].pointer, "/mounts/2");
	CU_ASSERT_PTR_NOT_NULL(strstr(w[1].words, "which is /home"));
	CU_ASSERT_STRING_EQUAL(w[2].pointer, "/mounts/4");
	p = quiet();
	p.net_allowed[NET_HOST] = true;
	p.env_allow_any = true;
	p.writable_exec = true;
	p.requires = REQ_USER_NAMESPACES;
	CU_ASSERT_EQUAL_FATAL(review(&p, w), 4);
	CU_ASSERT_STRING_EQUAL(w[0].pointer, "/network/allow");
	CU_ASSERT_STRING_EQUAL(w[1].pointer, "/env/allow_any");
	CU_ASSERT_STRING_EQUAL(w[2].pointer, "/filesystem/writable_exec");
	CU_ASSERT_STRING_EQUAL(w[3].pointer, "/requires");
	/* request_exec matters only with a writable bind rule. */
	p = quiet();
	p.request_exec = true;
	CU_ASSERT_EQUAL(review(&p, w), 0);
	p.mount_rules = &rules[1];
	p.n_mount_rules = 1;
	CU_ASSERT_EQUAL_FATAL(review(&p, w), 1);
	CU_ASSERT_STRING_EQUAL(w[0].pointer, "/filesystem/request_exec");
	/* Past cap: counted, not written. */
	p = quiet();
	p.env_allow_any = p.writable_exec = true;
	CU_ASSERT_EQUAL(policy_review(&p, w, 1), 2);
}
/* What a refusal repeats: controls (C0, DEL, C1) and what is not UTF-8
 * become '?', a cut never splits a character, in place too. */
static void test_text_shown(void)
{
	char buf[16], in[32];
	char p[VERROR_POINTER_MAX];
	char key[300];

	text_shown(buf, sizeof(buf), "a\nb\033[1m\x7f");
	CU_ASSERT_STRING_EQUAL(buf, "a?b?[1m?");
	text_shown(buf, sizeof(buf), "\xc2\x9b" "2J\xff\xc3");
	CU_ASSERT_STRING_EQUAL(buf, "??2J??");
	text_shown(buf, 6, "abcd\xc3\xa9");	/* room for 5 bytes: not half of U+00E9 */
	CU_ASSERT_STRING_EQUAL(buf, "abcd");
	text_shown(buf, sizeof(buf), "\xc3\xa9\xc2\xa0\xe2\x82\xac");	/* kept whole */
	CU_ASSERT_STRING_EQUAL(buf, "\xc3\xa9\xc2\xa0\xe2\x82\xac");
	snprintf(in, sizeof(in), "x\ty");
	text_shown(in, sizeof(in), in);
	CU_ASSERT_STRING_EQUAL(in, "x?y");
	/* a pointer cut at its bound: whole characters only */
	memset(key, 'a', 251);
	memcpy(key + 251, "\xc3\xa9\xc3\xa9", 5);
	pointer_join_key(p, sizeof(p), "", key);
	CU_ASSERT_TRUE(utf8_valid((const uint8_t *)p, strlen(p)));
	CU_ASSERT_TRUE(strlen(p) < sizeof(p));
}


static const struct unit_case cases[] = {
	{ "verror: given, accepted, allowed_by and their words", test_verror_lists },
	{ "text_shown: controls and broken UTF-8 as '?', cuts on characters", test_text_shown },
	{ "request refusals name what is accepted", test_request_refusals },
	{ "result: error.accepted and allowed_by", test_result_carries_accepted },
	{ "keep_partial: kept, marked partial, a frame whole or absent", test_keep_partial },
	{ "serve: streams that are not hutch framing", test_foreign_streams },
	{ "protocol: failed events carry accepted", test_failed_accepting },
	{ "policy check: the grants a reviewer would flag", test_review },
	{ NULL, NULL },
};

UNIT_MAIN("refusal")
