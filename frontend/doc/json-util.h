/* json-util.h: strict JSON in (json-c): whole input, bounded depth and
 * size, no duplicate keys; typed field access that records a verror with
 * the field's JSON pointer. Frontend only. */
#ifndef HUTCH_JSON_UTIL_H
#define HUTCH_JSON_UTIL_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "doc/verror.h"

#define JSON_MAX_DEPTH 16

static inline void json_putp(struct json_object **o)
{
	if (*o)
		json_object_put(*o);
}
#define _cleanup_json_ __attribute__((cleanup(json_putp)))

/* Parse text (len bytes) strictly. On failure records `code` at "" (or
 * the duplicate key's pointer) and returns -EINVAL. Writes *ret on
 * success: an object (the only top level we accept). */
int json_parse_strict(const char *text, size_t len, enum hutch_err code, struct verrors *e,
		      struct json_object **ret);

/* Reject members of obj not in the NULL-terminated known list. */
int json_check_keys(struct json_object *obj, const char *const *known, enum hutch_err code,
		    const char *pointer, struct verrors *e);

/* Typed getters: 0 when absent (ret untouched), 1 when present and valid,
 * -EINVAL (recorded) when present and wrong. */
int json_get_uint(struct json_object *obj, const char *key, uint64_t min, uint64_t max,
		  enum hutch_err code, const char *parent, struct verrors *e, uint64_t *ret);
int json_get_string(struct json_object *obj, const char *key, size_t max_len, enum hutch_err code,
		    const char *parent, struct verrors *e, const char **ret);
int json_get_bool(struct json_object *obj, const char *key, enum hutch_err code,
		  const char *parent, struct verrors *e, bool *ret);
int json_get_typed(struct json_object *obj, const char *key, enum json_type type,
		   enum hutch_err code, const char *parent, struct verrors *e,
		   struct json_object **ret);

/* A JSON string value as C text: no embedded NUL, valid UTF-8. */
bool json_string_is_clean(struct json_object *s);

/* A refusal's "accepted" and "allowed_by" members (verror.h) on obj,
 * each an array of strings, added only when the error names some.
 * -ENOMEM when json-c cannot allocate. */
int json_add_accepted(struct json_object *obj, const struct verror *v);
/* One such list under key; nothing when list is "". */
int json_add_list(struct json_object *obj, const char *key, const char *list);

#endif
