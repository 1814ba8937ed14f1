/* strv.h: arrays of strings with a count and a NULL after the last, as the
 * plan, the policy and the request hold them. Frontend only. */
#ifndef HUTCH_STRV_H
#define HUTCH_STRV_H

#include <stddef.h>

/* Free n strings and the array; NULL is fine. */
void strv_free(char **v, size_t n);

/* A deep copy of n strings, NULL-terminated; NULL on no memory. */
char **strv_copy(char *const *v, size_t n);

/* Append a copy of s to *v (which has *n entries); NULL on no memory. */
char **strv_add(char ***v, size_t *n, const char *s);

#endif
