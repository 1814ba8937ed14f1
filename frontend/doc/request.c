/* request.c: the request document, strictly (see request.h). Errors name
 * the field by JSON pointer with a fixed reason; values never appear in
 * them. Frontend only. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "spec.h"
#include "doc/json-util.h"
#include "doc/policy.h"
#include "doc/request.h"
#include "doc/host-pattern.h"
#include "doc/strv.h"
#include "doc/text.h"
#include "doc/units.h"

#define BAD HUTCH_ERR_INVALID_REQUEST

bool request_name_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > REQ_MAX_NAME || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return false;
	for (const char *p = s; *p; p++)
		if (*p == '/' || (unsigned char)*p < 0x20 || *p == 0x7f)
			return false;
	return true;
}

bool request_relpath_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > REQ_MAX_RELPATH)
		return false;
	for (const char *p = s;; p++) {
		size_t len = strcspn(p, "/");
		char comp[REQ_MAX_NAME + 1];

		if (len > REQ_MAX_NAME)
			return false;
		memcpy(comp, p, len);
		comp[len] = '\0';
		if (!request_name_ok(comp))
			return false;
		p += len;
		if (*p == '\0')
			return true;
	}
}

/* A count or size past its bound: "too many mounts (given 70); accepted:
 * at most 64". The request's numbers only (given is SIZE_MAX when the
 * count stopped at the bound: a total). */
static int over(struct verrors *e, const char *parent, const char *key, const char *reason,
		size_t given, size_t max, const char *unit)
{
	if (key)
		verror_add_key(e, BAD, parent, key, reason);
	else
		verror_add(e, BAD, parent, reason);
	if (given != SIZE_MAX)
		verror_given(e, "%zu", given);
	verror_accept(e, "at most %zu%s", max, unit);
	return -EINVAL;
}

static bool path_ok(const char *s)
{
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			return false;
	return strlen(s) <= HUTCH_SPEC_MAX_PATH && spec_path_is_clean(s, 0);
}

/* {"text": "..."} or {"base64": "..."}: exactly one. */
static int parse_content(struct json_object *o, const char *ptr, size_t max, const char *name_key,
			 char **ret_name, uint8_t **ret_data, size_t *ret_len, struct verrors *e)
{
	const char *keys_named[] = { name_key, "text", "base64", NULL };
	const char *const keys_plain[] = { "text", "base64", NULL };
	struct json_object *t = NULL, *b = NULL;
	int ht, hb;

	if (!json_object_is_type(o, json_type_object))
		return verror_add(e, BAD, ptr, "must be an object");
	if (json_check_keys(o, name_key ? keys_named : keys_plain, BAD, ptr, e) < 0)
		return -EINVAL;
	if (name_key) {
		const char *name = NULL;
		int r = json_get_string(o, name_key, REQ_MAX_NAME, BAD, ptr, e, &name);

		if (r == 0)
			return verror_add_key(e, BAD, ptr, name_key, "missing");
		if (r < 0)
			return r;
		if (!request_name_ok(name))
			return verror_add_key(e, BAD, ptr, name_key, "must be a bare file name");
		*ret_name = strdup(name);
	}
	ht = json_get_typed(o, "text", json_type_string, BAD, ptr, e, &t);
	hb = json_get_typed(o, "base64", json_type_string, BAD, ptr, e, &b);
	if (ht < 0 || hb < 0)
		return -EINVAL;
	if (ht + hb != 1)
		return verror_add(e, BAD, ptr, "needs exactly one of text and base64");
	if (t) {
		size_t n = (size_t)json_object_get_string_len(t);

		if (n > max)
			return over(e, ptr, "text", "too large", n, max, " bytes");
		*ret_data = malloc(n + 1);
		if (!*ret_data)
			return -ENOMEM;
		memcpy(*ret_data, json_object_get_string(t), n);
		*ret_len = n;
		return 0;
	}
	if ((size_t)json_object_get_string_len(b) / 4 * 3 > max + 3)
		return over(e, ptr, "base64", "too large", SIZE_MAX, max, " bytes decoded");
	if (base64_decode_strict(json_object_get_string(b), (size_t)json_object_get_string_len(b),
				 ret_data, ret_len) < 0)
		return verror_add_key(e, BAD, ptr, "base64", "not valid base64");
	if (*ret_len > max)
		return over(e, ptr, "base64", "too large", *ret_len, max, " bytes decoded");
	return 0;
}

