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

void spec_read_bytes(uint8_t **ret_buf, uint32_t *ret_total)
{
	uint8_t hdr[HUTCH_SPEC_HEADER_BYTES], extra;
	uint32_t total;
	uint8_t *buf;
	int r;

	r = fd_read_exact(HUTCH_SPEC_FD, hdr, sizeof(hdr));
	if (r < 0)
		fail(STAGE_SPEC_READ, SITE_SPEC_READ_HEADER, -r);
	if (spec_peek_length(hdr, sizeof(hdr), &total) < 0)
		fail_code(HUTCH_BAD_SPEC, STAGE_SPEC_DECODE, SITE_SPEC_DECODE_HEADER, EBADMSG);
	buf = malloc(total);
	if (!buf)
		fail(STAGE_SPEC_READ, SITE_SPEC_READ_HEADER, ENOMEM);
	memcpy(buf, hdr, sizeof(hdr));
	r = fd_read_exact(HUTCH_SPEC_FD, buf + sizeof(hdr), total - sizeof(hdr));
	if (r < 0)
		fail(STAGE_SPEC_READ, SITE_SPEC_READ_BODY, -r);
	/* Trailing bytes are as bad as missing ones. */
	if (fd_read_full(HUTCH_SPEC_FD, &extra, 1) != 0)
		fail_code(HUTCH_BAD_SPEC, STAGE_SPEC_DECODE, SITE_SPEC_DECODE_TRAILING, EBADMSG);
	close(HUTCH_SPEC_FD);
	*ret_buf = buf;
	*ret_total = total;
}

void spec_decode_or_fail(const uint8_t *buf, uint32_t total, struct spec *ret_sp)
{
	int r = spec_decode(buf, total, ret_sp);

	if (r < 0)
		fail_code(HUTCH_BAD_SPEC, STAGE_SPEC_DECODE, SITE_SPEC_DECODE_BODY, -r);
	/* A template's marker (pool.c reads templates with spec_decode
	 * alone): a job that claims it could pass for the template. */
	if (ret_sp->flags & HUTCH_SPEC_TEMPLATE_WHOLE)
		fail_code(HUTCH_BAD_SPEC, STAGE_SPEC_DECODE, SITE_SPEC_DECODE_BODY, EBADMSG);
}

void spec_read(struct spec *ret_sp)
{
	uint32_t total;
	uint8_t *buf;

	spec_read_bytes(&buf, &total);
	spec_decode_or_fail(buf, total, ret_sp);
	/* buf stays: *ret_sp points into it until exec. */
}
