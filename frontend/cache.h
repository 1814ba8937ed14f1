/* cache.h: the per-user cache directory ($XDG_CACHE_HOME/hutch,
 * ~/.cache/hutch, or /tmp/hutch-UID when there is no writable home, as for
 * system users) and small atomic files in it: probe verdicts and compiled
 * seccomp programs, keyed by digests. Frontend only. */
#ifndef HUTCH_CACHE_H
#define HUTCH_CACHE_H

#include <stddef.h>
#include <stdint.h>

/* The directory (malloc'd), created if needed; NULL when none will do. */
char *cache_dir(void);

/* Read the cache entry NAME whole (at most max bytes). 0 and a malloc'd
 * buffer, or -errno (-ENOENT when absent or no cache). */
int cache_read(const char *name, size_t max, uint8_t **ret, size_t *ret_len);

/* Write NAME atomically (temp file + rename). Failure is not an error for
 * the caller: the cache only saves time. */
void cache_write(const char *name, const void *data, size_t len);

#endif