static int parse_argv(struct json_object *a, struct request *r, struct verrors *e)
{
	size_t n = json_object_array_length(a), total = 0;

	if (n == 0)
		return verror_add(e, BAD, "/argv", "must not be empty");
	if (n > REQ_MAX_ARGC)
		return over(e, "/argv", NULL, "too many arguments", n, REQ_MAX_ARGC, "");
	r->argv = calloc(n + 1, sizeof(char *));
	if (!r->argv)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct json_object *s = json_object_array_get_idx(a, i);
		size_t len;

		if (!json_object_is_type(s, json_type_string))
			return verror_add_index(e, BAD, "/argv", i, "must be a string");
		if (!json_string_is_clean(s))
			return verror_add_index(e, BAD, "/argv", i, "must not contain NUL");
		len = (size_t)json_object_get_string_len(s);
		if (len >= HUTCH_SPEC_MAX_ARG_BYTES)
			return verror_add_index(e, BAD, "/argv", i, "too long");
		if (i == 0 && len == 0)
			return verror_add_index(e, BAD, "/argv", i, "must not be empty");
		total += len + 1;
		if (total > REQ_MAX_ARGV_BYTES)
			return over(e, "/argv", NULL, "too large in total", SIZE_MAX,
				    REQ_MAX_ARGV_BYTES, " bytes, one NUL after each");
		r->argv[i] = strdup(json_object_get_string(s));
		if (!r->argv[i])
			return -ENOMEM;
		r->argc = i + 1;
	}
	return 0;
}

static bool env_name_ok(const char *s)
{
	if (!(isalpha((unsigned char)s[0]) || s[0] == '_') || strlen(s) > 128)
		return false;
	for (const char *p = s; *p; p++)
		if (!(isalnum((unsigned char)*p) || *p == '_'))
			return false;
	return true;
}

static int parse_env(struct json_object *o, struct request *r, struct verrors *e)
{
	size_t n = (size_t)json_object_object_length(o), total = 0, i = 0;

	if (n > REQ_MAX_ENV)
		return over(e, "/env", NULL, "too many variables", n, REQ_MAX_ENV, "");
	r->env_names = calloc(n + 1, sizeof(char *));
	r->env_values = calloc(n + 1, sizeof(char *));
	if (!r->env_names || !r->env_values)
		return -ENOMEM;
	json_object_object_foreach(o, key, val) {
		if (!env_name_ok(key))
			return verror_add_key(e, BAD, "/env", key, "not a valid variable name");
		if (!json_object_is_type(val, json_type_string))
			return verror_add_key(e, BAD, "/env", key, "must be a string");
		if (!json_string_is_clean(val))
			return verror_add_key(e, BAD, "/env", key, "must not contain NUL");
		total += strlen(key) + (size_t)json_object_get_string_len(val) + 2;
		if (total > REQ_MAX_ENV_BYTES)
			return over(e, "/env", NULL, "too large in total", SIZE_MAX,
				    REQ_MAX_ENV_BYTES, " bytes of NAME=VALUE, one NUL after each");
		r->env_names[i] = strdup(key);
		r->env_values[i] = strdup(json_object_get_string(val));
		if (!r->env_names[i] || !r->env_values[i])
			return -ENOMEM;
		r->n_env = ++i;
	}
	return 0;
}

static int parse_files(struct json_object *a, struct request *r, struct verrors *e)
{
	size_t n = json_object_array_length(a);

	if (n > REQ_MAX_FILES)
		return over(e, "/files", NULL, "too many files", n, REQ_MAX_FILES, "");
	r->files = calloc(n + 1, sizeof(*r->files));
	if (!r->files)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		char ptr[VERROR_POINTER_MAX];
		struct req_file *f = &r->files[i];
		int k;

		pointer_join_index(ptr, sizeof(ptr), "/files", i);
		r->n_files = i + 1;
		k = parse_content(json_object_array_get_idx(a, i), ptr, HUTCH_SPEC_MAX_FILE_BYTES,
				  "name", &f->name, &f->data, &f->len, e);
		if (k < 0)
			return k;
		for (size_t j = 0; j < i; j++)
			if (strcmp(r->files[j].name, f->name) == 0)
				return verror_add_key(e, BAD, ptr, "name", "duplicate file name");
	}
	return 0;
}

