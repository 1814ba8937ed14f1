/* frame-codec.c: see frame-codec.h. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "frame-codec.h"

uint32_t frame_decode_header(const uint8_t hdr[FRAME_HEADER_BYTES])
{
	return (uint32_t)hdr[0] << 24 | (uint32_t)hdr[1] << 16 | (uint32_t)hdr[2] << 8 | hdr[3];
}

int frame_parse_header(const uint8_t *hdr, size_t n, uint32_t max, size_t *ret_len)
{
	uint32_t len;

	if (n < FRAME_HEADER_BYTES)
		return -EAGAIN;
	len = frame_decode_header(hdr);
	if (len > max)
		return -EMSGSIZE;
	*ret_len = len;
	return 0;
}

void frame_put_header(uint8_t hdr[FRAME_HEADER_BYTES], uint32_t len)
{
	hdr[0] = (uint8_t)(len >> 24);
	hdr[1] = (uint8_t)(len >> 16);
	hdr[2] = (uint8_t)(len >> 8);
	hdr[3] = (uint8_t)len;
}

const char *frame_foreign_stream(const uint8_t hdr[FRAME_HEADER_BYTES])
{
	/* RFC 9110's methods, and the PRI of HTTP/2's preface (RFC 9113),
	 * as their first four bytes. */
	static const char *const http[] = { "GET ", "HEAD", "POST", "PUT ", "DELE", "CONN",
					     "OPTI", "TRAC", "PATC", "PRI ", NULL };

	for (size_t i = 0; http[i]; i++)
		if (memcmp(hdr, http[i], FRAME_HEADER_BYTES) == 0)
			return "an HTTP request";
	/* A TLS record: handshake (22), major version 3 (RFC 8446 5.1). */
	if (hdr[0] == 0x16 && hdr[1] == 0x03)
		return "a TLS handshake";
	if (memcmp(hdr, "SSH-", FRAME_HEADER_BYTES) == 0)
		return "an SSH client";
	if (hdr[0] == '{' || hdr[0] == '[')
		return "a JSON document without its length prefix";
	return NULL;
}

enum frame_state frame_reader_feed(struct frame_reader *fr, const uint8_t *data, size_t n,
				   size_t *ret_used)
{
	size_t used = 0;

	while (fr->hdr_len < FRAME_HEADER_BYTES && used < n)
		fr->hdr[fr->hdr_len++] = data[used++];
	if (fr->hdr_len < FRAME_HEADER_BYTES) {
		*ret_used = used;
		return FRAME_MORE;
	}
	if (!fr->buf) {
		size_t len;

		if (frame_parse_header(fr->hdr, fr->hdr_len, fr->max, &len) < 0) {
			*ret_used = used;
			return FRAME_OVERSIZED;
		}
		fr->buf = malloc(len + 1);
		if (!fr->buf) {
			*ret_used = used;
			return FRAME_NOMEM;
		}
		fr->want = len;
		fr->have = 0;
	}
	if (n - used > fr->want - fr->have) {
		size_t k = fr->want - fr->have;

		memcpy(fr->buf + fr->have, data + used, k);
		fr->have += k;
		used += k;
	} else {
		memcpy(fr->buf + fr->have, data + used, n - used);
		fr->have += n - used;
		used = n;
	}
	*ret_used = used;
	return fr->have == fr->want ? FRAME_DONE : FRAME_MORE;
}

uint8_t *frame_reader_take(struct frame_reader *fr, size_t *ret_len)
{
	uint8_t *b = fr->buf;

	if (!b || fr->have != fr->want)
		return NULL;
	b[fr->have] = '\0';
	*ret_len = fr->have;
	fr->buf = NULL;
	fr->hdr_len = fr->want = fr->have = 0;
	return b;
}

void frame_reader_reset(struct frame_reader *fr)
{
	free(fr->buf);
	fr->buf = NULL;
	fr->hdr_len = fr->want = fr->have = 0;
}

int frame_reader_idle(const struct frame_reader *fr)
{
	return fr->hdr_len == 0;
}
