/* policy-mutate.h: what the policy unit tests that edit a shipped policy
 * (test-policy.c, test-policy-canonical.c) share: default.json with members
 * replaced, added or removed at JSON pointers. Include after policy-text.h
 * and doc/json-util.h. */
#ifndef HUTCH_POLICY_MUTATE_H
#define HUTCH_POLICY_MUTATE_H

/* Walk a JSON pointer to its parent; *ret_last is the last token. */
static struct json_object *walk(struct json_object *root, const char *pointer, char *last,
				size_t cap)
{
	char buf[256];
	char *save = NULL, *tok, *next;
	struct json_object *cur = root;

	snprintf(buf, sizeof(buf), "%s", pointer + 1);
	tok = strtok_r(buf, "/", &save);
	while (tok && (next = strtok_r(NULL, "/", &save))) {
		struct json_object *child = NULL;

		if (json_object_is_type(cur, json_type_array))
			child = json_object_array_get_idx(cur, (size_t)atoi(tok));
		else
			json_object_object_get_ex(cur, tok, &child);
		CU_ASSERT_PTR_NOT_NULL_FATAL(child);
		cur = child;
		tok = next;
	}
	snprintf(last, cap, "%s", tok ? tok : "");
	return cur;
}

struct mutation {
	const char *pointer;
	const char *json;	/* NULL: remove the member */
};

static void mutate(struct json_object *root, const struct mutation *m)
{
	char last[128];
	struct json_object *parent = walk(root, m->pointer, last, sizeof(last));
	struct json_object *v = m->json ? json_tokener_parse(m->json) : NULL;

	CU_ASSERT_FATAL(!m->json || v || strcmp(m->json, "null") == 0);
	if (json_object_is_type(parent, json_type_array)) {
		size_t idx = (size_t)atoi(last);

		if (!m->json)
			json_object_array_del_idx(parent, idx, 1);
		else if (idx < json_object_array_length(parent))
			json_object_array_put_idx(parent, idx, v);
		else
			json_object_array_add(parent, v);
	} else if (!m->json) {
		CU_ASSERT_FATAL(json_object_object_get_ex(parent, last, NULL));
		json_object_object_del(parent, last);
	} else {
		json_object_object_add(parent, last, v);
	}
}

/* default.json with the mutations applied, as text (caller frees). */
static char *mutated_default(const struct mutation *muts, size_t n)
{
	size_t len;
	char *text = read_policy("default", &len), *out;
	struct json_object *root = json_tokener_parse(text);

	CU_ASSERT_PTR_NOT_NULL_FATAL(root);
	for (size_t i = 0; i < n && muts[i].pointer; i++)
		mutate(root, &muts[i]);
	out = strdup(json_object_to_json_string_ext(root, JSON_C_TO_STRING_PRETTY));
	json_object_put(root);
	free(text);
	return out;
}

#endif
