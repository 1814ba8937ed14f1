/* client-json.h: the little JSON hutch-client needs without a library
 * (examples/hutch-client.c): a growable buffer to build requests in, and
 * a reader for the server's events that finds top-level members, decodes
 * a string (escapes and \u sequences, surrogate pairs included) and a
 * stream of a live event or result document (text or base64). */
#ifndef HUTCH_CLIENT_JSON_H
#define HUTCH_CLIENT_JSON_H

#include <stdbool.h>
#include <stddef.h>

struct buf {
	char *p;
	size_t len, cap;
	bool failed;	/* an allocation failed: the contents are incomplete */
};

void buf_add(struct buf *b, const char *s, size_t n);
void buf_puts(struct buf *b, const char *s);
/* A JSON string of s: quotes, backslashes and control characters escaped,
 * UTF-8 passed through. -EILSEQ when s is not UTF-8 (the server refuses
 * a frame that is not, so we refuse to send one). */
int buf_json_string(struct buf *b, const char *s);

/* The top-level member key of the object in [s, end): where its value
 * starts and ends. Keys are compared as raw text, which is what the
 * server writes (plain ASCII names). */
bool json_member(const char *s, const char *end, const char *key, const char **ret_val,
		 const char **ret_end);
/* An integer member, or dflt when absent or not a number. */
long long json_member_int(const char *s, const char *end, const char *key, long long dflt);
/* Up to n-1 raw bytes of a string member, "-" when absent. */
void json_member_str(const char *s, const char *end, const char *key, char *out, size_t n);
/* The bytes of the JSON string at [v, ve) (quotes included) appended to
 * out. -EINVAL when it is not a well-formed string. */
int json_string_decode(const char *v, const char *ve, struct buf *out);
/* The bytes of a stream object ({"text": ...} or {"base64": ...}) at
 * [v, ve) appended to out. -EINVAL when it is neither. */
int json_stream_bytes(const char *v, const char *ve, struct buf *out);

#endif
