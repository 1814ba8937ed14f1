/* path-util.h: comparisons of canonical absolute paths (no "..", no
 * trailing slash), as the request checks and the cache rule need them.
 * Pure code. Frontend only. */
#ifndef HUTCH_PATH_UTIL_H
#define HUTCH_PATH_UTIL_H

#include <stdbool.h>

/* True when path is dir or lies below it; every path is below "/". */
bool path_at_or_below(const char *path, const char *dir);

/* True when one of the two is at or below the other. */
bool path_overlaps(const char *a, const char *b);

#endif
