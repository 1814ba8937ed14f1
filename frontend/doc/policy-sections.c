/* policy-sections.c: a policy's sections, each parsed and validated into
 * struct policy (limits, filesystem, mounts, files and collect, network,
 * env, seccomp, landlock, user, requires, on_limit); policy.c's
 * policy_parse_tree calls policy_parse_sections between the version and
 * the hostname. Every problem is added, none stops the others, so
 * `policy check` sees them all at once. Frontend only. */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"
#include "doc/json-util.h"
#include "doc/mask-pattern.h"
#include "doc/policy-internal.h"
#include "doc/policy.h"
#include "doc/strv.h"
#include "doc/syscall-names.h"

#define MB (1024ull * 1024)

static int pick(const char *s, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(s, names[i]) == 0)
			return (int)i;
	return -1;
}

#define INVALID HUTCH_ERR_POLICY_INVALID

/* A member that must be there, of the given type. */
static struct json_object *need(struct policy_ctx *c, struct json_object *obj, const char *key,
				enum json_type type, const char *parent)
{
	struct json_object *v = NULL;
	int r = json_get_typed(obj, key, type, INVALID, parent, c->e, &v);

	if (r == 0)
		verror_add_key(c->e, INVALID, parent, key, "missing");
	return r > 0 ? v : NULL;
}

static bool path_is_reserved(const char *path, const char *work_dir)
{
	static const char *const reserved[] = { "/proc", "/dev", "/tmp", NULL };
	size_t n;

	for (size_t i = 0; reserved[i]; i++) {
		n = strlen(reserved[i]);
		if (strncmp(path, reserved[i], n) == 0 && (path[n] == '\0' || path[n] == '/'))
			return true;
	}
	if (work_dir) {
		n = strlen(work_dir);
		if (strncmp(path, work_dir, n) == 0 && (path[n] == '\0' || path[n] == '/'))
			return true;
	}
	return false;
}

