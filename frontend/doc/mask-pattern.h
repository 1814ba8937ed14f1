/* mask-pattern.h: the patterns of a policy's filesystem.hide and
 * filesystem.read_only lists (hutch-policy(5)): '/'-separated components,
 * each a glob (fnmatch(3): '*', '?', '[...]', a leading '.' matched only
 * by a '.') or "**" for any number of components. A pattern that starts
 * with '/' matches whole jail paths; any other matches at any depth, as
 * if it began with "**" "/". Pure code. Frontend only. */
#ifndef HUTCH_MASK_PATTERN_H
#define HUTCH_MASK_PATTERN_H

#include <stdbool.h>

#define MASK_PATTERN_MAX 256u		/* bytes */
#define MASK_PATTERNS_MAX 64u		/* per list */
#define MASK_PATTERN_MAX_STARS 3	/* "**" components in one pattern */

/* Well formed: at most MASK_PATTERN_MAX bytes, no empty, "." or ".."
 * component, no control byte, not "**" alone, at most
 * MASK_PATTERN_MAX_STARS "**". */
bool mask_pattern_ok(const char *pattern);

/* Does the clean absolute jail path match? */
bool mask_pattern_match(const char *pattern, const char *path);

#endif
