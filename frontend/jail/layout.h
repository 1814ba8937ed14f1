/* layout.h: a plan becomes the spec hutch-exec enacts: the filesystem
 * layout (in mount order), namespaces, ids, rlimits, env, argv and the
 * seccomp program. Frontend only. */
#ifndef HUTCH_LAYOUT_H
#define HUTCH_LAYOUT_H

#include <stdbool.h>

#include "spec.h"
#include "doc/plan.h"

struct layout {
	struct spec sp;
	struct spec_mount mounts[HUTCH_SPEC_MAX_MOUNTS];
	char *strings[2 * HUTCH_SPEC_MAX_MOUNTS + 8];	/* owned, freed by layout_free */
	unsigned n_strings;
	uint8_t *filter;
};

/* Fill *ret from plan. filter/filter_len: the compiled seccomp program
 * (ownership passes to the layout). Returns 0, -E2BIG (too many mounts),
 * -ENOMEM. is_root: the caller's euid is 0. */
int layout_build(const struct plan *plan, bool is_root, uint8_t *filter, size_t filter_len,
		 struct layout *ret);
void layout_free(struct layout *l);

#endif
