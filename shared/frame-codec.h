/* frame-codec.h: the length-prefixed frames of `hutch serve` and of
 * session workers: a 4-byte big-endian length, then that many bytes. The
 * length is checked against the limit before anything is allocated.
 * Linked by the frontend (and the fuzzers); pure code, no I/O. */
#ifndef HUTCH_FRAME_CODEC_H
#define HUTCH_FRAME_CODEC_H

#include <stddef.h>
#include <stdint.h>

#define FRAME_HEADER_BYTES 4u

/* The length a whole header declares, unchecked: for callers that
 * compare it with their own bound (supervise.c's frame mode). */
uint32_t frame_decode_header(const uint8_t hdr[FRAME_HEADER_BYTES]);

/* Parse a header. 0 and *ret_len, -EAGAIN when fewer than 4 bytes are
 * there, -EMSGSIZE when the length is over max (*ret_len untouched). */
int frame_parse_header(const uint8_t *hdr, size_t n, uint32_t max, size_t *ret_len);

void frame_put_header(uint8_t hdr[FRAME_HEADER_BYTES], uint32_t len);

/* What a stream that is not this framing looks like from its first four
 * bytes, or NULL: "an HTTP request" (a method: GET, POST...), "a TLS
 * handshake", "an SSH client", "a JSON document without its length
 * prefix". Each such header declares 369 MB (TLS) or far more, so a
 * caller asks only once the length is over its limit: a frame within the
 * limit is never taken for anything else. */
const char *frame_foreign_stream(const uint8_t hdr[FRAME_HEADER_BYTES]);

/* An incremental reader: feed bytes as they come; a frame is complete
 * when frame_reader_feed says so, then take it and reset. */
struct frame_reader {
	uint32_t max;
	uint8_t hdr[FRAME_HEADER_BYTES];
	size_t hdr_len;
	uint8_t *buf;	/* allocated once the header is in and checked */
	size_t want, have;
};

enum frame_state { FRAME_MORE, FRAME_DONE, FRAME_OVERSIZED, FRAME_NOMEM };

/* Consume up to n bytes; *ret_used says how many (the rest belong to the
 * next frame). */
enum frame_state frame_reader_feed(struct frame_reader *fr, const uint8_t *data, size_t n,
				   size_t *ret_used);

/* Hand the complete payload over (malloc'd, NUL-terminated for text use)
 * and reset the reader. */
uint8_t *frame_reader_take(struct frame_reader *fr, size_t *ret_len);

/* Free a partial frame and reset. */
void frame_reader_reset(struct frame_reader *fr);

/* True when nothing of a frame has been read yet. */
int frame_reader_idle(const struct frame_reader *fr);

#endif
