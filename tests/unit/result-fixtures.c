/* result-fixtures.c: the fixtures of the result unit tests (see
 * result-fixtures.h), linked into test-result and test-result-output. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "doc/outcome.h"
#include "doc/plan.h"
#include "doc/result.h"
#include "doc/text.h"
#include "run/classify.h"

#include "result-fixtures.h"

/* ---- document access ---- */

struct json_object *at(struct json_object *o, const char *path, bool *ret_present)
{
	char buf[128];
	char *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, "/", &save); k; k = strtok_r(NULL, "/", &save)) {
		struct json_object *v = NULL;

		if (!o || !json_object_object_get_ex(o, k, &v)) {
			if (ret_present)
				*ret_present = false;
			return NULL;
		}
		o = v;
	}
	if (ret_present)
		*ret_present = true;
	return o;
}

const char *str_at(struct json_object *o, const char *path)
{
	struct json_object *v = at(o, path, NULL);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

int64_t int_at(struct json_object *o, const char *path)
{
	struct json_object *v = at(o, path, NULL);

	CU_ASSERT_FATAL(v && json_object_is_type(v, json_type_int));
	return json_object_get_int64(v);
}

bool bool_at(struct json_object *o, const char *path)
{
	struct json_object *v = at(o, path, NULL);

	CU_ASSERT_FATAL(v && json_object_is_type(v, json_type_boolean));
	return json_object_get_boolean(v);
}

bool null_at(struct json_object *o, const char *path)
{
	bool present = false;
	struct json_object *v = at(o, path, &present);

	return present && !v;
}

bool absent_at(struct json_object *o, const char *path)
{
	bool present = true;

	at(o, path, &present);
	return !present;
}

void check_stream(struct json_object *doc, const char *name, const void *want, size_t want_len,
		  bool want_text, bool truncated, uint64_t bytes)
{
	struct json_object *s = at(doc, name, NULL);
	struct json_object *t = at(s, "text", NULL), *b = at(s, "base64", NULL);

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(json_object_object_length(s), 3);
	if (want_text) {
		CU_ASSERT_PTR_NULL(b);
		CU_ASSERT_PTR_NOT_NULL_FATAL(t);
		CU_ASSERT_EQUAL_FATAL((size_t)json_object_get_string_len(t), want_len);
		CU_ASSERT_EQUAL(memcmp(json_object_get_string(t), want, want_len), 0);
	} else {
		uint8_t *dec = NULL;
		size_t len = 0;

		CU_ASSERT_PTR_NULL(t);
		CU_ASSERT_PTR_NOT_NULL_FATAL(b);
		CU_ASSERT_EQUAL_FATAL(base64_decode_strict(json_object_get_string(b),
							   (size_t)json_object_get_string_len(b),
							   &dec, &len),
				      0);
		CU_ASSERT_EQUAL(len, want_len);
		CU_ASSERT(len == want_len && memcmp(dec, want, len) == 0);
		free(dec);
	}
	CU_ASSERT_EQUAL(bool_at(s, "truncated"), truncated);
	CU_ASSERT_EQUAL(int_at(s, "bytes"), (int64_t)bytes);
}

/* ---- synthetic runs ---- */

const char secret[] = "SECRET-OUTPUT-7f3a";
const char err_secret[] = "SECRET-STDERR-91c2";

void set_capture(struct capture *c, const void *data, size_t len)
{
	c->buf = malloc(len + 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c->buf);
	memcpy(c->buf, data, len);
	c->len = len;
	c->bytes = len;
	c->echo_fd = -1;
}

void outcome_init(struct outcome *o, enum outcome_status st, const void *out, size_t out_len)
{
	*o = (struct outcome){ .status = st, .workdir_fd = -1 };
	set_capture(&o->out, out, out_len);
	set_capture(&o->errc, err_secret, strlen(err_secret));
	o->wall_ms = 14;
	o->cpu_user_ms = 6;
	o->cpu_sys_ms = 4;
	o->max_rss_kb = 9120;
}

void outcome_release(struct outcome *o)
{
	free(o->out.buf);
	free(o->errc.buf);
	*o = (struct outcome){ 0 };
}

const struct jail_report jr = {
	.policy = "default",
	.digest = "sha256:0123",
	.landlock_abi = 4,
	.cgroup = "unavailable",
};

static struct collected_file one_file[] = {
	{ .name = (char *)"out.txt", .data = (uint8_t *)"SECRET-FILE", .len = 11, .error = NULL },
	{ .name = (char *)"gone", .data = NULL, .len = 0, .error = "missing" },
};
const struct collected files = { .files = one_file, .n = 2 };

struct json_object *render(const struct plan *plan, struct outcome *o,
			   const struct collected *fl, const struct jail_report *j)
{
	classify_output(plan, NULL, o);
	return result_for_outcome(plan, o, fl, j);
}
