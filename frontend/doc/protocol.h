/* protocol.h: the messages of `hutch serve` (hutch-protocol(7)), parsed
 * strictly from one frame's JSON, and the events it sends back. A frame
 * that breaks these rules is a protocol error, which ends the connection;
 * a well-formed message whose request is bad gets a `failed` event and
 * the connection goes on. Frontend only. */
#ifndef HUTCH_PROTOCOL_H
#define HUTCH_PROTOCOL_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "errors.h"

#define PROTO_VERSION 1
#define PROTO_MAX_ID ((1ull << 53) - 1)	/* exact in every JSON implementation */
#define PROTO_SESSION_NAME_MAX 64

enum proto_kind { MSG_RUN, MSG_CANCEL, MSG_SESSION, MSG_SESSION_CLOSE, MSG_PING };

struct proto_msg {
	uint64_t id;
	enum proto_kind kind;
	struct json_object *doc;	/* owns the parsed frame */
	struct json_object *run;	/* MSG_RUN: the request document */
	uint64_t target;		/* MSG_CANCEL */
	const char *name;		/* MSG_SESSION, MSG_SESSION_CLOSE */
	struct json_object *worker;	/* MSG_SESSION */
	uint8_t *input;			/* MSG_SESSION, decoded */
	size_t input_len;
	uint64_t timeout_ms;		/* MSG_SESSION */
	bool reset;			/* MSG_SESSION */
};

/* 0, or -EPROTO with *ret_reason a fixed text (never frame content). */
int proto_parse(const uint8_t *frame, size_t len, struct proto_msg *ret, const char **ret_reason);
void proto_msg_free(struct proto_msg *m);

/* Add v to o as key, taking v whatever happens: -ENOMEM when o or v is
 * NULL (a json-c constructor failed) or the add fails. */
int proto_add(struct json_object *o, const char *key, struct json_object *v);

/* Events, as complete frames (header included), malloc'd. Each takes
 * payload (NULL: an empty object) whatever happens. proto_render returns
 * 0, -ENOMEM (json-c could not build it) or -EMSGSIZE (too big to render
 * or to frame); proto_event is the same returning NULL on failure.
 * proto_failed falls back to a fixed `internal` event when json-c fails,
 * and is NULL only when not even that could be allocated. */
int proto_render(uint64_t id, const char *kind, struct json_object *payload, uint8_t **ret_frame,
		 size_t *ret_len);
uint8_t *proto_event(uint64_t id, const char *kind, struct json_object *payload, size_t *ret_len);
uint8_t *proto_failed(uint64_t id, enum hutch_err code, const char *reason, size_t *ret_len);
/* The same with a "pointer" member naming the request field at fault (a
 * JSON pointer, as a result document's error carries it); pointer NULL
 * leaves it out, as proto_failed does. */
uint8_t *proto_failed_at(uint64_t id, enum hutch_err code, const char *reason,
			 const char *pointer, size_t *ret_len);
/* A connection's first header over the frame limit, as the failed event
 * says it: a stream that is not hutch framing (frame_foreign_stream) is
 * protocol_error naming what it looks like; any other is frame_oversized
 * naming the length read and the limit. *ret_code and buf are written. */
void proto_oversized_words(const uint8_t *hdr, uint32_t max, enum hutch_err *ret_code, char *buf,
			   size_t cap);

/* The same with the refusal's "accepted" list (verror.h's '\n'-ended
 * values; "" or NULL for none), as a result document's error has it. */
uint8_t *proto_failed_accepting(uint64_t id, enum hutch_err code, const char *reason,
				const char *pointer, const char *accepted, size_t *ret_len);

#endif
