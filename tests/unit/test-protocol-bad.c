/* test-protocol-bad.c: unit tests of the messages of `hutch serve`
 * (frontend/doc/protocol.c) refused: a table of bad frames, each with the
 * fixed reason it must be refused with (and nothing written to the
 * caller), and reasons that never echo the frame. Good frames and the
 * events the server sends: test-protocol.c. */
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

/* The reasons proto_parse gives: fixed texts, never frame content. */
#define R_JSON "not a JSON object"
#define R_DUP "duplicate key"
#define R_TWO "more than one message in a frame"
#define R_VERSION "version must be 1"
#define R_ID "id must be a positive integer"
#define R_SHAPE "a frame holds version, id and one message"
#define R_BODY "a message must be an object"
#define R_KIND "unknown message"
#define R_CANCEL "cancel needs exactly a positive integer target"
#define R_CLOSE "session_close needs exactly a valid name"
#define R_PING "ping takes an empty object"
#define R_S_FIELD "unknown field in session"
#define R_S_NAME "session name must be 1-64 of A-Z a-z 0-9 _ - ."
#define R_S_WORKER "session worker must be an object"
#define R_S_INPUT "session input_base64 must be a string"
#define R_S_B64 "session input_base64 is not valid base64"
#define R_S_TIMEOUT "session timeout_ms must be an integer from 1 to 86400000"
#define R_S_RESET "session reset must be a boolean"

struct bad_frame {
	const char *text;
	size_t len;	/* 0: strlen(text) */
	const char *reason;
};

#define BAD(t, r) { t, 0, r }
#define BADN(t, r) { t, sizeof(t) - 1, r }	/* with a NUL inside */

