/* verror.h: validation errors: a stable code (errors.h), a JSON pointer to
 * the offending field and a fixed reason. Never request content: the
 * pointer names fields, and object keys in it are only those the schema
 * knows (or "/env/NAME" for an env name, which is a name, not a value).
 * A list so that `hutch policy check` can report every error at once.
 * Frontend only. */
#ifndef HUTCH_VERROR_H
#define HUTCH_VERROR_H

#include <stddef.h>

#include "errors.h"

#define VERROR_MAX 64
#define VERROR_POINTER_MAX 256
#define VERROR_ACCEPTED_MAX 512
#define VERROR_ALLOWED_BY_MAX 96

struct verror {
	enum hutch_err code;
	char pointer[VERROR_POINTER_MAX];
	const char *reason;	/* fixed text: "unknown field", "must be an integer" */
	const char *file;	/* the policy file the pointer is in, or NULL */
	char detail[64];	/* "" or a number of the policy's: "3600000" */
	/* What was given, when it is safe to repeat (a number, an enum's
	 * word): never a path, a name or a value of the request's. */
	char given[24];
	/* What the field accepts, each value ended by '\n': "loopback",
	 * "/srv (ro, rw)", "1 to 604800000 (milliseconds)". */
	char accepted[VERROR_ACCEPTED_MAX];
	/* Shipped policies that would accept what was refused, each ended
	 * by '\n'. */
	char allowed_by[VERROR_ALLOWED_BY_MAX];
};

struct verrors {
	struct verror items[VERROR_MAX];
	size_t n;
	size_t dropped;
};

/* Record an error; returns -EINVAL so call sites stay one line. */
int verror_add(struct verrors *e, enum hutch_err code, const char *pointer, const char *reason);

/* Same, with the pointer built from a parent pointer and a child key or
 * index (escaped per RFC 6901). */
int verror_add_key(struct verrors *e, enum hutch_err code, const char *parent, const char *key,
		   const char *reason);
int verror_add_index(struct verrors *e, enum hutch_err code, const char *parent, size_t index,
		     const char *reason);

/* Note a detail on the error added last ("3600000" after "above the
 * policy's maximum"): the policy's numbers, never the request's content. */
void verror_detail(struct verrors *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The refusal-message machinery: every refusal says what was given and
 * what is accepted. Each call applies to the error added last (nothing
 * when there is none); a list that would overflow keeps what fits and
 * ends in "...". Control bytes become '?'.
 * verror_given: the value given, when safe to repeat (see struct verror).
 * verror_accept: one accepted value (printf format).
 * verror_accept_names: each non-NULL word of an enum's name table.
 * verror_allowed_by: a shipped policy that would accept it. */
void verror_given(struct verrors *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void verror_accept(struct verrors *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void verror_accept_names(struct verrors *e, const char *const *names, size_t n);
void verror_allowed_by(struct verrors *e, const char *policy);

/* The list's values one by one: *pos starts at list; returns the next
 * value's length and sets *ret_value, 0 at the end. */
size_t verror_list_next(const char **pos, const char **ret_value);

/* The accepted values and the policies in words, for the end of a
 * message: "; accepted: none, loopback; the shipped policy network allows
 * it (--policy network)", or "" when the error names neither. Always
 * NUL-terminated. */
void verror_accepted_words(const struct verror *v, char *buf, size_t cap);

/* The whole message of v after its code, as `hutch run` and serve say
 * it: "REASON[ (given GIVEN)][: DETAIL][; accepted: ...][; ...]". */
void verror_message(const struct verror *v, char *buf, size_t cap);

/* A stable copy of s for a reason or file name composed at run time
 * (a policy's name, the directories searched, a chain of files): kept
 * for the process's life in a small pool, so a verror may point at it.
 * NULL when the pool is full or memory is short; callers then use fixed
 * text. */
const char *verror_intern(const char *s);

/* Build a child pointer into buf (truncated safely when too long). */
void pointer_join_key(char *buf, size_t cap, const char *parent, const char *key);
void pointer_join_index(char *buf, size_t cap, const char *parent, size_t index);

#endif