static int parse_collect(struct json_object *a, struct request *r, struct verrors *e)
{
	size_t n = json_object_array_length(a);

	if (n > REQ_MAX_COLLECT)
		return over(e, "/collect", NULL, "too many names", n, REQ_MAX_COLLECT, "");
	r->collect = calloc(n + 1, sizeof(char *));
	if (!r->collect)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct json_object *s = json_object_array_get_idx(a, i);

		if (!json_object_is_type(s, json_type_string) || !json_string_is_clean(s))
			return verror_add_index(e, BAD, "/collect", i, "must be a string");
		if (!request_relpath_ok(json_object_get_string(s)))
			return verror_add_index(e, BAD, "/collect", i,
						"must be a relative path under the working directory "
						"(no '.' or '..' component, no leading or doubled '/')");
		for (size_t j = 0; j < i; j++)
			if (strcmp(r->collect[j], json_object_get_string(s)) == 0)
				return verror_add_index(e, BAD, "/collect", i, "duplicate name");
		r->collect[i] = strdup(json_object_get_string(s));
		if (!r->collect[i])
			return -ENOMEM;
		r->n_collect = i + 1;
	}
	return 0;
}

/* keep_partial and export_changes, each optional. */
static int parse_bools(struct json_object *doc, struct request *r, struct verrors *e)
{
	int k = json_get_bool(doc, "keep_partial", BAD, "", e, &r->keep_partial);

	if (k < 0)
		return k;
	k = json_get_bool(doc, "export_changes", BAD, "", e, &r->export_changes);
	return k < 0 ? k : 0;
}

/* "hide" (optional): jail paths; jail/masks.c decides whether each is
 * inside a bind of the request. */
static int parse_hide(struct json_object *doc, struct request *r, struct verrors *e)
{
	struct json_object *a;
	size_t n;
	int k;

	if ((k = json_get_typed(doc, "hide", json_type_array, BAD, "", e, &a)) <= 0)
		return k;
	n = json_object_array_length(a);

	if (n > REQ_MAX_HIDE) {
		verror_add(e, BAD, "/hide", "too many paths");
		verror_given(e, "%zu", n);
		verror_accept(e, "at most %u paths", REQ_MAX_HIDE);
		return -EINVAL;
	}
	r->hide = calloc(n + 1, sizeof(char *));
	if (!r->hide)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct json_object *s = json_object_array_get_idx(a, i);
		const char *path = json_object_get_string(s);

		if (!json_object_is_type(s, json_type_string) || !json_string_is_clean(s) ||
		    strlen(path) > HUTCH_SPEC_MAX_PATH || !spec_path_is_clean(path, 0)) {
			verror_add_index(e, BAD, "/hide", i, "must be a clean absolute path");
			verror_accept(e, "a path inside a bind of the request, e.g. /work/src/.env");
			return -EINVAL;
		}
		r->hide[i] = strdup(path);
		if (!r->hide[i])
			return -ENOMEM;
		r->n_hide = i + 1;
	}
	return 0;
}

/* A limit's range in its unit, in place of json_get_uint's bare numbers:
 * "1 to 604800000 milliseconds (1ms to 7d)". */
static void limit_range_words(struct verrors *e, int i)
{
	const struct limit_def *d = &limit_defs[i];
	const char *name = d->name;
	size_t len = strlen(name);
	char lo[32], hi[32];

	if (e->n == 0 || strcmp(e->items[e->n - 1].reason, "out of range") != 0)
		return;
	e->items[e->n - 1].accepted[0] = '\0';
	if (len > 3 && strcmp(name + len - 3, "_ms") == 0) {
		units_format_duration(d->min, lo, sizeof(lo));
		units_format_duration(d->max, hi, sizeof(hi));
		verror_accept(e, "%" PRIu64 " to %" PRIu64 " milliseconds (%s to %s)", d->min, d->max,
			      lo, hi);
	} else if (len > 6 && strcmp(name + len - 6, "_bytes") == 0) {
		units_format_size(d->min, lo, sizeof(lo));
		units_format_size(d->max, hi, sizeof(hi));
		verror_accept(e, "%" PRIu64 " to %" PRIu64 " bytes (%s to %s)", d->min, d->max, lo,
			      hi);
	} else {
		verror_accept(e, "%" PRIu64 " to %" PRIu64, d->min, d->max);
	}
}

