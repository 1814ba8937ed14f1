/* protocol.c: see protocol.h. Frontend only. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "frame-codec.h"
#include "doc/json-util.h"
#include "doc/protocol.h"
#include "doc/request.h"
#include "doc/text.h"

static int bad(const char **ret_reason, const char *why)
{
	*ret_reason = why;
	return -EPROTO;
}

static bool name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > PROTO_SESSION_NAME_MAX)
		return false;
	for (const char *p = s; *p; p++)
		if (!(isalnum((unsigned char)*p) || *p == '_' || *p == '-' || *p == '.'))
			return false;
	return true;
}

static int only_keys(struct json_object *o, const char *const *keys)
{
	struct verrors e = { 0 };

	return json_check_keys(o, keys, HUTCH_ERR_PROTOCOL_ERROR, "", &e);
}

static int parse_session(struct json_object *s, struct proto_msg *m, const char **why)
{
	static const char *const keys[] = { "name", "worker", "input_base64", "timeout_ms",
					    "reset", NULL };
	struct json_object *v;

	if (only_keys(s, keys) < 0)
		return bad(why, "unknown field in session");
	if (!json_object_object_get_ex(s, "name", &v) || !json_object_is_type(v, json_type_string) ||
	    !json_string_is_clean(v) || !name_ok(json_object_get_string(v)))
		return bad(why, "session name must be 1-64 of A-Z a-z 0-9 _ - .");
	m->name = json_object_get_string(v);
	if (!json_object_object_get_ex(s, "worker", &v) || !json_object_is_type(v, json_type_object))
		return bad(why, "session worker must be an object");
	m->worker = v;
	if (!json_object_object_get_ex(s, "input_base64", &v) ||
	    !json_object_is_type(v, json_type_string))
		return bad(why, "session input_base64 must be a string");
	if (base64_decode_strict(json_object_get_string(v), (size_t)json_object_get_string_len(v),
				 &m->input, &m->input_len) < 0)
		return bad(why, "session input_base64 is not valid base64");
	if (!json_object_object_get_ex(s, "timeout_ms", &v) || !json_object_is_type(v, json_type_int) ||
	    json_object_get_int64(v) < 1 || json_object_get_int64(v) > 24LL * 3600 * 1000)
		return bad(why, "session timeout_ms must be an integer from 1 to 86400000");
	m->timeout_ms = (uint64_t)json_object_get_int64(v);
	if (json_object_object_get_ex(s, "reset", &v)) {
		if (!json_object_is_type(v, json_type_boolean))
			return bad(why, "session reset must be a boolean");
		m->reset = json_object_get_boolean(v);
	}
	return 0;
}

static int parse_cancel(struct json_object *body, struct proto_msg *m, const char **why)
{
	static const char *const keys[] = { "target", NULL };
	struct json_object *v;

	m->kind = MSG_CANCEL;
	if (only_keys(body, keys) < 0 || !json_object_object_get_ex(body, "target", &v) ||
	    !json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 1)
		return bad(why, "cancel needs exactly a positive integer target");
	m->target = (uint64_t)json_object_get_int64(v);
	return 0;
}

static int parse_session_close(struct json_object *body, struct proto_msg *m, const char **why)
{
	static const char *const keys[] = { "name", NULL };
	struct json_object *v;

	m->kind = MSG_SESSION_CLOSE;
	if (only_keys(body, keys) < 0 || !json_object_object_get_ex(body, "name", &v) ||
	    !json_object_is_type(v, json_type_string) || !json_string_is_clean(v) ||
	    !name_ok(json_object_get_string(v)))
		return bad(why, "session_close needs exactly a valid name");
	m->name = json_object_get_string(v);
	return 0;
}

/* The envelope: version, id and exactly one message, an object. Sets
 * m->id and hands back the message's name and body (both in m->doc). */
static int parse_envelope(struct proto_msg *m, const char **ret_kind,
			  struct json_object **ret_body, const char **why)
{
	struct json_object *v, *body = NULL;
	const char *kind = NULL;
	int n_members = 0;

