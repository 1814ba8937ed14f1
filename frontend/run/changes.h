/* changes.h: the change set of a run's overlays, read after the jail is
 * gone from each upper layer (the tmpfs root pid 1 sent us) against its
 * lower layer (the host source, read as the caller). Nothing the jail
 * made is followed: every lookup is one name beneath a directory we hold,
 * with no symbolic link, magic link or (in the upper) mount crossing, and
 * only a regular file is opened for reading, without blocking.
 * Frontend only. */
#ifndef HUTCH_CHANGES_H
#define HUTCH_CHANGES_H

#include <stdatomic.h>
#include <stdbool.h>

#include "doc/outcome.h"
#include "doc/plan.h"

/* Fill res->changes for plan's overlays from res->overlay_fd[] (which it
 * closes), keeping each file's bytes when with_data, up to data_bytes in
 * all (what of the policy's collect max_bytes --collect left: a result
 * carries both). A walk that fails leaves what it found and marks the
 * entry it stopped at; returns 0 or -ENOMEM. */
int changes_read(const struct plan *plan, struct outcome *res, bool with_data,
		 uint64_t data_bytes);
/* The same, stopping (-ECANCELED, the set partial) at the next step once
 * *cancel is set (run/offload.h); cancel NULL: never. Any thread, with
 * plan and res its own meanwhile. */
int changes_read_cancellable(const struct plan *plan, struct outcome *res, bool with_data,
			     uint64_t data_bytes, const atomic_bool *cancel);

#endif