static bool env_name_ok(const char *s)
{
	if (!(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return false;
	for (const char *p = s; *p; p++)
		if (!(isalnum((unsigned char)*p) || *p == '_'))
			return false;
	return strlen(s) <= 128;
}

/* An array of strings, each checked by ok() (may be NULL). */
static void parse_strings(struct policy_ctx *c, struct json_object *arr, const char *ptr,
			  bool (*ok)(const char *), const char *bad_reason, char ***ret_v,
			  size_t *ret_n)
{
	size_t n = json_object_array_length(arr);

	for (size_t i = 0; i < n; i++) {
		struct json_object *s = json_object_array_get_idx(arr, i);

		if (!json_object_is_type(s, json_type_string) || !json_string_is_clean(s)) {
			verror_add_index(c->e, INVALID, ptr, i, "must be a string");
			continue;
		}
		if (ok && !ok(json_object_get_string(s))) {
			verror_add_index(c->e, INVALID, ptr, i, bad_reason);
			continue;
		}
		for (size_t k = 0; k < *ret_n; k++)
			if (strcmp((*ret_v)[k], json_object_get_string(s)) == 0)
				verror_add_index(c->e, INVALID, ptr, i, "listed twice");
		if (!strv_add(ret_v, ret_n, json_object_get_string(s)))
			verror_add(c->e, HUTCH_ERR_INTERNAL, ptr, "out of memory");
	}
}

static void parse_limits(struct policy_ctx *c, struct json_object *lim)
{
	static const char *const rule_keys[] = { "default", "max", NULL };
	const char *known[LIM_COUNT + 1];

	for (int i = 0; i < LIM_COUNT; i++)
		known[i] = limit_defs[i].name;
	known[LIM_COUNT] = NULL;
	json_check_keys(lim, known, INVALID, "/limits", c->e);
	for (int i = 0; i < LIM_COUNT; i++) {
		const struct limit_def *d = &limit_defs[i];
		char ptr[VERROR_POINTER_MAX];
		struct json_object *rule = NULL;
		uint64_t def = 0, max = 0;

		if (d->if_absent && !json_object_object_get_ex(lim, d->name, NULL)) {
			c->p->limits[i] = (struct limit_rule){ d->if_absent, d->if_absent };
			continue;
		}
		rule = need(c, lim, d->name, json_type_object, "/limits");
		if (!rule)
			continue;
		pointer_join_key(ptr, sizeof(ptr), "/limits", d->name);
		json_check_keys(rule, rule_keys, INVALID, ptr, c->e);
		if (json_get_uint(rule, "default", d->min, d->max, INVALID, ptr, c->e, &def) == 0)
			verror_add_key(c->e, INVALID, ptr, "default", "missing");
		if (json_get_uint(rule, "max", d->min, d->max, INVALID, ptr, c->e, &max) == 0)
			verror_add_key(c->e, INVALID, ptr, "max", "missing");
		if (def > max) {
			verror_add_key(c->e, INVALID, ptr, "default", "above max");
			verror_given(c->e, "%" PRIu64, def);
			if (max >= d->min)
				verror_accept(c->e, "%" PRIu64 " to %" PRIu64 " (max)", d->min, max);
		}
		c->p->limits[i] = (struct limit_rule){ def, max };
	}
}

static bool clean_path(const char *s)
{
	return strlen(s) <= HUTCH_SPEC_MAX_PATH && spec_path_is_clean(s, 0);
}

static bool clean_path_or_root(const char *s)
{
	return strlen(s) <= HUTCH_SPEC_MAX_PATH && spec_path_is_clean(s, 1);
}

/* filesystem.hide and filesystem.read_only: optional lists of patterns. */
static void parse_patterns(struct policy_ctx *c, struct json_object *fs, const char *key,
			   char ***ret_v, size_t *ret_n)
{
	char ptr[VERROR_POINTER_MAX];
	struct json_object *arr;

	pointer_join_key(ptr, sizeof(ptr), "/filesystem", key);
	if (json_get_typed(fs, key, json_type_array, INVALID, "/filesystem", c->e, &arr) <= 0)
		return;
	if (json_object_array_length(arr) > MASK_PATTERNS_MAX) {
		verror_add(c->e, INVALID, ptr, "too many patterns");
		verror_given(c->e, "%zu", json_object_array_length(arr));
		verror_accept(c->e, "at most %u patterns", MASK_PATTERNS_MAX);
		return;
	}
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		struct json_object *s = json_object_array_get_idx(arr, i);

		if (!json_object_is_type(s, json_type_string) ||
		    mask_pattern_ok(json_object_get_string(s)))
			continue;
		verror_add_index(c->e, INVALID, ptr, i, "must be a pattern");
		verror_accept(c->e, "'/'-separated fnmatch(3) globs and \"**\" (at most %u), "
			      "no empty, '.' or '..' component, at most %u bytes",
			      MASK_PATTERN_MAX_STARS, MASK_PATTERN_MAX);
		verror_accept(c->e, "e.g. **/.env, **/.git/hooks, /work/src/secrets");
		return;
	}
	parse_strings(c, arr, ptr, NULL, NULL, ret_v, ret_n);
}

static void parse_filesystem(struct policy_ctx *c, struct json_object *fs)
{
	static const char *const keys[] = { "binds",	     "usr_symlinks", "work_dir",
					    "writable_exec", "request_exec", "hide",
					    "read_only",     NULL };
	static const char *const bind_keys[] = { "path", "exec", NULL };
	struct json_object *binds;
	const char *work = NULL;

	json_check_keys(fs, keys, INVALID, "/filesystem", c->e);
	if (json_get_string(fs, "work_dir", HUTCH_SPEC_MAX_PATH, INVALID, "/filesystem", c->e,
			    &work) == 0)
		verror_add(c->e, INVALID, "/filesystem/work_dir", "missing");
	if (work && (!clean_path(work) || path_is_reserved(work, NULL)))
		verror_add(c->e, INVALID, "/filesystem/work_dir", "must be a clean absolute path outside /proc, /dev and /tmp");
	if (work)
		c->p->work_dir = strdup(work);
	if (json_get_bool(fs, "usr_symlinks", INVALID, "/filesystem", c->e, &c->p->usr_symlinks) == 0)
		verror_add(c->e, INVALID, "/filesystem/usr_symlinks", "missing");
	if (json_get_bool(fs, "writable_exec", INVALID, "/filesystem", c->e, &c->p->writable_exec) == 0)
		verror_add(c->e, INVALID, "/filesystem/writable_exec", "missing");
	/* Optional (false when absent): it came after the first release. */
	json_get_bool(fs, "request_exec", INVALID, "/filesystem", c->e, &c->p->request_exec);
	parse_patterns(c, fs, "hide", &c->p->hide, &c->p->n_hide);
	parse_patterns(c, fs, "read_only", &c->p->read_only, &c->p->n_read_only);
	binds = need(c, fs, "binds", json_type_array, "/filesystem");
	if (!binds)
		return;
	c->p->n_binds = json_object_array_length(binds);
	if (c->p->n_binds > 64) {
		verror_add(c->e, INVALID, "/filesystem/binds", "more than 64 binds");
		c->p->n_binds = 0;
		return;
	}
	c->p->binds = calloc(c->p->n_binds + 1, sizeof(*c->p->binds));
	if (!c->p->binds) {
		/* n_binds counts what binds holds: none, and the parse fails. */
		c->p->n_binds = 0;
		verror_add(c->e, HUTCH_ERR_INTERNAL, "/filesystem/binds", "out of memory");
		return;
	}
	for (size_t i = 0; i < c->p->n_binds; i++) {
		struct json_object *b = json_object_array_get_idx(binds, i);
		char ptr[VERROR_POINTER_MAX];
		const char *path = NULL;

		pointer_join_index(ptr, sizeof(ptr), "/filesystem/binds", i);
		if (!json_object_is_type(b, json_type_object)) {
			verror_add(c->e, INVALID, ptr, "must be an object");
			continue;
		}
		json_check_keys(b, bind_keys, INVALID, ptr, c->e);
		if (json_get_string(b, "path", HUTCH_SPEC_MAX_PATH, INVALID, ptr, c->e, &path) == 0)
			verror_add_key(c->e, INVALID, ptr, "path", "missing");
		if (path && (!clean_path(path) || path_is_reserved(path, work)))
			verror_add_key(c->e, INVALID, ptr, "path", "must be a clean absolute path outside /proc, /dev, /tmp and the work dir");
		else if (path && !(c->p->binds[i].path = strdup(path)))
			verror_add(c->e, HUTCH_ERR_INTERNAL, ptr, "out of memory");
		if (json_get_bool(b, "exec", INVALID, ptr, c->e, &c->p->binds[i].exec) == 0)
			verror_add_key(c->e, INVALID, ptr, "exec", "missing");
	}
}

static void parse_mount_rules(struct policy_ctx *c, struct json_object *arr)
{
	static const char *const keys[] = { "prefix", "modes", NULL };
	size_t n = json_object_array_length(arr);

	if (n > 64) {
		verror_add(c->e, INVALID, "/mounts", "more than 64 rules");
		return;
	}
	c->p->mount_rules = calloc(n + 1, sizeof(*c->p->mount_rules));
	if (!c->p->mount_rules) {
		verror_add(c->e, HUTCH_ERR_INTERNAL, "/mounts", "out of memory");
		return;
	}
	c->p->n_mount_rules = n;
	for (size_t i = 0; i < n; i++) {
		struct json_object *m = json_object_array_get_idx(arr, i), *modes;
		struct policy_mount_rule *rule = &c->p->mount_rules[i];
		char ptr[VERROR_POINTER_MAX], mptr[VERROR_POINTER_MAX];
		const char *prefix = NULL;

		pointer_join_index(ptr, sizeof(ptr), "/mounts", i);
		if (!json_object_is_type(m, json_type_object)) {
			verror_add(c->e, INVALID, ptr, "must be an object");
			continue;
		}
		json_check_keys(m, keys, INVALID, ptr, c->e);
		if (json_get_string(m, "prefix", HUTCH_SPEC_MAX_PATH, INVALID, ptr, c->e, &prefix) == 0)
			verror_add_key(c->e, INVALID, ptr, "prefix", "missing");
		if (prefix && !clean_path_or_root(prefix))
			verror_add_key(c->e, INVALID, ptr, "prefix", "must be a clean absolute path");
		else if (prefix && !(rule->prefix = strdup(prefix)))
			verror_add(c->e, HUTCH_ERR_INTERNAL, ptr, "out of memory");
		modes = need(c, m, "modes", json_type_array, ptr);
		pointer_join_key(mptr, sizeof(mptr), ptr, "modes");
		for (size_t k = 0; modes && k < json_object_array_length(modes); k++) {
			struct json_object *s = json_object_array_get_idx(modes, k);
			const char *t = json_object_is_type(s, json_type_string) ? json_object_get_string(s) : "";

			if (strcmp(t, "ro") == 0)
				rule->ro = true;
			else if (strcmp(t, "rw") == 0)
				rule->rw = true;
			else if (strcmp(t, "overlay") == 0)
				rule->overlay = true;
			else
				verror_add_index(c->e, INVALID, mptr, k,
						 "must be \"ro\", \"rw\" or \"overlay\"");
		}
	}
}

static void parse_counts(struct policy_ctx *c, struct json_object *obj, const char *ptr,
			 uint64_t *ret_count, uint64_t *ret_bytes)
{
	static const char *const keys[] = { "max_count", "max_bytes", NULL };

	json_check_keys(obj, keys, INVALID, ptr, c->e);
	if (json_get_uint(obj, "max_count", 0, 4096, INVALID, ptr, c->e, ret_count) == 0)
		verror_add_key(c->e, INVALID, ptr, "max_count", "missing");
	if (json_get_uint(obj, "max_bytes", 0, 1024 * MB, INVALID, ptr, c->e, ret_bytes) == 0)
		verror_add_key(c->e, INVALID, ptr, "max_bytes", "missing");
}

static void parse_network(struct policy_ctx *c, struct json_object *net)
{
	static const char *const keys[] = { "default", "allow", "proxy", NULL };
	struct json_object *allow, *proxy = NULL;
	const char *def = NULL;
	int m;

	json_check_keys(net, keys, INVALID, "/network", c->e);
	allow = need(c, net, "allow", json_type_array, "/network");
	for (size_t i = 0; allow && i < json_object_array_length(allow); i++) {
		struct json_object *s = json_object_array_get_idx(allow, i);

		m = json_object_is_type(s, json_type_string)
			    ? pick(json_object_get_string(s), policy_net_names, NET_MODES)
			    : -1;
		if (m < 0)
			verror_add_index(c->e, INVALID, "/network/allow", i,
					 "must be none, loopback, host or proxy");
		else
			c->p->net_allowed[m] = true;
	}
	if (json_get_string(net, "default", 16, INVALID, "/network", c->e, &def) == 0)
		verror_add(c->e, INVALID, "/network/default", "missing");
	if (def) {
		m = pick(def, policy_net_names, NET_MODES);
		if (m < 0 || !c->p->net_allowed[m]) {
			verror_add(c->e, INVALID, "/network/default", "must be one of the allowed modes");
			for (m = 0; m < NET_MODES; m++)
				if (c->p->net_allowed[m])
					verror_accept(c->e, "%s", policy_net_names[m]);
		} else
			c->p->net_default = (enum net_mode)m;
	}
	if (json_get_typed(net, "proxy", json_type_object, INVALID, "/network", c->e, &proxy) > 0) {
		if (!c->p->net_allowed[NET_PROXY])
			verror_add(c->e, INVALID, "/network/proxy", "only with \"proxy\" in allow");
		else
			policy_proxy_parse(proxy, &c->p->proxy, c->e);
	}
}

static bool env_prefix_ok(const char *s)
{
	return s[0] && env_name_ok(s);
}

static void parse_env(struct policy_ctx *c, struct json_object *env)
{
	static const char *const keys[] = { "set", "allow", "allow_prefixes", "allow_any", NULL };
	struct json_object *set, *allow, *prefixes;

	json_check_keys(env, keys, INVALID, "/env", c->e);
	set = need(c, env, "set", json_type_object, "/env");
	allow = need(c, env, "allow", json_type_array, "/env");
	prefixes = need(c, env, "allow_prefixes", json_type_array, "/env");
	/* Optional (false when absent): it came after the first release. */
	json_get_bool(env, "allow_any", INVALID, "/env", c->e, &c->p->env_allow_any);
	if (set) {
		json_object_object_foreach(set, key, val) {
			char *kv = NULL;

			if (!env_name_ok(key)) {
				verror_add_key(c->e, INVALID, "/env/set", key, "not a valid variable name");
				continue;
			}
			if (!json_object_is_type(val, json_type_string) || !json_string_is_clean(val)) {
				verror_add_key(c->e, INVALID, "/env/set", key, "must be a string");
				continue;
			}
			if (asprintf(&kv, "%s=%s", key, json_object_get_string(val)) < 0 ||
			    !strv_add(&c->p->env_set, &c->p->n_env_set, kv))
				verror_add(c->e, HUTCH_ERR_INTERNAL, "/env/set", "out of memory");
			free(kv);
		}
	}
	if (allow)
		parse_strings(c, allow, "/env/allow", env_name_ok, "not a valid variable name",
			      &c->p->env_allow, &c->p->n_env_allow);
	if (prefixes)
		parse_strings(c, prefixes, "/env/allow_prefixes", env_prefix_ok,
			      "not a valid variable name prefix", &c->p->env_allow_prefixes,
			      &c->p->n_env_allow_prefixes);
}

static bool syscall_ok(const char *s)
{
	return syscall_name_known(s);
}

static void parse_seccomp(struct policy_ctx *c, struct json_object *sc)
{
	static const char *const keys[] = { "mode", "syscalls", "allow_ptrace", NULL };
	struct json_object *calls;
	const char *mode = NULL;
	int m;

	json_check_keys(sc, keys, INVALID, "/seccomp", c->e);
	if (json_get_string(sc, "mode", 16, INVALID, "/seccomp", c->e, &mode) == 0)
		verror_add(c->e, INVALID, "/seccomp/mode", "missing");
	if (mode) {
		m = pick(mode, policy_seccomp_names, 2);
		if (m < 0)
			verror_add(c->e, INVALID, "/seccomp/mode", "must be deny-list or allow-list");
		else
			c->p->seccomp_mode = (enum seccomp_mode)m;
	}
	if (json_get_bool(sc, "allow_ptrace", INVALID, "/seccomp", c->e, &c->p->allow_ptrace) == 0)
		verror_add(c->e, INVALID, "/seccomp/allow_ptrace", "missing");
	calls = need(c, sc, "syscalls", json_type_array, "/seccomp");
	if (!calls)
		return;
	if (json_object_array_length(calls) > 1024) {
		verror_add(c->e, INVALID, "/seccomp/syscalls", "more than 1024 names");
		return;
	}
	parse_strings(c, calls, "/seccomp/syscalls", syscall_ok, "unknown syscall name",
		      &c->p->syscalls, &c->p->n_syscalls);
	if (c->p->seccomp_mode != SECCOMP_ALLOW_LIST)
		return;
	/* An allow list cannot reopen what every policy denies. */
	for (size_t i = 0; i < c->p->n_syscalls; i++) {
		bool denied = !c->p->allow_ptrace && strcmp(c->p->syscalls[i], "ptrace") == 0;

		for (size_t k = 0; syscall_default_deny[k]; k++)
			if (strcmp(syscall_default_deny[k], c->p->syscalls[i]) == 0)
				denied = true;
		if (denied)
			verror_add_index(c->e, INVALID, "/seccomp/syscalls", i, "denied by every policy");
	}
}

static void parse_user(struct policy_ctx *c, struct json_object *u)
{
	static const char *const keys[] = { "uid", "gid", NULL };
	uint64_t uid = 0, gid = 0;

	json_check_keys(u, keys, INVALID, "/user", c->e);
	/* Never 0: a root caller's jail holds no host privilege. */
	if (json_get_uint(u, "uid", 1, UINT32_MAX - 1, INVALID, "/user", c->e, &uid) == 0)
		verror_add(c->e, INVALID, "/user/uid", "missing");
	if (json_get_uint(u, "gid", 1, UINT32_MAX - 1, INVALID, "/user", c->e, &gid) == 0)
		verror_add(c->e, INVALID, "/user/gid", "missing");
	c->p->uid = (uint32_t)uid;
	c->p->gid = (uint32_t)gid;
}

static void parse_requires(struct policy_ctx *c, struct json_object *arr)
{
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		struct json_object *s = json_object_array_get_idx(arr, i);
		int m = json_object_is_type(s, json_type_string)
				? pick(json_object_get_string(s), policy_requirement_names, N_REQUIREMENTS)
				: -1;

		if (m < 0)
			verror_add_index(c->e, INVALID, "/requires", i,
					 "must be user_namespaces, seccomp, landlock, cgroup, "
					 "landlock_network or landlock_scoping");
		else
			c->p->requires |= 1u << m;
	}
}

