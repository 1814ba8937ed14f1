/* verror.c: the validation error list (see verror.h). Frontend only. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc/verror.h"

void pointer_join_key(char *buf, size_t cap, const char *parent, const char *key)
{
	size_t n = (size_t)snprintf(buf, cap, "%s/", parent);

	/* RFC 6901: '~' is "~0", '/' is "~1"; control bytes become '?', so a
	 * pointer never carries anything but printable text. */
	for (const char *k = key; *k && n + 3 < cap; k++) {
		if (*k == '~') {
			buf[n++] = '~';
			buf[n++] = '0';
		} else if (*k == '/') {
			buf[n++] = '~';
			buf[n++] = '1';
		} else {
			buf[n++] = (unsigned char)*k < 0x20 || *k == 0x7f ? '?' : *k;
		}
	}
	if (n >= cap)
		n = cap - 1;
	buf[n] = '\0';
}

void pointer_join_index(char *buf, size_t cap, const char *parent, size_t index)
{
	snprintf(buf, cap, "%s/%zu", parent, index);
}

int verror_add(struct verrors *e, enum hutch_err code, const char *pointer, const char *reason)
{
	if (!e)
		return -EINVAL;
	if (e->n >= VERROR_MAX) {
		e->dropped++;
		return -EINVAL;
	}
	e->items[e->n].code = code;
	snprintf(e->items[e->n].pointer, sizeof(e->items[e->n].pointer), "%s", pointer);
	e->items[e->n].reason = reason;
	e->items[e->n].file = NULL;
	e->items[e->n].detail[0] = '\0';
	e->n++;
	return -EINVAL;
}

int verror_add_key(struct verrors *e, enum hutch_err code, const char *parent, const char *key,
		   const char *reason)
{
	char p[VERROR_POINTER_MAX];

	pointer_join_key(p, sizeof(p), parent, key);
	return verror_add(e, code, p, reason);
}

int verror_add_index(struct verrors *e, enum hutch_err code, const char *parent, size_t index,
		     const char *reason)
{
	char p[VERROR_POINTER_MAX];

	pointer_join_index(p, sizeof(p), parent, index);
	return verror_add(e, code, p, reason);
}

void verror_detail(struct verrors *e, const char *fmt, ...)
{
	va_list ap;

	if (!e || e->n == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(e->items[e->n - 1].detail, sizeof(e->items[e->n - 1].detail), fmt, ap);
	va_end(ap);
}

#define INTERN_MAX 128

const char *verror_intern(const char *s)
{
	static char *pool[INTERN_MAX];
	static size_t n;

	for (size_t i = 0; i < n; i++)
		if (strcmp(pool[i], s) == 0)
			return pool[i];
	if (n == INTERN_MAX || !(pool[n] = strdup(s)))
		return NULL;
	return pool[n++];
}
