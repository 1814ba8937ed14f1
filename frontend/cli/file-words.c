/* file-words.c: errors about the caller's files in words (see
 * file-words.h). Frontend only; pure. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/file-words.h"
#include "doc/units.h"

void file_words_errno(const char *path, const char *doing, int err, char *buf, size_t cap)
{
	const char *name = strerrorname_np(err);

	snprintf(buf, cap, "%s: %s: %s (%s)", path, doing, strerror(err), name ? name : "?");
}

void file_words_size(const char *path, uint64_t size, uint64_t limit, char *buf, size_t cap)
{
	char have[32], max[32];

	units_format_size(limit, max, sizeof(max));
	if (size == 0) {
		snprintf(buf, cap, "%s: over the limit of %" PRIu64 " bytes (%s)", path, limit, max);
		return;
	}
	units_format_size(size, have, sizeof(have));
	/* "(40M)" only where a unit says it shorter than the bytes do. */
	if (strspn(have, "0123456789") == strlen(have))
		snprintf(buf, cap, "%s: %" PRIu64 " bytes, over the limit of %" PRIu64 " bytes (%s)",
			 path, size, limit, max);
	else
		snprintf(buf, cap, "%s: %" PRIu64 " bytes (%s), over the limit of %" PRIu64
			 " bytes (%s)", path, size, have, limit, max);
}