static int parse_limits(struct json_object *o, struct request *r, struct verrors *e)
{
	const char *known[LIM_COUNT + 1];
	size_t n = 0;

	for (int i = 0; i < LIM_COUNT; i++)
		if (limit_defs[i].in_request)
			known[n++] = limit_defs[i].name;
	known[n] = NULL;
	if (json_check_keys(o, known, BAD, "/limits", e) < 0)
		return -EINVAL;
	for (int i = 0; i < LIM_COUNT; i++) {
		int k;

		if (!limit_defs[i].in_request)
			continue;
		k = json_get_uint(o, limit_defs[i].name, limit_defs[i].min, limit_defs[i].max, BAD,
				  "/limits", e, &r->limits[i]);
		if (k < 0) {
			limit_range_words(e, i);
			return k;
		}
		r->limit_set[i] = k > 0;
	}
	return 0;
}

static int parse_mounts(struct json_object *a, struct request *r, struct verrors *e)
{
	static const char *const keys[] = { "source", "source_fd", "target", "mode", NULL };
	size_t n = json_object_array_length(a);

	if (n > REQ_MAX_MOUNTS)
		return over(e, "/mounts", NULL, "too many mounts", n, REQ_MAX_MOUNTS, "");
	r->mounts = calloc(n + 1, sizeof(*r->mounts));
	if (!r->mounts)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct json_object *m = json_object_array_get_idx(a, i);
		const char *src = NULL, *dst = NULL, *mode = NULL;
		char ptr[VERROR_POINTER_MAX];
		uint64_t fd = 0;
		int k, has_fd;

		pointer_join_index(ptr, sizeof(ptr), "/mounts", i);
		if (!json_object_is_type(m, json_type_object))
			return verror_add(e, BAD, ptr, "must be an object");
		if (json_check_keys(m, keys, BAD, ptr, e) < 0)
			return -EINVAL;
		/* A bind names its source by path or, in a serve request, by
		 * the index of a descriptor passed with the frame; never both. */
		if ((has_fd = json_get_uint(m, "source_fd", 0, REQ_MAX_SOURCE_FDS - 1, BAD, ptr, e,
					    &fd)) < 0)
			return has_fd;
		if ((k = json_get_string(m, "source", HUTCH_SPEC_MAX_PATH, BAD, ptr, e, &src)) < 0)
			return k;
		if (k > 0 && has_fd)
			return verror_add_key(e, BAD, ptr, "source_fd",
					      "give source or source_fd, not both");
		if (k == 0 && !has_fd)
			return verror_add_key(e, BAD, ptr, "source", "missing (or give source_fd)");
		if (src && !path_ok(src))
			return verror_add_key(e, BAD, ptr, "source", "must be a clean absolute path");
		if ((k = json_get_string(m, "target", HUTCH_SPEC_MAX_PATH, BAD, ptr, e, &dst)) <= 0)
			return k < 0 ? k : verror_add_key(e, BAD, ptr, "target", "missing");
		if (!path_ok(dst))
			return verror_add_key(e, BAD, ptr, "target", "must be a clean absolute path");
		if ((k = json_get_string(m, "mode", 7, BAD, ptr, e, &mode)) < 0)
			return k;
		if (mode && strcmp(mode, "ro") != 0 && strcmp(mode, "rw") != 0 &&
		    strcmp(mode, "overlay") != 0)
			return verror_add_key(e, BAD, ptr, "mode", "must be ro, rw or overlay");
		r->mounts[i].source = src ? strdup(src) : NULL;
		r->mounts[i].source_fd = has_fd ? (int)fd : -1;
		r->mounts[i].target = strdup(dst);
		r->mounts[i].rw = mode && strcmp(mode, "rw") == 0;
		r->mounts[i].overlay = mode && strcmp(mode, "overlay") == 0;
		r->n_mounts = i + 1;
		if ((src && !r->mounts[i].source) || !r->mounts[i].target)
			return -ENOMEM;
	}
	return 0;
}

/* An enum's word may be repeated in a message when it could be one: short,
 * lower case letters, digits, '-' and '_'. Anything else stays unsaid. */
static bool word_safe(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > 16)
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-_") == n;
}

