/* fuzz-status.c: libFuzzer harness for the helper's failure record as the
 * frontend reads it off the status pipe: each 16-byte record is checked,
 * and a record that passes must name a known code and stage. Name lookups
 * are fed arbitrary numbers too. Built by `make fuzz` only. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "status.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Any number: NULL or a name, never out of bounds. */
static void lookup_all(uint32_t v)
{
	const char *s;

	if ((s = status_stage_name(v)) && !s[0])
		abort();
	if ((s = status_code_name(v)) && !s[0])
		abort();
	if ((s = hutch_err_name((enum hutch_err)v)) && !s[0])
		abort();
	if (!hutch_err_message((enum hutch_err)v))
		abort();
	(void)hutch_err_exit_status((enum hutch_err)v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (size_t off = 0; off + sizeof(struct hutch_status) <= size;
	     off += sizeof(struct hutch_status)) {
		struct hutch_status st;

		memcpy(&st, data + off, sizeof(st));
		if (status_check(&st) == 0) {
			if (st.magic != HUTCH_STATUS_MAGIC || st.err < 0 ||
			    !status_code_name(st.code) || !status_stage_name(st.stage))
				abort();
		}
		lookup_all(st.magic);
		lookup_all(st.code);
		lookup_all(st.stage);
		lookup_all(st.item);
		lookup_all((uint32_t)st.err);
	}
	return 0;
}
