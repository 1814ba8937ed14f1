/* cache.h: the per-user cache of security decisions (probe verdicts and
 * compiled seccomp programs, keyed by digests) and the rule that keeps it
 * out of every jail's reach.
 *
 * The cache lives in a per-boot runtime directory, $XDG_RUNTIME_DIR/hutch
 * when that is the caller's own 0700 directory, else /dev/shm/hutch-UID;
 * never under a home, /tmp or anything else a policy lets a request bind.
 * Every directory and entry is opened without following links and trusted
 * only when owned by the caller with no group or other access (entries:
 * regular, one link). A request bind that would reach a cache directory
 * is refused (cache_overlaps), so no jail can write what a later run
 * loads. Frontend only. */
#ifndef HUTCH_CACHE_H
#define HUTCH_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The directory (malloc'd), created if needed; NULL when none will do. */
char *cache_dir(void);

/* Read the cache entry NAME whole (at most max bytes). 0 and a malloc'd
 * buffer, or -errno (-ENOENT when absent or no cache; -EPERM when the
 * entry is not one we could have written). */
int cache_read(const char *name, size_t max, uint8_t **ret, size_t *ret_len);

/* Write NAME atomically (temp file + rename). Failure is not an error for
 * the caller: the cache only saves time. */
void cache_write(const char *name, const void *data, size_t len);

/* Remove NAME, if it is there: a verdict that no longer holds. */
void cache_remove(const char *name);

/* True when a bind of the canonical host path src would reach a cache
 * directory of any user: src is one, lies inside one, or contains one.
 * Covers this caller's directory and the roots other users' caches live
 * under (/dev/shm, /run/user), since a root caller's jail runs as another
 * user whose cache it must not reach either. */
bool cache_overlaps(const char *src);

#endif
