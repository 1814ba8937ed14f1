/* policy-canonical.c: a policy's canonical form (policy_canonical): fixed
 * member order, no whitespace, every field present, so that two policies
 * that mean the same print the same and their digests match. Frontend
 * only. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cleanup.h"
#include "doc/json-util.h"
#include "doc/policy-internal.h"
#include "doc/policy.h"

static struct json_object *jstrv(char *const *v, size_t n)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	return a;
}

static struct json_object *jcounts(uint64_t count, uint64_t bytes)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "max_count", json_object_new_int64((int64_t)count));
	json_object_object_add(o, "max_bytes", json_object_new_int64((int64_t)bytes));
	return o;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static struct json_object *jlimits(const struct policy *p)
{
	struct json_object *x = json_object_new_object(), *y;

	for (int i = 0; i < LIM_COUNT; i++) {
		y = json_object_new_object();
		json_object_object_add(y, "default", json_object_new_int64((int64_t)p->limits[i].def));
		json_object_object_add(y, "max", json_object_new_int64((int64_t)p->limits[i].max));
		json_object_object_add(x, limit_defs[i].name, y);
	}
	return x;
}

static struct json_object *jfilesystem(const struct policy *p)
{
	struct json_object *x = json_object_new_object(), *y = json_object_new_array();

	for (size_t i = 0; i < p->n_binds; i++) {
		struct json_object *b = json_object_new_object();

		json_object_object_add(b, "path", json_object_new_string(p->binds[i].path));
		json_object_object_add(b, "exec", json_object_new_boolean(p->binds[i].exec));
		json_object_array_add(y, b);
	}
	json_object_object_add(x, "binds", y);
	json_object_object_add(x, "usr_symlinks", json_object_new_boolean(p->usr_symlinks));
	json_object_object_add(x, "work_dir", json_object_new_string(p->work_dir));
	json_object_object_add(x, "writable_exec", json_object_new_boolean(p->writable_exec));
	json_object_object_add(x, "request_exec", json_object_new_boolean(p->request_exec));
	/* Only when set: the digests of policies without masks stay. */
	if (p->n_hide)
		json_object_object_add(x, "hide", jstrv(p->hide, p->n_hide));
	if (p->n_read_only)
		json_object_object_add(x, "read_only", jstrv(p->read_only, p->n_read_only));
	return x;
}

static struct json_object *jmounts(const struct policy *p)
{
	struct json_object *x = json_object_new_array();

	for (size_t i = 0; i < p->n_mount_rules; i++) {
		struct json_object *m = json_object_new_object(), *modes = json_object_new_array();

		json_object_object_add(m, "prefix", json_object_new_string(p->mount_rules[i].prefix));
		if (p->mount_rules[i].ro)
			json_object_array_add(modes, json_object_new_string("ro"));
		if (p->mount_rules[i].rw)
			json_object_array_add(modes, json_object_new_string("rw"));
		if (p->mount_rules[i].overlay)
			json_object_array_add(modes, json_object_new_string("overlay"));
		json_object_object_add(m, "modes", modes);
		json_object_array_add(x, m);
	}
	return x;
}

static struct json_object *jnetwork(const struct policy *p)
{
	struct json_object *x = json_object_new_object(), *y = json_object_new_array();

	json_object_object_add(x, "default", json_object_new_string(policy_net_names[p->net_default]));
	for (int m = 0; m < NET_MODES; m++)
		if (p->net_allowed[m])
			json_object_array_add(y, json_object_new_string(policy_net_names[m]));
	json_object_object_add(x, "allow", y);
	/* Only with proxy allowed: the other policies' digests stay. */
	if (p->net_allowed[NET_PROXY])
		json_object_object_add(x, "proxy", policy_proxy_json(&p->proxy));
	return x;
}

/* "set" is an object: its members' order means nothing, so they print
 * sorted. NULL when out of memory. */
static struct json_object *jenv_set(const struct policy *p)
{
	_cleanup_free_ char **env_sorted = calloc(p->n_env_set + 1, sizeof(char *));
	struct json_object *y;