static int parse_enum(struct json_object *doc, const char *key, const char *const *names,
		      size_t n, bool *ret_set, int *ret, struct verrors *e)
{
	const char *s = NULL;
	int k = json_get_string(doc, key, 16, BAD, "", e, &s);

	if (k <= 0)
		return k;
	for (size_t i = 0; i < n; i++)
		if (strcmp(s, names[i]) == 0) {
			*ret = (int)i;
			*ret_set = true;
			return 0;
		}
	verror_add_key(e, BAD, "", key, "not an allowed value");
	if (word_safe(s))
		verror_given(e, "%s", s);
	verror_accept_names(e, names, n);
	return -EINVAL;
}

static int parse_allow_hosts(struct json_object *a, struct request *r, struct verrors *e)
{
	size_t n = json_object_array_length(a);

	if (n > REQ_MAX_ALLOW_HOSTS)
		return verror_add(e, BAD, "/allow_hosts", "too many patterns");
	r->allow_hosts_set = true;
	for (size_t i = 0; i < n; i++) {
		struct json_object *s = json_object_array_get_idx(a, i);

		if (!json_object_is_type(s, json_type_string) || !json_string_is_clean(s))
			return verror_add_index(e, BAD, "/allow_hosts", i, "must be a string");
		if (!host_pattern_parse(json_object_get_string(s), NULL, NULL))
			return verror_add_index(e, BAD, "/allow_hosts", i,
						"must be HOST[:PORT]: a name, *.suffix, *, an IPv4 "
						"literal or [IPv6], and a port 1-65535");
		if (!strv_add(&r->allow_hosts, &r->n_allow_hosts, json_object_get_string(s)))
			return -ENOMEM;
	}
	return 0;
}

static int request_fill(struct json_object *doc, struct request *r, struct verrors *e)
{
	static const char *const keys[] = { "version", "policy", "argv",   "env",
					    "cwd",     "stdin",	 "files",  "collect",
					    "limits",  "stdout_mode", "network", "mounts",
					    "keep_partial", "export_changes", "allow_hosts",
					    "allow_private", "hide", NULL };
	static const char *const modes[] = { [STDOUT_STREAM] = "stream", [STDOUT_FRAME] = "frame" };
	static const char *const nets[] = { [NET_NONE] = "none", [NET_LOOPBACK] = "loopback",
					    [NET_HOST] = "host", [NET_PROXY] = "proxy" };
	struct json_object *v;
	const char *s = NULL;
	uint64_t version;
	int k, m = 0;

	if (json_check_keys(doc, keys, BAD, "", e) < 0)
		return -EINVAL;
	k = json_get_uint(doc, "version", 1, 1, BAD, "", e, &version);
	if (k <= 0)
		return k < 0 ? k : verror_add(e, BAD, "/version", "missing");
	if ((k = json_get_string(doc, "policy", POLICY_NAME_MAX, BAD, "", e, &s)) < 0)
		return k;
	/* A name, never a path: which file decides is the caller's choice
	 * (--policy), not the request's. */
	if (s && !policy_name_valid(s))
		return verror_add(e, BAD, "/policy",
				  "must be a policy name ([a-z0-9_-]), never a path");
	if (s && !(r->policy = strdup(s)))
		return -ENOMEM;
	k = json_get_typed(doc, "argv", json_type_array, BAD, "", e, &v);
	if (k <= 0)
		return k < 0 ? k : verror_add(e, BAD, "/argv", "missing");
	if ((k = parse_argv(v, r, e)) < 0)
		return k;
	if ((k = json_get_typed(doc, "env", json_type_object, BAD, "", e, &v)) < 0 ||
	    (k > 0 && (k = parse_env(v, r, e)) < 0))
		return k;
	s = NULL;
	if ((k = json_get_string(doc, "cwd", HUTCH_SPEC_MAX_PATH, BAD, "", e, &s)) < 0)
		return k;
	if (s && strcmp(s, "/") != 0 && !path_ok(s))
		return verror_add(e, BAD, "/cwd", "must be a clean absolute path");
	if (s && !(r->cwd = strdup(s)))
		return -ENOMEM;
	if ((k = json_object_object_get_ex(doc, "stdin", &v))) {
		if ((k = parse_content(v, "/stdin", REQ_MAX_STDIN_BYTES, NULL, NULL, &r->stdin_data,
				       &r->stdin_len, e)) < 0)
			return k;
		r->stdin_given = true;
	}
	if ((k = json_get_typed(doc, "files", json_type_array, BAD, "", e, &v)) < 0 ||
	    (k > 0 && (k = parse_files(v, r, e)) < 0))
		return k;
	if ((k = json_get_typed(doc, "collect", json_type_array, BAD, "", e, &v)) < 0 ||
	    (k > 0 && (k = parse_collect(v, r, e)) < 0))
		return k;
	if ((k = json_get_typed(doc, "limits", json_type_object, BAD, "", e, &v)) < 0 ||
	    (k > 0 && (k = parse_limits(v, r, e)) < 0))
		return k;
	if ((k = parse_enum(doc, "stdout_mode", modes, 2, &r->stdout_mode_set, &m, e)) < 0)
		return k;
	r->stdout_mode = (enum stdout_mode)m;
	if ((k = parse_enum(doc, "network", nets, NET_MODES, &r->network_set, &m, e)) < 0)
		return k;
	r->network = (enum net_mode)m;
	if ((k = json_get_typed(doc, "allow_hosts", json_type_array, BAD, "", e, &v)) < 0 ||
	    (k > 0 && (k = parse_allow_hosts(v, r, e)) < 0))
		return k;
	if ((k = json_get_bool(doc, "allow_private", BAD, "", e, &r->allow_private)) < 0)
		return k;
	if ((k = json_get_typed(doc, "mounts", json_type_array, BAD, "", e, &v)) < 0 ||
	    (k > 0 && (k = parse_mounts(v, r, e)) < 0))
		return k;
	if ((k = parse_hide(doc, r, e)) < 0)
		return k;
	return parse_bools(doc, r, e);
}

