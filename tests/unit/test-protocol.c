/* test-protocol.c: unit tests of the messages of `hutch serve`
 * (frontend/doc/protocol.c): good frames of every kind with their parsed
 * fields, and the events the server sends (a correct header, then the JSON
 * hutch-protocol(7) describes). Bad frames: test-protocol-bad.c. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "frame-codec.h"
#include "doc/protocol.h"

#include "cunit-main.h"
#include "protocol-frames.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- good frames ---- */

static int parse_ok(const char *text, struct proto_msg *m)
{
	const char *why = NULL;
	int r = proto_parse((const uint8_t *)text, strlen(text), m, &why);

	if (r < 0)
		fprintf(stderr, "\n  refused: %s (%s)\n", text, why ? why : "?");
	return r;
}

static void test_good_ping(void)
{
	struct proto_msg m = { 0 };

	CU_ASSERT_EQUAL_FATAL(parse_ok("{\"version\":1,\"id\":11,\"ping\":{}}", &m), 0);
	CU_ASSERT_EQUAL(m.kind, MSG_PING);
	CU_ASSERT_EQUAL(m.id, 11);
	CU_ASSERT_PTR_NOT_NULL(m.doc);
	proto_msg_free(&m);
	CU_ASSERT_PTR_NULL(m.doc);
	/* Member order and whitespace around the frame do not matter. */
	CU_ASSERT_EQUAL_FATAL(parse_ok(" \n{ \"ping\" : { } , \"id\" : 3 , \"version\" : 1 }\r\n\t", &m),
			      0);
	CU_ASSERT_EQUAL(m.kind, MSG_PING);
	CU_ASSERT_EQUAL(m.id, 3);
	proto_msg_free(&m);
}

static void test_good_ids(void)
{
	struct proto_msg m = { 0 };

	CU_ASSERT_EQUAL_FATAL(parse_ok("{\"version\":1,\"id\":1,\"ping\":{}}", &m), 0);
	CU_ASSERT_EQUAL(m.id, 1);
	proto_msg_free(&m);
	CU_ASSERT_EQUAL_FATAL(parse_ok("{\"version\":1,\"id\":9007199254740991,\"ping\":{}}", &m),
			      0);
	CU_ASSERT_EQUAL(m.id, PROTO_MAX_ID);
	CU_ASSERT_EQUAL(m.id, 9007199254740991ull);
	proto_msg_free(&m);
}

static void test_good_run(void)
{
	struct proto_msg m = { 0 };
	struct json_object *argv, *a0;

	CU_ASSERT_EQUAL_FATAL(parse_ok(F("\"run\":{\"version\":1,\"argv\":[\"/bin/echo\",\"hi\"],"
					 "\"limits\":{\"wall_ms\":1000}}"),
				       &m),
			      0);
	CU_ASSERT_EQUAL(m.kind, MSG_RUN);
	CU_ASSERT_EQUAL(m.id, 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.run);
	CU_ASSERT(json_object_is_type(m.run, json_type_object));
	CU_ASSERT_FATAL(json_object_object_get_ex(m.run, "argv", &argv));
	CU_ASSERT_EQUAL(json_object_array_length(argv), 2);
	a0 = json_object_array_get_idx(argv, 0);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(a0), "/bin/echo");
	proto_msg_free(&m);

	/* The run document itself is checked later, as a request: the
	 * protocol layer passes an empty one on. */
	CU_ASSERT_EQUAL_FATAL(parse_ok(F("\"run\":{}"), &m), 0);
	CU_ASSERT_EQUAL(m.kind, MSG_RUN);
	CU_ASSERT_EQUAL(json_object_object_length(m.run), 0);
	proto_msg_free(&m);
}

static void test_good_cancel(void)
{
	struct proto_msg m = { 0 };

	CU_ASSERT_EQUAL_FATAL(parse_ok("{\"version\":1,\"id\":8,\"cancel\":{\"target\":7}}", &m), 0);
	CU_ASSERT_EQUAL(m.kind, MSG_CANCEL);
	CU_ASSERT_EQUAL(m.id, 8);
	CU_ASSERT_EQUAL(m.target, 7);
	proto_msg_free(&m);
}