	if (!env_sorted)
		return NULL;
	y = json_object_new_object();
	memcpy(env_sorted, p->env_set, p->n_env_set * sizeof(char *));
	qsort(env_sorted, p->n_env_set, sizeof(char *), cmp_str);
	for (size_t i = 0; i < p->n_env_set; i++) {
		char *eq = strchr(env_sorted[i], '=');
		_cleanup_free_ char *name = strndup(env_sorted[i], (size_t)(eq - env_sorted[i]));

		if (!name) {
			json_object_put(y);
			return NULL;
		}
		json_object_object_add(y, name, json_object_new_string(eq + 1));
	}
	return y;
}

static struct json_object *jenv(const struct policy *p)
{
	struct json_object *x, *y = jenv_set(p);

	if (!y)
		return NULL;
	x = json_object_new_object();
	json_object_object_add(x, "set", y);
	json_object_object_add(x, "allow", jstrv(p->env_allow, p->n_env_allow));
	json_object_object_add(x, "allow_prefixes",
			       jstrv(p->env_allow_prefixes, p->n_env_allow_prefixes));
	json_object_object_add(x, "allow_any", json_object_new_boolean(p->env_allow_any));
	return x;
}

static struct json_object *jseccomp(const struct policy *p)
{
	struct json_object *x = json_object_new_object();

	json_object_object_add(x, "mode", json_object_new_string(policy_seccomp_names[p->seccomp_mode]));
	json_object_object_add(x, "syscalls", jstrv(p->syscalls, p->n_syscalls));
	json_object_object_add(x, "allow_ptrace", json_object_new_boolean(p->allow_ptrace));
	return x;
}

static struct json_object *juser(const struct policy *p)
{
	struct json_object *x = json_object_new_object();

	json_object_object_add(x, "uid", json_object_new_int64(p->uid));
	json_object_object_add(x, "gid", json_object_new_int64(p->gid));
	return x;
}

static struct json_object *jrequires(const struct policy *p)
{
	struct json_object *x = json_object_new_array();

	for (size_t i = 0; i < N_REQUIREMENTS; i++)
		if (p->requires & (1u << i))
			json_object_array_add(x, json_object_new_string(policy_requirement_names[i]));
	return x;
}

static struct json_object *jon_limit(const struct policy *p)
{
	struct json_object *x = json_object_new_object();

	json_object_object_add(x, "partial_output", json_object_new_boolean(p->partial_output));
	json_object_object_add(x, "overflow",
			       json_object_new_string(p->overflow_truncate ? "truncate" : "kill"));
	return x;
}

/* Fixed member order, no whitespace, every field present: two policies
 * that mean the same print the same, whatever their files looked like.
 * Each member in the order of hutch-policy(5). */
char *policy_canonical(const struct policy *p)
{
	_cleanup_json_ struct json_object *o = json_object_new_object();
	struct json_object *env = jenv(p);

	if (!env)
		return NULL;
	json_object_object_add(o, "version", json_object_new_int(1));
	json_object_object_add(o, "description", json_object_new_string(p->description));
	json_object_object_add(o, "limits", jlimits(p));
	json_object_object_add(o, "filesystem", jfilesystem(p));
	json_object_object_add(o, "mounts", jmounts(p));
	json_object_object_add(o, "files", jcounts(p->files_max_count, p->files_max_bytes));
	json_object_object_add(o, "collect", jcounts(p->collect_max_count, p->collect_max_bytes));
	json_object_object_add(o, "network", jnetwork(p));
	json_object_object_add(o, "env", env);
	json_object_object_add(o, "seccomp", jseccomp(p));
	json_object_object_add(o, "landlock", json_object_new_string(policy_landlock_names[p->landlock]));
	json_object_object_add(o, "user", juser(p));
	json_object_object_add(o, "requires", jrequires(p));
	json_object_object_add(o, "on_limit", jon_limit(p));
	json_object_object_add(o, "hostname", json_object_new_string(p->hostname));
	return strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							      JSON_C_TO_STRING_NOSLASHESCAPE));
}
