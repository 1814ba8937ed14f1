/* path-util.c: see path-util.h. Frontend only. */
#include "config.h"

#include <string.h>

#include "doc/path-util.h"

bool path_at_or_below(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return true;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

bool path_overlaps(const char *a, const char *b)
{
	return path_at_or_below(a, b) || path_at_or_below(b, a);
}