static void test_good_session(void)
{
	struct proto_msg m = { 0 };
	struct json_object *argv;

	CU_ASSERT_EQUAL_FATAL(parse_ok("{\"version\":1,\"id\":9,\"session\":{\"name\":\"s1\","
				       "\"worker\":{\"argv\":[\"/bin/cat\"]},"
				       "\"input_base64\":\"aGk=\",\"timeout_ms\":2000}}",
				       &m),
			      0);
	CU_ASSERT_EQUAL(m.kind, MSG_SESSION);
	CU_ASSERT_EQUAL(m.id, 9);
	CU_ASSERT_STRING_EQUAL(m.name, "s1");
	CU_ASSERT_PTR_NOT_NULL_FATAL(m.worker);
	CU_ASSERT(json_object_object_get_ex(m.worker, "argv", &argv));
	CU_ASSERT_EQUAL_FATAL(m.input_len, 2);
	CU_ASSERT_EQUAL(memcmp(m.input, "hi", 2), 0);
	CU_ASSERT_EQUAL(m.timeout_ms, 2000);
	CU_ASSERT_FALSE(m.reset);
	proto_msg_free(&m);
	CU_ASSERT_PTR_NULL(m.input);

	CU_ASSERT_EQUAL_FATAL(parse_ok(SESSION("\"name\":\"A-z_0.9\",\"worker\":{},"
					       "\"input_base64\":\"AP8=\",\"timeout_ms\":86400000,"
					       "\"reset\":true"),
				       &m),
			      0);
	CU_ASSERT_STRING_EQUAL(m.name, "A-z_0.9");
	CU_ASSERT_EQUAL_FATAL(m.input_len, 2);
	CU_ASSERT_EQUAL(m.input[0], 0x00);
	CU_ASSERT_EQUAL(m.input[1], 0xff);
	CU_ASSERT_EQUAL(m.timeout_ms, 86400000);
	CU_ASSERT_TRUE(m.reset);
	proto_msg_free(&m);

	/* Empty input, the longest name, timeout 1, reset false. */
	CU_ASSERT_EQUAL_FATAL(parse_ok(SESSION("\"name\":\"" N64 "\",\"worker\":{},"
					       "\"input_base64\":\"\",\"timeout_ms\":1,"
					       "\"reset\":false"),
				       &m),
			      0);
	CU_ASSERT_EQUAL(strlen(m.name), PROTO_SESSION_NAME_MAX);
	CU_ASSERT_EQUAL(m.input_len, 0);
	CU_ASSERT_EQUAL(m.timeout_ms, 1);
	CU_ASSERT_FALSE(m.reset);
	proto_msg_free(&m);
}

static void test_good_session_close(void)
{
	struct proto_msg m = { 0 };

	CU_ASSERT_EQUAL_FATAL(parse_ok("{\"version\":1,\"id\":10,\"session_close\":{\"name\":\"s1\"}}",
				       &m),
			      0);
	CU_ASSERT_EQUAL(m.kind, MSG_SESSION_CLOSE);
	CU_ASSERT_EQUAL(m.id, 10);
	CU_ASSERT_STRING_EQUAL(m.name, "s1");
	proto_msg_free(&m);
}

/* ---- events ---- */

/* The frame text, NUL-terminated, for parsing and comparing. */
static char *payload_text(const uint8_t *frame, size_t len)
{
	char *t = malloc(len - FRAME_HEADER_BYTES + 1);

	memcpy(t, frame + FRAME_HEADER_BYTES, len - FRAME_HEADER_BYTES);
	t[len - FRAME_HEADER_BYTES] = '\0';
	return t;
}

/* Check an event frame's header against its length and parse its JSON;
 * returns the object (caller puts it). */
