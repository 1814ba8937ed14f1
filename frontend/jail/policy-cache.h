/* policy-cache.h: parsed policies kept in the cache directory (cache.h:
 * private, per boot, where no jail can write), keyed by the identity of
 * the policy file and of the hutch binary that parsed it. Frontend only. */
#ifndef HUTCH_POLICY_CACHE_H
#define HUTCH_POLICY_CACHE_H

#include "doc/policy-load.h"

/* The cache for policy_load_cached and struct policy_choice; NULL when
 * HUTCH_POLICY_CACHE=0 turns it off (the benchmarks' "uncached" row). */
const struct policy_cache *policy_cache(void);

#endif