	json_object_object_foreach(m->doc, key, val) {
		n_members++;
		if (strcmp(key, "version") == 0 || strcmp(key, "id") == 0)
			continue;
		if (kind)
			return bad(why, "more than one message in a frame");
		kind = key;
		body = val;
	}
	if (!json_object_object_get_ex(m->doc, "version", &v) ||
	    !json_object_is_type(v, json_type_int) || json_object_get_int64(v) != PROTO_VERSION)
		return bad(why, "version must be 1");
	if (!json_object_object_get_ex(m->doc, "id", &v) || !json_object_is_type(v, json_type_int) ||
	    json_object_get_int64(v) < 1 || (uint64_t)json_object_get_int64(v) > PROTO_MAX_ID)
		return bad(why, "id must be a positive integer");
	m->id = (uint64_t)json_object_get_int64(v);
	if (!kind || n_members != 3)
		return bad(why, "a frame holds version, id and one message");
	if (!json_object_is_type(body, json_type_object))
		return bad(why, "a message must be an object");
	*ret_kind = kind;
	*ret_body = body;
	return 0;
}

/* The message itself, by its name. */
static int parse_message(const char *kind, struct json_object *body, struct proto_msg *m,
			 const char **why)
{
	if (strcmp(kind, "run") == 0) {
		m->kind = MSG_RUN;
		m->run = body;
		return 0;
	}
	if (strcmp(kind, "cancel") == 0)
		return parse_cancel(body, m, why);
	if (strcmp(kind, "session") == 0) {
		m->kind = MSG_SESSION;
		return parse_session(body, m, why);
	}
	if (strcmp(kind, "session_close") == 0)
		return parse_session_close(body, m, why);
	if (strcmp(kind, "ping") == 0) {
		m->kind = MSG_PING;
		if (json_object_object_length(body) != 0)
			return bad(why, "ping takes an empty object");
		return 0;
	}
	return bad(why, "unknown message");
}

int proto_parse(const uint8_t *frame, size_t len, struct proto_msg *ret, const char **ret_reason)
{
	struct verrors e = { 0 };
	struct proto_msg m = { 0 };
	struct json_object *body = NULL;
	const char *kind = NULL;

	if (json_parse_strict((const char *)frame, len, HUTCH_ERR_PROTOCOL_ERROR, &e, &m.doc) < 0)
		return bad(ret_reason, e.n && strcmp(e.items[0].reason, "duplicate key") == 0
					       ? "duplicate key"
					       : "not a JSON object");
	if (parse_envelope(&m, &kind, &body, ret_reason) < 0 ||
	    parse_message(kind, body, &m, ret_reason) < 0) {
		proto_msg_free(&m);
		return -EPROTO;
	}
	*ret = m;
	return 0;
}

void proto_msg_free(struct proto_msg *m)
{
	if (m->doc)
		json_object_put(m->doc);
	free(m->input);
	*m = (struct proto_msg){ 0 };
}

int proto_add(struct json_object *o, const char *key, struct json_object *v)
{
	if (!o || !v || json_object_object_add(o, key, v) < 0) {
		json_object_put(v);	/* accepts NULL; a failed add leaves v ours */
		return -ENOMEM;
	}
	return 0;
}

/* json-c renders into an int-sized buffer and returns NULL when it cannot
 * grow it (past 2 GiB, or out of memory): that is a document too big to
 * send, never a string to strlen(). */
int proto_render(uint64_t id, const char *kind, struct json_object *payload, uint8_t **ret_frame,
		 size_t *ret_len)
{
	_cleanup_json_ struct json_object *o = json_object_new_object();
	const char *text;
	size_t n = 0;
	uint8_t *buf;

	if (!payload)
		payload = json_object_new_object();
	if (!o) {
		json_object_put(payload);
		return -ENOMEM;
	}
	if (proto_add(o, "version", json_object_new_int(PROTO_VERSION)) < 0 ||
	    proto_add(o, "id", json_object_new_int64((int64_t)id)) < 0 ||
	    proto_add(o, kind, payload) < 0)
		return -ENOMEM;	/* proto_add took payload whatever happened */
	text = json_object_to_json_string_length(o, JSON_C_TO_STRING_PLAIN |
						    JSON_C_TO_STRING_NOSLASHESCAPE, &n);
	if (!text || n > UINT32_MAX)
		return -EMSGSIZE;
	buf = malloc(FRAME_HEADER_BYTES + n);
	if (!buf)
		return -ENOMEM;
	frame_put_header(buf, (uint32_t)n);
	memcpy(buf + FRAME_HEADER_BYTES, text, n);
	*ret_frame = buf;
	*ret_len = FRAME_HEADER_BYTES + n;
	return 0;
}

