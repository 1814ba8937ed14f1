/* strv.c: see strv.h. Frontend only. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "doc/strv.h"

void strv_free(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

char **strv_copy(char *const *v, size_t n)
{
	char **r = calloc(n + 1, sizeof(char *));

	for (size_t i = 0; r && i < n; i++)
		if (!(r[i] = strdup(v[i]))) {
			strv_free(r, i);
			return NULL;
		}
	return r;
}

char **strv_add(char ***v, size_t *n, const char *s)
{
	char **nv = realloc(*v, (*n + 2) * sizeof(char *));

	if (!nv)
		return NULL;
	*v = nv;
	nv[*n] = strdup(s);
	if (!nv[*n])
		return NULL;
	nv[++*n] = NULL;
	return nv;
}
