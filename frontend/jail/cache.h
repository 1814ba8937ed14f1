/* cache.h: the per-user cache of security decisions (probe verdicts and
 * compiled seccomp programs, keyed by digests) and the rule that keeps it
 * out of every jail's reach.
 *
 * The cache lives in a per-boot directory no request bind of any policy
 * can cover, whoever the caller and whatever its environment: hutch/ in
 * $XDG_RUNTIME_DIR only when that lies below /dev/shm or /run/user (as
 * /run/user/UID does), else /dev/shm/hutch-UID; never a runtime directory
 * anywhere else (issue 19: XDG_RUNTIME_DIR=/tmp/1000-runtime-dir was
 * bound by a jail of a caller without the variable). Every directory and
 * entry is opened without following links and trusted only when owned by
 * the caller with no group or other access (entries: regular, one link).
 * A request bind that overlaps /dev/shm or /run/user is refused
 * (cache_overlaps), so no jail can write what a later run loads.
 * Frontend only. */
#ifndef HUTCH_CACHE_H
#define HUTCH_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Read the cache entry NAME whole (at most max bytes). 0 and a malloc'd
 * buffer, or -errno (-ENOENT when absent or no cache; -EPERM when the
 * entry is not one we could have written). */
int cache_read(const char *name, size_t max, uint8_t **ret, size_t *ret_len);

/* Write NAME atomically (temp file + rename). Failure is not an error for
 * the caller: the cache only saves time. */
void cache_write(const char *name, const void *data, size_t len);

/* Remove NAME, if it is there: a verdict that no longer holds. */
void cache_remove(const char *name);

/* Why the cache's directory is not used (another user made it first in
 * /dev/shm, a link, group or other access), in words for `hutch probe`,
 * or NULL when it is or will be. Runs stay correct either way: an
 * unusable cache is no cache. */
const char *cache_problem(char *buf, size_t cap);

/* True when a bind of the canonical host path src would reach where a
 * cache of any user could be: src is, lies inside or contains /dev/shm or
 * /run/user (a root caller's jail runs as another user, whose cache it
 * must not reach either). */
bool cache_overlaps(const char *src);

#endif
