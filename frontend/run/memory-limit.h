/* memory-limit.h: did a run end because it reached its memory limit?
 * With a cgroup the kernel says so (memory.events oom_kill). Without one
 * the limit is RLIMIT_DATA (hutch-exec's privileges.c): an allocation
 * fails with ENOMEM and the runtime dies its own way, so this is a
 * heuristic over how the run ended and the last bytes of its stderr.
 * Frontend only. */
#ifndef HUTCH_MEMORY_LIMIT_H
#define HUTCH_MEMORY_LIMIT_H

#include <stddef.h>
#include <stdint.h>

#include "doc/outcome.h"
#include "doc/plan.h"

/* Keep the last CAPTURE_TAIL bytes the target wrote to c (capture.c:
 * stderr always, stdout unless spliced through). */
void memory_tail_keep(struct capture *c, const uint8_t *data, size_t n);

/* Settle o->memory_limit and o->memory_detail (classify.c). */
void settle_memory_limit(const struct plan *plan, struct outcome *o);

#endif
