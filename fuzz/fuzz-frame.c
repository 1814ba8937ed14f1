/* fuzz-frame.c: libFuzzer harness for what `hutch serve` reads off a
 * connection: the byte stream goes through the frame reader in pieces (the
 * first input byte picks the piece size, as recv() would), and every whole
 * frame goes to the message parser. Invariants: a frame is never larger
 * than the limit, nothing is allocated for an oversized header, and a
 * parsed message is freed cleanly. Built by `make fuzz` only. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "frame-codec.h"
#include "doc/protocol.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_FRAME (64u << 10)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct frame_reader fr = { .max = FUZZ_MAX_FRAME };
	size_t piece, off = 1;

	if (size < 1)
		return 0;
	piece = (size_t)data[0] % 17 + 1;
	while (off < size) {
		size_t n = size - off < piece ? size - off : piece, used = 0;
		enum frame_state st = frame_reader_feed(&fr, data + off, n, &used);

		if (used > n)
			abort();
		off += used;
		if (st == FRAME_OVERSIZED) {
			if (fr.buf)
				abort(); /* nothing may be allocated for it */
			break;	/* the server ends the connection here */
		}
		if (st == FRAME_DONE) {
			size_t len;
			uint8_t *frame = frame_reader_take(&fr, &len);
			struct proto_msg m;
			const char *why;

			if (!frame || len > FUZZ_MAX_FRAME)
				abort();
			if (proto_parse(frame, len, &m, &why) == 0)
				proto_msg_free(&m);
			else if (!why)
				abort(); /* a refusal always says why */
			free(frame);
		} else if (st == FRAME_NOMEM) {
			break;
		} else if (used == 0) {
			abort(); /* FRAME_MORE must consume what it was given */
		}
	}
	frame_reader_reset(&fr);
	return 0;
}
