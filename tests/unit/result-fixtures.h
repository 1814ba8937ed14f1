/* result-fixtures.h: what the result unit tests (test-result.c,
 * test-result-output.c) share: reading members of a result document,
 * checking a stream object, and synthetic runs settled as a real run is
 * (result-fixtures.c). Helpers assert with CUnit; include after
 * cunit-main.h. */
#ifndef HUTCH_RESULT_FIXTURES_H
#define HUTCH_RESULT_FIXTURES_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "doc/outcome.h"
#include "doc/plan.h"
#include "doc/result.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- document access ---- */

/* The member at a '/'-separated path; *ret_present says whether it is
 * there at all (a JSON null is present and NULL). */
struct json_object *at(struct json_object *o, const char *path, bool *ret_present);
/* A string member, or NULL when absent or not a string. */
const char *str_at(struct json_object *o, const char *path);
/* An integer or boolean member; anything else fails the test. */
int64_t int_at(struct json_object *o, const char *path);
bool bool_at(struct json_object *o, const char *path);
/* Present as JSON null; not there at all. */
bool null_at(struct json_object *o, const char *path);
bool absent_at(struct json_object *o, const char *path);

/* A stream object: exactly one of text and base64, holding these bytes. */
void check_stream(struct json_object *doc, const char *name, const void *want, size_t want_len,
		  bool want_text, bool truncated, uint64_t bytes);

/* ---- synthetic runs ---- */

/* What a run wrote, which a failure must never carry. */
extern const char secret[];
extern const char err_secret[];

/* c holds a copy of data (len bytes). */
void set_capture(struct capture *c, const void *data, size_t len);
/* An outcome with status st, stdout out and stderr err_secret, and usage;
 * outcome_release frees what it holds. */
void outcome_init(struct outcome *o, enum outcome_status st, const void *out, size_t out_len);
void outcome_release(struct outcome *o);

/* The jail of the default policy, and two collected files: out.txt (its
 * content the word SECRET-FILE) and one missing. */
extern const struct jail_report jr;
extern const struct collected files;

/* A synthetic run as a document: settled as exec_finish settles a real
 * one once its status is known, then written. */
struct json_object *render(const struct plan *plan, struct outcome *o,
			   const struct collected *fl, const struct jail_report *j);

#endif