static const struct bad_frame bad_frames[] = {
	/* ---- not JSON, not one object ---- */
	BAD("", R_JSON),
	BAD(" ", R_JSON),
	BAD("not json", R_JSON),
	BAD("{", R_JSON),
	BAD("}", R_JSON),
	BAD("[]", R_JSON),
	BAD("[{\"version\":1,\"id\":1,\"ping\":{}}]", R_JSON),
	BAD("1", R_JSON),
	BAD("null", R_JSON),
	BAD("\"{}\"", R_JSON),
	BAD("{'version':1,'id':1,'ping':{}}", R_JSON),
	BAD("{\"version\":1,\"id\":1,\"ping\":{},}", R_JSON),
	BAD(F("\"ping\":{}") " x", R_JSON),				/* trailing data */
	BAD(F("\"ping\":{}") F("\"ping\":{}"), R_JSON),		/* two messages, one frame */
	BAD(F("\"ping\":{}") "\n" F("\"ping\":{}"), R_JSON),
	BADN(F("\"ping\":{}") "\0", R_JSON),				/* NUL after */
	BADN("{\"version\":1,\0\"id\":1,\"ping\":{}}", R_JSON),	/* NUL inside */
	BAD(F("\"run\":{\"argv\":[\"/bin/\xff\"]}"), R_JSON),		/* not UTF-8 */
	BAD(F("\"run\":{\"argv\":[\"/bin/\xc0\xae\"]}"), R_JSON),	/* overlong */
	BAD(F("\"run\":{\"argv\":[\"/bin/true\"]") , R_JSON),		/* cut short */
	BAD("{\"version\":1,\"id\":01,\"ping\":{}}", R_JSON),		/* leading zero */

	/* ---- duplicate keys, at any depth ---- */
	BAD("{\"version\":1,\"version\":1,\"id\":1,\"ping\":{}}", R_DUP),
	BAD("{\"version\":1,\"id\":1,\"id\":2,\"ping\":{}}", R_DUP),
	BAD(F("\"ping\":{},\"ping\":{}"), R_DUP),
	BAD(F("\"run\":{\"argv\":[\"/bin/true\"],\"argv\":[\"/bin/false\"]}"), R_DUP),
	BAD(F("\"cancel\":{\"target\":1,\"target\":2}"), R_DUP),
	BAD(F("\"cancel\":{\"target\":1,\"t\\u0061rget\":2}"), R_DUP),	/* escaped */
	BAD(SESSION(S_OK ",\"name\":\"s2\""), R_DUP),
	BAD(SESSION("\"name\":\"s1\",\"worker\":{\"argv\":[],\"argv\":[]},"
		    "\"input_base64\":\"\",\"timeout_ms\":1"), R_DUP),

	/* ---- version ---- */
	BAD("{\"id\":1,\"ping\":{}}", R_VERSION),
	BAD("{\"version\":0,\"id\":1,\"ping\":{}}", R_VERSION),
	BAD("{\"version\":2,\"id\":1,\"ping\":{}}", R_VERSION),
	BAD("{\"version\":-1,\"id\":1,\"ping\":{}}", R_VERSION),
	BAD("{\"version\":\"1\",\"id\":1,\"ping\":{}}", R_VERSION),
	BAD("{\"version\":1.0,\"id\":1,\"ping\":{}}", R_VERSION),
	BAD("{\"version\":1e0,\"id\":1,\"ping\":{}}", R_VERSION),
	BAD("{\"version\":true,\"id\":1,\"ping\":{}}", R_VERSION),
	BAD("{\"version\":null,\"id\":1,\"ping\":{}}", R_VERSION),
	BAD("{\"version\":[1],\"id\":1,\"ping\":{}}", R_VERSION),
	BAD("{\"version\":4294967297,\"id\":1,\"ping\":{}}", R_VERSION),	/* 2^32 + 1 */

	/* ---- id ---- */
	BAD("{\"version\":1,\"ping\":{}}", R_ID),
	BAD("{\"version\":1,\"id\":0,\"ping\":{}}", R_ID),
	BAD("{\"version\":1,\"id\":-0,\"ping\":{}}", R_ID),
	BAD("{\"version\":1,\"id\":-1,\"ping\":{}}", R_ID),
	BAD("{\"version\":1,\"id\":1.5,\"ping\":{}}", R_ID),
	BAD("{\"version\":1,\"id\":1.0,\"ping\":{}}", R_ID),
	BAD("{\"version\":1,\"id\":\"7\",\"ping\":{}}", R_ID),
	BAD("{\"version\":1,\"id\":null,\"ping\":{}}", R_ID),
	BAD("{\"version\":1,\"id\":true,\"ping\":{}}", R_ID),
	BAD("{\"version\":1,\"id\":{},\"ping\":{}}", R_ID),
	BAD("{\"version\":1,\"id\":9007199254740992,\"ping\":{}}", R_ID),	/* 2^53 */
	BAD("{\"version\":1,\"id\":9223372036854775807,\"ping\":{}}", R_ID),
	BAD("{\"version\":1,\"id\":18446744073709551615,\"ping\":{}}", R_ID),
	BAD("{\"version\":1,\"id\":-9223372036854775808,\"ping\":{}}", R_ID),
	BAD("{\"version\":1,\"id\":99999999999999999999999,\"ping\":{}}", R_ID),

	/* ---- shape: exactly version, id and one message ---- */
	BAD("{}", R_VERSION),
	BAD("{\"version\":1,\"id\":1}", R_SHAPE),
	BAD(F("\"ping\":{},\"cancel\":{\"target\":1}"), R_TWO),
	BAD(F("\"run\":{\"argv\":[\"/bin/true\"]},\"ping\":{}"), R_TWO),
	BAD(F("\"ping\":{},\"extra\":1"), R_TWO),		/* unknown top-level field */
	BAD(F("\"extra\":1,\"ping\":{}"), R_TWO),
	BAD("{\"version\":1,\"id\":1,\"ping\":{},\"Version\":1}", R_TWO),
	BAD("{\"ping\":{},\"version\":2,\"id\":1,\"x\":{}}", R_TWO),
	BAD(F("\"ping\":[]"), R_BODY),
	BAD(F("\"ping\":null"), R_BODY),
	BAD(F("\"run\":\"/bin/true\""), R_BODY),
	BAD(F("\"run\":[\"/bin/true\"]"), R_BODY),
	BAD(F("\"cancel\":7"), R_BODY),
	BAD(F("\"session\":true"), R_BODY),

	/* ---- unknown message kinds ---- */
	BAD(F("\"pong\":{}"), R_KIND),		/* an event is not a request */
	BAD(F("\"exit\":{}"), R_KIND),
	BAD(F("\"Ping\":{}"), R_KIND),
	BAD(F("\"execute\":{\"argv\":[\"SECRET\"]}"), R_KIND),
	BAD(F("\"\":{}"), R_KIND),
	BAD(F("\"ping\\u0000\":{}"), R_JSON),	/* json-c would call it "ping" */

	/* ---- cancel ---- */
	BAD(F("\"cancel\":{}"), R_CANCEL),
	BAD(F("\"cancel\":{\"target\":0}"), R_CANCEL),
	BAD(F("\"cancel\":{\"target\":-3}"), R_CANCEL),
	BAD(F("\"cancel\":{\"target\":\"1\"}"), R_CANCEL),
	BAD(F("\"cancel\":{\"target\":1.5}"), R_CANCEL),
	BAD(F("\"cancel\":{\"target\":null}"), R_CANCEL),
	BAD(F("\"cancel\":{\"target\":1,\"force\":true}"), R_CANCEL),
	BAD(F("\"cancel\":{\"id\":1}"), R_CANCEL),

	/* ---- ping ---- */
	BAD(F("\"ping\":{\"x\":1}"), R_PING),
	BAD(F("\"ping\":{\"payload\":\"hello\"}"), R_PING),

	/* ---- session_close ---- */
	BAD(F("\"session_close\":{}"), R_CLOSE),
	BAD(F("\"session_close\":{\"name\":\"s1\",\"force\":true}"), R_CLOSE),
	BAD(F("\"session_close\":{\"name\":\"\"}"), R_CLOSE),
	BAD(F("\"session_close\":{\"name\":5}"), R_CLOSE),
	BAD(F("\"session_close\":{\"name\":\"a/b\"}"), R_CLOSE),
	BAD(F("\"session_close\":{\"name\":\"" N64 "x\"}"), R_CLOSE),
	BAD(F("\"session_close\":{\"name\":\"s\\u0000\"}"), R_CLOSE),

	/* ---- session ---- */
	BAD(SESSION(S_OK ",\"extra\":1"), R_S_FIELD),
	BAD(SESSION(S_OK ",\"Reset\":true"), R_S_FIELD),
	BAD(SESSION("\"worker\":{},\"input_base64\":\"\",\"timeout_ms\":1"), R_S_NAME),
	BAD(SESSION("\"name\":\"\",\"worker\":{},\"input_base64\":\"\",\"timeout_ms\":1"), R_S_NAME),
	BAD(SESSION("\"name\":1,\"worker\":{},\"input_base64\":\"\",\"timeout_ms\":1"), R_S_NAME),
	BAD(SESSION("\"name\":\"a b\",\"worker\":{},\"input_base64\":\"\",\"timeout_ms\":1"),
	    R_S_NAME),
	BAD(SESSION("\"name\":\"../x\",\"worker\":{},\"input_base64\":\"\",\"timeout_ms\":1"),
	    R_S_NAME),
	BAD(SESSION("\"name\":\"\xc3\xa9\",\"worker\":{},\"input_base64\":\"\",\"timeout_ms\":1"),
	    R_S_NAME),
	BAD(SESSION("\"name\":\"" N64 "x\",\"worker\":{},\"input_base64\":\"\",\"timeout_ms\":1"),
	    R_S_NAME),
	BAD(SESSION("\"name\":\"s\\u0000\",\"worker\":{},\"input_base64\":\"\",\"timeout_ms\":1"),
	    R_S_NAME),
	BAD(SESSION("\"name\":\"s1\",\"input_base64\":\"\",\"timeout_ms\":1"), R_S_WORKER),
	BAD(SESSION("\"name\":\"s1\",\"worker\":[],\"input_base64\":\"\",\"timeout_ms\":1"),
	    R_S_WORKER),
	BAD(SESSION("\"name\":\"s1\",\"worker\":\"/bin/cat\",\"input_base64\":\"\",\"timeout_ms\":1"),
	    R_S_WORKER),
	BAD(SESSION("\"name\":\"s1\",\"worker\":{},\"timeout_ms\":1"), R_S_INPUT),
	BAD(SESSION("\"name\":\"s1\",\"worker\":{},\"input_base64\":null,\"timeout_ms\":1"),
	    R_S_INPUT),
	BAD(SESSION("\"name\":\"s1\",\"worker\":{},\"input_base64\":[],\"timeout_ms\":1"),
	    R_S_INPUT),
	BAD(SESSION("\"name\":\"s1\",\"worker\":{},\"input_base64\":\"abc\",\"timeout_ms\":1"),
	    R_S_B64),
	BAD(SESSION("\"name\":\"s1\",\"worker\":{},\"input_base64\":\"!!!!\",\"timeout_ms\":1"),
	    R_S_B64),
	BAD(SESSION("\"name\":\"s1\",\"worker\":{},\"input_base64\":\"aGk=aGk=\",\"timeout_ms\":1"),
	    R_S_B64),
	BAD(SESSION("\"name\":\"s1\",\"worker\":{},\"input_base64\":\"aGk\",\"timeout_ms\":1"),
	    R_S_B64),
	BAD(SESSION("\"name\":\"s1\",\"worker\":{},\"input_base64\":\"aG k=\",\"timeout_ms\":1"),
	    R_S_B64),
	BAD(SESSION("\"name\":\"s1\",\"worker\":{},\"input_base64\":\"\""), R_S_TIMEOUT),
	BAD(SESSION("\"name\":\"s1\",\"worker\":{},\"input_base64\":\"\",\"timeout_ms\":0"),
	    R_S_TIMEOUT),
	BAD(SESSION("\"name\":\"s1\",\"worker\":{},\"input_base64\":\"\",\"timeout_ms\":-5"),
	    R_S_TIMEOUT),
	BAD(SESSION("\"name\":\"s1\",\"worker\":{},\"input_base64\":\"\",\"timeout_ms\":86400001"),
	    R_S_TIMEOUT),
	BAD(SESSION("\"name\":\"s1\",\"worker\":{},\"input_base64\":\"\",\"timeout_ms\":1.5"),
	    R_S_TIMEOUT),
	BAD(SESSION("\"name\":\"s1\",\"worker\":{},\"input_base64\":\"\",\"timeout_ms\":\"100\""),
	    R_S_TIMEOUT),
	BAD(SESSION(S_OK ",\"reset\":1"), R_S_RESET),
	BAD(SESSION(S_OK ",\"reset\":\"true\""), R_S_RESET),
	BAD(SESSION(S_OK ",\"reset\":null"), R_S_RESET),
};

