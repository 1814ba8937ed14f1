/* verror.c: the validation error list (see verror.h). Frontend only. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc/text.h"
#include "doc/verror.h"

void pointer_join_key(char *buf, size_t cap, const char *parent, const char *key)
{
	size_t n = (size_t)snprintf(buf, cap, "%s/", parent);

	/* RFC 6901: '~' is "~0", '/' is "~1"; what may not be shown becomes
	 * '?' (text_shown), so a pointer never carries anything but printable
	 * text, nor half a character where it is cut. */
	if (n >= cap)
		n = cap - 1;
	for (const char *k = key; *k;) {
		size_t len = *k == '~' || *k == '/' ? 1 : text_shown_len(k);
		size_t m = *k == '~' || *k == '/' ? 2 : len ? len : 1;

		if (n + m >= cap)
			break;
		if (*k == '~' || *k == '/')
			memcpy(buf + n, *k == '~' ? "~0" : "~1", 2);
		else if (len)
			memcpy(buf + n, k, len);
		else
			buf[n] = '?';
		n += m;
		k += len ? len : 1;
	}
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
	e->items[e->n].given[0] = '\0';
	e->items[e->n].accepted[0] = '\0';
	e->items[e->n].allowed_by[0] = '\0';
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

/* Append one value and its '\n' to list; a value that does not fit
 * ends the list with "..." instead, once. */
static void list_add(char *list, size_t cap, const char *value)
{
	size_t n = strlen(list), len = strlen(value);

	if (n >= 4 && strcmp(list + n - 4, "...\n") == 0)
		return;
	if (n + len + 2 > cap) {
		if (n + 5 <= cap)
			memcpy(list + n, "...\n", 5);
		return;
	}
	text_shown(list + n, len + 1, value);
	len = strlen(list + n);
	list[n + len] = '\n';
	list[n + len + 1] = '\0';
}

void verror_given(struct verrors *e, const char *fmt, ...)
{
	char text[sizeof(e->items[0].given) * 4];
	struct verror *v;
	va_list ap;

	if (!e || e->n == 0)
		return;
	v = &e->items[e->n - 1];
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	text_shown(v->given, sizeof(v->given), text);
}

void verror_accept(struct verrors *e, const char *fmt, ...)
{
	char value[256];
	va_list ap;

	if (!e || e->n == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	list_add(e->items[e->n - 1].accepted, VERROR_ACCEPTED_MAX, value);
}

void verror_accept_names(struct verrors *e, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (names[i])
			verror_accept(e, "%s", names[i]);
}

void verror_allowed_by(struct verrors *e, const char *policy)
{
	if (e && e->n > 0)
		list_add(e->items[e->n - 1].allowed_by, VERROR_ALLOWED_BY_MAX, policy);
}

size_t verror_list_next(const char **pos, const char **ret_value)
{
	const char *nl = strchr(*pos, '\n');
	size_t len;

	if (!nl)
		return 0;
	len = (size_t)(nl - *pos);
	*ret_value = *pos;
	*pos = nl + 1;
	return len;
}

/* list's values joined by ", " onto buf at *n. */
static void join(char *buf, size_t cap, size_t *n, const char *list)
{
	const char *pos = list, *value;
	size_t len;
	bool first = true;

	while ((len = verror_list_next(&pos, &value)) > 0 && *n < cap) {
		*n += (size_t)snprintf(buf + *n, cap - *n, "%s%.*s", first ? "" : ", ", (int)len,
				       value);
		first = false;
	}
	if (*n >= cap)
		*n = cap - 1;
}

void verror_accepted_words(const struct verror *v, char *buf, size_t cap)
{
	size_t n = 0;
	bool many = strchr(v->allowed_by, '\n') != strrchr(v->allowed_by, '\n');

	if (cap == 0)
		return;
	buf[0] = '\0';
	if (v->accepted[0]) {
		n = (size_t)snprintf(buf, cap, "; accepted: ");
		join(buf, cap, &n, v->accepted);
	}
	if (v->allowed_by[0] && n + 1 < cap) {
		n += (size_t)snprintf(buf + n, cap - n, "; the shipped polic%s ", many ? "ies" : "y");
		if (n < cap)
			join(buf, cap, &n, v->allowed_by);
		/* The remedy as typed: allowed_by is said by `hutch run` only. */
		if (n < cap && many)
			snprintf(buf + n, cap - n, " allow it (--policy NAME)");
		else if (n < cap)
			snprintf(buf + n, cap - n, " allows it (--policy %.*s)",
				 (int)strcspn(v->allowed_by, "\n"), v->allowed_by);
	}
	text_shown(buf, cap, buf);	/* a cut never splits a character */
}

void verror_message(const struct verror *v, char *buf, size_t cap)
{
	char words[VERROR_ACCEPTED_MAX + VERROR_ALLOWED_BY_MAX + 64];

	verror_accepted_words(v, words, sizeof(words));
	snprintf(buf, cap, "%s%s%s%s%s%s%s", v->reason, v->given[0] ? " (given " : "", v->given,
		 v->given[0] ? ")" : "", v->detail[0] ? ": " : "", v->detail, words);
	/* a reason composed at run time may name what the caller typed (a
	 * policy's name), and a long message is cut: one line, whole
	 * characters */
	if (cap)
		text_shown(buf, cap, buf);
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
