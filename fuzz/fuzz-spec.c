/* fuzz-spec.c: libFuzzer harness for the jail spec decoder hutch-exec runs
 * on its input. Whatever decodes must encode back to the identical bytes:
 * the layout has exactly one spelling, so nothing the helper accepts can
 * mean something the frontend would not have written. Built by
 * `make fuzz` only, never installed. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct spec sp = { 0 };
	uint8_t *buf = NULL;
	size_t len = 0;
	uint32_t total = 0;

	/* The helper reads the header first, then exactly total bytes. */
	if (spec_peek_length(data, size, &total) == 0 &&
	    (total < HUTCH_SPEC_HEADER_BYTES || total > HUTCH_SPEC_MAX_BYTES))
		abort();
	if (spec_decode(data, size, &sp) < 0)
		return 0;
	if (total != size)
		abort(); /* decoded although the header announced another length */
	if (spec_encode(&sp, &buf, &len) < 0)
		abort(); /* the encoder refuses what the decoder accepted */
	if (len != size || memcmp(buf, data, size) != 0)
		abort(); /* two spellings of one spec */
	free(buf);
	spec_release(&sp);
	return 0;
}