uint8_t *proto_event(uint64_t id, const char *kind, struct json_object *payload, size_t *ret_len)
{
	uint8_t *frame = NULL;

	if (proto_render(id, kind, payload, &frame, ret_len) < 0)
		return NULL;
	return frame;
}

/* The failed event json-c could not build: fixed text only (the code's
 * name and message from the error table), so nothing needs escaping. */
static uint8_t *failed_by_hand(uint64_t id, size_t *ret_len)
{
	char text[256];
	int n = snprintf(text, sizeof(text),
			 "{\"version\":1,\"id\":%llu,\"failed\":{\"code\":\"%s\",\"message\":\"%s\"}}",
			 (unsigned long long)id, hutch_err_name(HUTCH_ERR_INTERNAL),
			 hutch_err_message(HUTCH_ERR_INTERNAL));
	uint8_t *buf;

	if (n < 0 || (size_t)n >= sizeof(text))
		return NULL;
	buf = malloc(FRAME_HEADER_BYTES + (size_t)n);
	if (!buf)
		return NULL;
	frame_put_header(buf, (uint32_t)n);
	memcpy(buf + FRAME_HEADER_BYTES, text, (size_t)n);
	*ret_len = FRAME_HEADER_BYTES + (size_t)n;
	return buf;
}

void proto_oversized_words(const uint8_t *hdr, uint32_t max, enum hutch_err *ret_code, char *buf,
			   size_t cap)
{
	const char *foreign = frame_foreign_stream(hdr);

	if (foreign) {
		*ret_code = HUTCH_ERR_PROTOCOL_ERROR;
		snprintf(buf, cap, "not hutch framing: the stream starts as %s; hutch serve speaks "
			 "frames of a 4-byte big-endian length and that many bytes of JSON "
			 "(hutch-protocol(7))", foreign);
		return;
	}
	*ret_code = HUTCH_ERR_FRAME_OVERSIZED;
	snprintf(buf, cap, "a frame header announced %" PRIu32 " bytes; the limit is %" PRIu32
		 " bytes (--max-frame)", frame_decode_header(hdr), max);
}

uint8_t *proto_failed_accepting(uint64_t id, enum hutch_err code, const char *reason,
				const char *pointer, const char *accepted, size_t *ret_len)
{
	struct json_object *p = json_object_new_object();
	uint8_t *frame = NULL;
	char msg[VERROR_ACCEPTED_MAX + VERROR_POINTER_MAX + 512];

	snprintf(msg, sizeof(msg), "%s%s%s", hutch_err_message(code), reason ? ": " : "",
		 reason ? reason : "");
	if (!p || proto_add(p, "code", json_object_new_string(hutch_err_name(code))) < 0 ||
	    proto_add(p, "message", json_object_new_string(msg)) < 0 ||
	    (pointer && proto_add(p, "pointer", json_object_new_string(pointer)) < 0) ||
	    (accepted && json_add_list(p, "accepted", accepted) < 0)) {
		json_object_put(p);
		return failed_by_hand(id, ret_len);
	}
	if (proto_render(id, "failed", p, &frame, ret_len) < 0)
		return failed_by_hand(id, ret_len);
	return frame;
}

uint8_t *proto_failed_at(uint64_t id, enum hutch_err code, const char *reason,
			 const char *pointer, size_t *ret_len)
{
	return proto_failed_accepting(id, code, reason, pointer, NULL, ret_len);
}

uint8_t *proto_failed(uint64_t id, enum hutch_err code, const char *reason, size_t *ret_len)
{
	return proto_failed_at(id, code, reason, NULL, ret_len);
}
