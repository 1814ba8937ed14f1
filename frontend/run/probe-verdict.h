/* probe-verdict.h: the cache entry of a digest's probe verdict. Frontend
 * only. */
#ifndef HUTCH_PROBE_VERDICT_H
#define HUTCH_PROBE_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

/* The cache entry's name for this digest's verdict: it holds for this
 * caller in this user namespace only. False for a digest not ours. */
bool probe_verdict_name(const char *digest, char *name, size_t cap);

/* The helper refused a jail under this digest at run time: its cached
 * verdict is dropped, so the next run probes again. probe_generation
 * counts these calls, for a caller that keeps verdicts in memory (serve):
 * a changed count means its verdict is stale too. */
void probe_forget(const char *digest);
unsigned probe_generation(void);

#endif