static struct json_object *check_event(const uint8_t *frame, size_t len, uint64_t id,
				       const char *kind)
{
	struct json_object *o, *v;
	size_t plen = 0;
	char *text;

	CU_ASSERT_FATAL(frame != NULL && len > FRAME_HEADER_BYTES);
	CU_ASSERT_EQUAL_FATAL(frame_parse_header(frame, len, UINT32_MAX, &plen), 0);
	CU_ASSERT_EQUAL_FATAL(plen, len - FRAME_HEADER_BYTES);
	text = payload_text(frame, len);	/* frames are not NUL-terminated */
	o = json_tokener_parse(text);
	free(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT(json_object_is_type(o, json_type_object));
	CU_ASSERT_EQUAL(json_object_object_length(o), 3);
	CU_ASSERT(json_object_object_get_ex(o, "version", &v) && json_object_is_type(v, json_type_int) &&
		  json_object_get_int64(v) == 1);
	CU_ASSERT(json_object_object_get_ex(o, "id", &v) && json_object_is_type(v, json_type_int) &&
		  (uint64_t)json_object_get_int64(v) == id);
	CU_ASSERT(json_object_object_get_ex(o, kind, &v) && json_object_is_type(v, json_type_object));
	return o;
}

static void test_event_pong(void)
{
	size_t len = 0;
	uint8_t *f = proto_event(11, "pong", NULL, &len);
	struct json_object *o = check_event(f, len, 11, "pong");
	char *t = payload_text(f, len);
	struct json_object *v;

	CU_ASSERT_STRING_EQUAL(t, "{\"version\":1,\"id\":11,\"pong\":{}}");
	CU_ASSERT(json_object_object_get_ex(o, "pong", &v) && json_object_object_length(v) == 0);
	free(t);
	json_object_put(o);
	free(f);
}

static void test_event_payload(void)
{
	struct json_object *p = json_object_new_object(), *o, *live, *out, *v;
	size_t len = 0;
	uint8_t *f;

	out = json_object_new_object();
	json_object_object_add(out, "text", json_object_new_string("a/b \"q\"\n"));
	json_object_object_add(p, "stdout", out);
	f = proto_event(PROTO_MAX_ID, "live", p, &len);	/* takes p */
	o = check_event(f, len, PROTO_MAX_ID, "live");
	CU_ASSERT_FATAL(json_object_object_get_ex(o, "live", &live));
	CU_ASSERT_FATAL(json_object_object_get_ex(live, "stdout", &out));
	CU_ASSERT_FATAL(json_object_object_get_ex(out, "text", &v));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "a/b \"q\"\n");
	/* Slashes are not escaped; the id is exact at 2^53 - 1. */
	CU_ASSERT_PTR_NOT_NULL(memmem(f, len, "a/b", 3));
	CU_ASSERT_PTR_NOT_NULL(memmem(f, len, "\"id\":9007199254740991", 21));
	json_object_put(o);
	free(f);
}

static void test_event_failed(void)
{
	size_t len = 0;
	uint8_t *f = proto_failed(7, HUTCH_ERR_CANCELLED, NULL, &len);
	struct json_object *o = check_event(f, len, 7, "failed"), *fl, *v;
	char want[400];

	CU_ASSERT_FATAL(json_object_object_get_ex(o, "failed", &fl));
	CU_ASSERT_EQUAL(json_object_object_length(fl), 2);
	CU_ASSERT(json_object_object_get_ex(fl, "code", &v));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "cancelled");
	CU_ASSERT(json_object_object_get_ex(fl, "message", &v));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(v), hutch_err_message(HUTCH_ERR_CANCELLED));
	json_object_put(o);
	free(f);

	/* With a reason: "<fixed message>: <reason>"; id 0 for the frame
	 * that ends a connection. */
	f = proto_failed(0, HUTCH_ERR_PROTOCOL_ERROR, "version must be 1", &len);
	o = check_event(f, len, 0, "failed");
	CU_ASSERT_FATAL(json_object_object_get_ex(o, "failed", &fl));
	CU_ASSERT(json_object_object_get_ex(fl, "code", &v));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "protocol_error");
	CU_ASSERT(json_object_object_get_ex(fl, "message", &v));
	snprintf(want, sizeof(want), "%s: version must be 1",
		 hutch_err_message(HUTCH_ERR_PROTOCOL_ERROR));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(v), want);
	json_object_put(o);
	free(f);
}

/* proto_failed_at: the same event with the request field at fault as a
 * "pointer" member, as a result document's error has it; NULL leaves it
 * out, and proto_failed is proto_failed_at without one. */