static void parse_on_limit(struct policy_ctx *c, struct json_object *ol)
{
	static const char *const keys[] = { "partial_output", "overflow", NULL };
	const char *ov = NULL;

	json_check_keys(ol, keys, INVALID, "/on_limit", c->e);
	if (json_get_bool(ol, "partial_output", INVALID, "/on_limit", c->e, &c->p->partial_output) == 0)
		verror_add(c->e, INVALID, "/on_limit/partial_output", "missing");
	if (json_get_string(ol, "overflow", 16, INVALID, "/on_limit", c->e, &ov) == 0)
		verror_add(c->e, INVALID, "/on_limit/overflow", "missing");
	if (ov && strcmp(ov, "kill") != 0 && strcmp(ov, "truncate") != 0)
		verror_add(c->e, INVALID, "/on_limit/overflow", "must be kill or truncate");
	c->p->overflow_truncate = ov && strcmp(ov, "truncate") == 0;
}

static void parse_landlock(struct policy_ctx *c, struct json_object *root)
{
	const char *s = NULL;
	int m;

	if (json_get_string(root, "landlock", 16, INVALID, "", c->e, &s) == 0)
		verror_add(c->e, INVALID, "/landlock", "missing");
	if (!s)
		return;
	if ((m = pick(s, policy_landlock_names, 3)) < 0)
		verror_add(c->e, INVALID, "/landlock", "must be off, best-effort or required");
	else
		c->p->landlock = (enum landlock_mode)m;
}