/* A frame with a secret in every place a reason could echo. */
static const char *const secret_frames[] = {
	F("\"SECRET\":{}"),
	F("\"run\":{\"argv\":[\"SECRET\"]},\"SECRET2\":{}"),
	"{\"version\":1,\"id\":1,\"ping\":{\"SECRET\":\"SECRET\"}}",
	SESSION(S_OK ",\"SECRET\":\"SECRET\""),
	SESSION("\"name\":\"SECRET/\",\"worker\":{},\"input_base64\":\"\",\"timeout_ms\":1"),
	"SECRET",
};

static void test_bad_frames(void)
{
	CU_ASSERT(ARRAY_SIZE(bad_frames) >= 40);
	for (size_t i = 0; i < ARRAY_SIZE(bad_frames); i++) {
		const struct bad_frame *b = &bad_frames[i];
		size_t len = b->len ? b->len : strlen(b->text);
		struct proto_msg m = { .id = 4242, .name = "untouched" };
		const char *why = NULL;
		int r = proto_parse((const uint8_t *)b->text, len, &m, &why);

		if (r != -EPROTO || !why || strcmp(why, b->reason) != 0)
			fprintf(stderr, "\n  bad frame %zu: %.*s\n    got %d \"%s\", want \"%s\"\n", i,
				(int)len, b->text, r, why ? why : "(null)", b->reason);
		CU_ASSERT_EQUAL(r, -EPROTO);
		CU_ASSERT_PTR_NOT_NULL_FATAL(why);
		CU_ASSERT_STRING_EQUAL(why, b->reason);
		/* ret is written only on success. */
		CU_ASSERT_EQUAL(m.id, 4242);
		CU_ASSERT_STRING_EQUAL(m.name, "untouched");
		CU_ASSERT_PTR_NULL(m.doc);
		if (r == 0)
			proto_msg_free(&m);
	}
}

static void test_reasons_never_echo(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(secret_frames); i++) {
		struct proto_msg m = { 0 };
		const char *why = NULL;
		const char *t = secret_frames[i];

		CU_ASSERT_EQUAL(proto_parse((const uint8_t *)t, strlen(t), &m, &why), -EPROTO);
		CU_ASSERT_PTR_NOT_NULL_FATAL(why);
		CU_ASSERT_PTR_NULL(strstr(why, "SECRET"));
	}
}

static const struct unit_case cases[] = {
	{ "bad frames, each with its reason", test_bad_frames },
	{ "reasons never echo the frame", test_reasons_never_echo },
	{ NULL, NULL },
};

UNIT_MAIN("protocol-bad")
