/* spec-read.c: phase 1 of hutch-exec: read exactly one spec from the spec
 * pipe (bounded by the length its header announces), demand EOF right after
 * it, and decode it strictly. Allocation is allowed here. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fd-util.h"
#include "helper.h"
#include "hutch-abi.h"

void spec_read(struct spec *ret_sp)
{
	uint8_t hdr[HUTCH_SPEC_HEADER_BYTES], extra;
	uint32_t total;
	uint8_t *buf;
	int r;

	r = fd_read_exact(HUTCH_SPEC_FD, hdr, sizeof(hdr));
	if (r < 0)
		fail(STAGE_SPEC_READ, 0, -r);
	if (spec_peek_length(hdr, sizeof(hdr), &total) < 0)
		fail_code(HUTCH_BAD_SPEC, STAGE_SPEC_DECODE, 0, EBADMSG);
	buf = malloc(total);
	if (!buf)
		fail(STAGE_SPEC_READ, 0, ENOMEM);
	memcpy(buf, hdr, sizeof(hdr));
	r = fd_read_exact(HUTCH_SPEC_FD, buf + sizeof(hdr), total - sizeof(hdr));
	if (r < 0)
		fail(STAGE_SPEC_READ, 1, -r);
	/* Trailing bytes are as bad as missing ones. */
	if (fd_read_full(HUTCH_SPEC_FD, &extra, 1) != 0)
		fail_code(HUTCH_BAD_SPEC, STAGE_SPEC_DECODE, 1, EBADMSG);
	close(HUTCH_SPEC_FD);
	r = spec_decode(buf, total, ret_sp);
	if (r < 0)
		fail_code(HUTCH_BAD_SPEC, STAGE_SPEC_DECODE, 2, -r);
	/* buf stays: *ret_sp points into it until exec. */
}