int request_from_json(struct json_object *doc, struct request *ret, struct verrors *e)
{
	struct request r = { 0 };
	int k = request_fill(doc, &r, e);

	if (k < 0) {
		if (k != -EINVAL || e->n == 0)
			verror_add(e, HUTCH_ERR_INTERNAL, "", "out of memory");
		request_free(&r);
		return -EINVAL;
	}
	*ret = r;
	return 0;
}

int request_parse(const char *text, size_t len, struct request *ret, struct verrors *e)
{
	_cleanup_json_ struct json_object *doc = NULL;

	if (len > REQ_MAX_DOC_BYTES)
		return over(e, "", NULL, "document too large", len, REQ_MAX_DOC_BYTES, " bytes");
	if (json_parse_strict(text, len, BAD, e, &doc) < 0)
		return -EINVAL;
	return request_from_json(doc, ret, e);
}

void request_free(struct request *r)
{
	free(r->policy);
	strv_free(r->argv, r->argc);
	strv_free(r->env_names, r->n_env);
	strv_free(r->env_values, r->n_env);
	free(r->cwd);
	free(r->stdin_data);
	for (size_t i = 0; r->files && i < r->n_files; i++) {
		free(r->files[i].name);
		free(r->files[i].data);
	}
	free(r->files);
	strv_free(r->collect, r->n_collect);
	strv_free(r->allow_hosts, r->n_allow_hosts);
	for (size_t i = 0; r->mounts && i < r->n_mounts; i++) {
		free(r->mounts[i].source);
		free(r->mounts[i].target);
	}
	free(r->mounts);
	strv_free(r->hide, r->n_hide);
	*r = (struct request){ 0 };
}

int request_add_env(struct request *r, const char *name, const char *value)
{
	char **names, **values;

	for (size_t i = 0; i < r->n_env; i++)
		if (strcmp(r->env_names[i], name) == 0)
			return 1;
	names = realloc(r->env_names, (r->n_env + 2) * sizeof(char *));
	if (!names)
		return -ENOMEM;
	r->env_names = names;
	values = realloc(r->env_values, (r->n_env + 2) * sizeof(char *));
	if (!values)
		return -ENOMEM;
	r->env_values = values;
	names[r->n_env] = strdup(name);
	values[r->n_env] = strdup(value);
	names[r->n_env + 1] = values[r->n_env + 1] = NULL;
	if (!names[r->n_env] || !values[r->n_env]) {
		free(names[r->n_env]);
		free(values[r->n_env]);
		names[r->n_env] = values[r->n_env] = NULL;
		return -ENOMEM;
	}
	r->n_env++;
	return 0;
}