static void test_event_failed_at(void)
{
	size_t len = 0, len2 = 0;
	uint8_t *f = proto_failed_at(6, HUTCH_ERR_INVALID_REQUEST, "missing (at /argv)", "/argv",
				     &len);
	struct json_object *o = check_event(f, len, 6, "failed"), *fl, *v;
	uint8_t *g;
	char want[400];

	CU_ASSERT_FATAL(json_object_object_get_ex(o, "failed", &fl));
	CU_ASSERT_EQUAL(json_object_object_length(fl), 3);
	CU_ASSERT(json_object_object_get_ex(fl, "code", &v));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "invalid_request");
	CU_ASSERT(json_object_object_get_ex(fl, "message", &v));
	snprintf(want, sizeof(want), "%s: missing (at /argv)",
		 hutch_err_message(HUTCH_ERR_INVALID_REQUEST));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(v), want);
	CU_ASSERT(json_object_object_get_ex(fl, "pointer", &v));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "/argv");
	json_object_put(o);
	free(f);

	/* The empty pointer names the whole document and is kept. */
	f = proto_failed_at(2, HUTCH_ERR_INVALID_REQUEST, NULL, "", &len);
	o = check_event(f, len, 2, "failed");
	CU_ASSERT_FATAL(json_object_object_get_ex(o, "failed", &fl));
	CU_ASSERT(json_object_object_get_ex(fl, "pointer", &v));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(v), "");
	json_object_put(o);
	free(f);

	/* No pointer: byte for byte what proto_failed sends. */
	f = proto_failed_at(9, HUTCH_ERR_CANCELLED, "x", NULL, &len);
	g = proto_failed(9, HUTCH_ERR_CANCELLED, "x", &len2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	CU_ASSERT_EQUAL(len, len2);
	CU_ASSERT(len == len2 && memcmp(f, g, len) == 0);
	free(f);
	free(g);
}

/* Every code the server can send names itself as DESIGN.md says. */
static void test_event_failed_codes(void)
{
	static const struct {
		enum hutch_err code;
		const char *name;
	} codes[] = {
		{ HUTCH_ERR_INVALID_REQUEST, "invalid_request" },
		{ HUTCH_ERR_POLICY_VIOLATION, "policy_violation" },
		{ HUTCH_ERR_SANDBOX_UNAVAILABLE, "sandbox_unavailable" },
		{ HUTCH_ERR_SANDBOX_PROBE_FAILED, "sandbox_probe_failed" },
		{ HUTCH_ERR_SPAWN_ERROR, "spawn_error" },
		{ HUTCH_ERR_TIMEOUT, "timeout" },
		{ HUTCH_ERR_FRAME_OVERSIZED, "frame_oversized" },
		{ HUTCH_ERR_PROTOCOL_ERROR, "protocol_error" },
		{ HUTCH_ERR_BUSY, "busy" },
		{ HUTCH_ERR_CANCELLED, "cancelled" },
		{ HUTCH_ERR_STATE_LOST, "state_lost" },
		{ HUTCH_ERR_INTERNAL, "internal" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(codes); i++) {
		size_t len = 0;
		uint8_t *f = proto_failed(5, codes[i].code, NULL, &len);
		struct json_object *o = check_event(f, len, 5, "failed"), *fl, *v;

		CU_ASSERT(json_object_object_get_ex(o, "failed", &fl) &&
			  json_object_object_get_ex(fl, "code", &v));
		CU_ASSERT_STRING_EQUAL(json_object_get_string(v), codes[i].name);
		json_object_put(o);
		free(f);
	}
}

/* An event the server sends parses as a frame of the same shape the
 * server accepts: header length exact, nothing after the JSON. */
static void test_event_is_one_frame(void)
{
	size_t len = 0, used = 0, plen = 0;
	uint8_t *f = proto_event(3, "ack", NULL, &len), *b;
	struct frame_reader fr = { .max = 1024 };

	CU_ASSERT_EQUAL(frame_reader_feed(&fr, f, len, &used), FRAME_DONE);
	CU_ASSERT_EQUAL(used, len);
	b = frame_reader_take(&fr, &plen);
	CU_ASSERT_STRING_EQUAL((char *)b, "{\"version\":1,\"id\":3,\"ack\":{}}");
	free(b);
	free(f);
}

static const struct unit_case cases[] = {
	{ "ping", test_good_ping },
	{ "ids 1 and 2^53-1", test_good_ids },
	{ "run", test_good_run },
	{ "cancel", test_good_cancel },
	{ "session", test_good_session },
	{ "session_close", test_good_session_close },
	{ "event: pong", test_event_pong },
	{ "event: with a payload", test_event_payload },
	{ "event: failed", test_event_failed },
	{ "event: failed with a pointer", test_event_failed_at },
	{ "event: failed codes", test_event_failed_codes },
	{ "event: one frame", test_event_is_one_frame },
	{ NULL, NULL },
};

UNIT_MAIN("protocol")