/* Every section of a policy after version and description, in the order
 * of hutch-policy(5), each problem added to c->e. */
void policy_parse_sections(struct policy_ctx *c, struct json_object *root)
{
	struct json_object *v;

	if ((v = need(c, root, "limits", json_type_object, "")))
		parse_limits(c, v);
	if ((v = need(c, root, "filesystem", json_type_object, "")))
		parse_filesystem(c, v);
	if ((v = need(c, root, "mounts", json_type_array, "")))
		parse_mount_rules(c, v);
	if ((v = need(c, root, "files", json_type_object, "")))
		parse_counts(c, v, "/files", &c->p->files_max_count, &c->p->files_max_bytes);
	if ((v = need(c, root, "collect", json_type_object, "")))
		parse_counts(c, v, "/collect", &c->p->collect_max_count, &c->p->collect_max_bytes);
	if ((v = need(c, root, "network", json_type_object, "")))
		parse_network(c, v);
	if ((v = need(c, root, "env", json_type_object, "")))
		parse_env(c, v);
	if ((v = need(c, root, "seccomp", json_type_object, "")))
		parse_seccomp(c, v);
	parse_landlock(c, root);
	if ((v = need(c, root, "user", json_type_object, "")))
		parse_user(c, v);
	if ((v = need(c, root, "requires", json_type_array, "")))
		parse_requires(c, v);
	if ((c->p->requires & (REQ_LANDLOCK | REQ_LANDLOCK_NETWORK | REQ_LANDLOCK_SCOPING)) &&
	    c->p->landlock != LANDLOCK_REQUIRED)
		verror_add(c->e, INVALID, "/landlock",
			   "must be required when requires lists a landlock mechanism");
	if ((v = need(c, root, "on_limit", json_type_object, "")))
		parse_on_limit(c, v);
}
