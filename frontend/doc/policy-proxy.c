/* policy-proxy.c: a policy's network.proxy section (see policy-proxy.h).
 * Pure. Frontend only. */
#include "config.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "doc/host-pattern.h"
#include "doc/json-util.h"
#include "doc/policy-proxy.h"
#include "doc/strv.h"

#define INVALID HUTCH_ERR_POLICY_INVALID
#define PTR "/network/proxy"

void policy_proxy_init(struct policy_proxy *pp)
{
	memset(pp, 0, sizeof(*pp));
	pp->lim.max_connections = 64;
	pp->lim.max_header_bytes = 16384;
	pp->lim.idle_ms = 60000;
	pp->lim.max_bytes = 4ull << 30;
}

static void parse_patterns(struct json_object *arr, const char *ptr, char ***ret_v,
			   size_t *ret_n, struct verrors *e)
{
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		struct json_object *s = json_object_array_get_idx(arr, i);
		const char *t;

		if (!json_object_is_type(s, json_type_string) || !json_string_is_clean(s)) {
			verror_add_index(e, INVALID, ptr, i, "must be a string");
			continue;
		}
		t = json_object_get_string(s);
		if (!host_pattern_parse(t, NULL, NULL)) {
			verror_add_index(e, INVALID, ptr, i,
					 "must be HOST[:PORT]: a name, *.suffix, *, an IPv4 "
					 "literal or [IPv6], and a port 1-65535");
			continue;
		}
		for (size_t k = 0; k < *ret_n; k++)
			if (strcmp((*ret_v)[k], t) == 0)
				verror_add_index(e, INVALID, ptr, i, "listed twice");
		if (!strv_add(ret_v, ret_n, t))
			verror_add(e, HUTCH_ERR_INTERNAL, ptr, "out of memory");
	}
}

static bool covered(const struct plan_proxy *lim, const char *pat)
{
	for (size_t k = 0; k < lim->n_allow; k++)
		if (host_pattern_covers(lim->allow[k], pat))
			return true;
	return false;
}

void policy_proxy_parse(struct json_object *obj, struct policy_proxy *pp, struct verrors *e)
{
	static const char *const keys[] = { "allow",	       "default",	 "allow_private",
					    "max_connections", "max_header_bytes", "idle_ms",
					    "max_bytes",       NULL };
	struct json_object *v;
	bool have_def = false;

	json_check_keys(obj, keys, INVALID, PTR, e);
	if (json_get_typed(obj, "allow", json_type_array, INVALID, PTR, e, &v) == 0)
		verror_add(e, INVALID, PTR "/allow", "missing");
	else if (v)
		parse_patterns(v, PTR "/allow", &pp->lim.allow, &pp->lim.n_allow, e);
	v = NULL;
	if (json_get_typed(obj, "default", json_type_array, INVALID, PTR, e, &v) > 0 && v) {
		have_def = true;
		parse_patterns(v, PTR "/default", &pp->def, &pp->n_def, e);
		for (size_t i = 0; i < pp->n_def; i++)
			if (!covered(&pp->lim, pp->def[i]))
				verror_add_index(e, INVALID, PTR "/default", i, "not covered by allow");
	}
	/* Without "default", a run that names no host gets the whole list. */
	if (!have_def && !(pp->def = strv_copy(pp->lim.allow, pp->lim.n_allow)))
		verror_add(e, HUTCH_ERR_INTERNAL, PTR, "out of memory");
	else if (!have_def)
		pp->n_def = pp->lim.n_allow;
	json_get_bool(obj, "allow_private", INVALID, PTR, e, &pp->lim.allow_private);
	json_get_uint(obj, "max_connections", 1, 4096, INVALID, PTR, e, &pp->lim.max_connections);
	json_get_uint(obj, "max_header_bytes", 1024, 65536, INVALID, PTR, e,
		      &pp->lim.max_header_bytes);
	json_get_uint(obj, "idle_ms", 100, 86400000, INVALID, PTR, e, &pp->lim.idle_ms);
	json_get_uint(obj, "max_bytes", 1, 1ull << 40, INVALID, PTR, e, &pp->lim.max_bytes);
}

static struct json_object *jstrings(char *const *v, size_t n)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < n; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	return a;
}

struct json_object *policy_proxy_json(const struct policy_proxy *pp)
{
	struct json_object *x = json_object_new_object();

	if (!x)
		return NULL;
	json_object_object_add(x, "allow", jstrings(pp->lim.allow, pp->lim.n_allow));
	json_object_object_add(x, "default", jstrings(pp->def, pp->n_def));
	json_object_object_add(x, "allow_private", json_object_new_boolean(pp->lim.allow_private));
	json_object_object_add(x, "max_connections",
			       json_object_new_int64((int64_t)pp->lim.max_connections));
	json_object_object_add(x, "max_header_bytes",
			       json_object_new_int64((int64_t)pp->lim.max_header_bytes));
	json_object_object_add(x, "idle_ms", json_object_new_int64((int64_t)pp->lim.idle_ms));
	json_object_object_add(x, "max_bytes", json_object_new_int64((int64_t)pp->lim.max_bytes));
	return x;
}

void policy_proxy_free(struct policy_proxy *pp)
{
	strv_free(pp->lim.allow, pp->lim.n_allow);
	strv_free(pp->def, pp->n_def);
	pp->lim.allow = pp->def = NULL;
	pp->lim.n_allow = pp->n_def = 0;
}
