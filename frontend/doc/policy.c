/* policy.c: parse, validate, load and digest policies (see policy.h and
 * hutch-policy(5)). Every field is required, unknown fields are errors, and
 * `policy check` sees every problem at once. Frontend only. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <limits.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "fd-util.h"
#include "spec.h"
#include "doc/json-util.h"
#include "doc/mask-pattern.h"
#include "doc/policy.h"
#include "doc/strv.h"
#include "doc/syscall-names.h"

#define KB 1024ull
#define MB (1024ull * KB)
#define GB (1024ull * MB)
#define DAY_MS (24ull * 3600 * 1000)

const struct limit_def limit_defs[LIM_COUNT] = {
	[LIM_WALL_MS] = { "wall_ms", 1, 7 * DAY_MS, true },
	[LIM_CPU_MS] = { "cpu_ms", 1, 7 * DAY_MS, true },
	[LIM_IDLE_MS] = { "idle_ms", 0, 7 * DAY_MS, true },
	[LIM_MEMORY_BYTES] = { "memory_bytes", 16 * MB, 1024 * GB, true },
	[LIM_STDOUT_BYTES] = { "stdout_bytes", 1, 64 * GB, true },
	[LIM_STDERR_BYTES] = { "stderr_bytes", 1, 64 * GB, true },
	[LIM_FILE_SIZE_BYTES] = { "file_size_bytes", 0, 1024 * GB, true },
	[LIM_PROCESSES] = { "processes", 1, 1u << 20, true },
	[LIM_OPEN_FILES] = { "open_files", 8, 1u << 20, true },
	[LIM_TMP_BYTES] = { "tmp_bytes", 64 * KB, 1024 * GB, false },
	[LIM_WORK_BYTES] = { "work_bytes", 64 * KB, 1024 * GB, false },
	/* nr_inodes of /tmp and the work dir; optional, as policy files
	 * written before them lack them. An inode and its dentry pin about
	 * 1 KiB of kernel memory that the size limit never sees, so the
	 * defaults cost at most some 32 and 64 MiB, and still hold a large
	 * source tree or virtualenv (tens of thousands of files). */
	[LIM_TMP_INODES] = { "tmp_inodes", 64, 1u << 24, false, 32768 },
	[LIM_WORK_INODES] = { "work_inodes", 64, 1u << 24, false, 65536 },
	/* Each overlay's upper layer: a tmpfs of its own, charged like the
	 * work dir; optional, as policies written before overlays lack them. */
	[LIM_OVERLAY_BYTES] = { "overlay_bytes", 64 * KB, 1024 * GB, false, 256 * MB },
	[LIM_OVERLAY_INODES] = { "overlay_inodes", 64, 1u << 24, false, 65536 },
};

static const char *const net_names[] = { [NET_NONE] = "none", [NET_LOOPBACK] = "loopback",
					 [NET_HOST] = "host", [NET_PROXY] = "proxy" };
static const char *const seccomp_names[] = { [SECCOMP_DENY_LIST] = "deny-list",
					     [SECCOMP_ALLOW_LIST] = "allow-list" };
static const char *const landlock_names[] = { [LANDLOCK_OFF] = "off",
					      [LANDLOCK_BEST_EFFORT] = "best-effort",
					      [LANDLOCK_REQUIRED] = "required" };
static const char *const requirement_names[] = { "user_namespaces",  "seccomp",
						 "landlock",	     "cgroup",
						 "landlock_network", "landlock_scoping" };
#define N_REQUIREMENTS (sizeof(requirement_names) / sizeof(requirement_names[0]))

const char *net_mode_name(enum net_mode m)
{
	return net_names[m];
}

const char *seccomp_mode_name(enum seccomp_mode m)
{
	return seccomp_names[m];
}

const char *landlock_mode_name(enum landlock_mode m)
{
	return landlock_names[m];
}

static int pick(const char *s, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(s, names[i]) == 0)
			return (int)i;
	return -1;
}

#define INVALID HUTCH_ERR_POLICY_INVALID

struct ctx {
	struct verrors *e;
	struct policy *p;
};

/* A member that must be there, of the given type. */
static struct json_object *need(struct ctx *c, struct json_object *obj, const char *key,
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

static bool hostname_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > HUTCH_SPEC_MAX_HOSTNAME)
		return false;
	for (const char *p = s; *p; p++)
		if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '-' ||
		      *p == '.'))
			return false;
	return true;
}

/* An array of strings, each checked by ok() (may be NULL). */
static void parse_strings(struct ctx *c, struct json_object *arr, const char *ptr,
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

static void parse_limits(struct ctx *c, struct json_object *lim)
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
static void parse_patterns(struct ctx *c, struct json_object *fs, const char *key,
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

static void parse_filesystem(struct ctx *c, struct json_object *fs)
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

static void parse_mount_rules(struct ctx *c, struct json_object *arr)
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

static void parse_counts(struct ctx *c, struct json_object *obj, const char *ptr,
			 uint64_t *ret_count, uint64_t *ret_bytes)
{
	static const char *const keys[] = { "max_count", "max_bytes", NULL };

	json_check_keys(obj, keys, INVALID, ptr, c->e);
	if (json_get_uint(obj, "max_count", 0, 4096, INVALID, ptr, c->e, ret_count) == 0)
		verror_add_key(c->e, INVALID, ptr, "max_count", "missing");
	if (json_get_uint(obj, "max_bytes", 0, 1024 * MB, INVALID, ptr, c->e, ret_bytes) == 0)
		verror_add_key(c->e, INVALID, ptr, "max_bytes", "missing");
}

static void parse_network(struct ctx *c, struct json_object *net)
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
			    ? pick(json_object_get_string(s), net_names, NET_MODES)
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
		m = pick(def, net_names, NET_MODES);
		if (m < 0 || !c->p->net_allowed[m]) {
			verror_add(c->e, INVALID, "/network/default", "must be one of the allowed modes");
			for (m = 0; m < NET_MODES; m++)
				if (c->p->net_allowed[m])
					verror_accept(c->e, "%s", net_names[m]);
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

static void parse_env(struct ctx *c, struct json_object *env)
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

static void parse_seccomp(struct ctx *c, struct json_object *sc)
{
	static const char *const keys[] = { "mode", "syscalls", "allow_ptrace", NULL };
	struct json_object *calls;
	const char *mode = NULL;
	int m;

	json_check_keys(sc, keys, INVALID, "/seccomp", c->e);
	if (json_get_string(sc, "mode", 16, INVALID, "/seccomp", c->e, &mode) == 0)
		verror_add(c->e, INVALID, "/seccomp/mode", "missing");
	if (mode) {
		m = pick(mode, seccomp_names, 2);
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

static void parse_user(struct ctx *c, struct json_object *u)
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

static void parse_requires(struct ctx *c, struct json_object *arr)
{
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		struct json_object *s = json_object_array_get_idx(arr, i);
		int m = json_object_is_type(s, json_type_string)
				? pick(json_object_get_string(s), requirement_names, N_REQUIREMENTS)
				: -1;

		if (m < 0)
			verror_add_index(c->e, INVALID, "/requires", i,
					 "must be user_namespaces, seccomp, landlock, cgroup, "
					 "landlock_network or landlock_scoping");
		else
			c->p->requires |= 1u << m;
	}
}

static void parse_on_limit(struct ctx *c, struct json_object *ol)
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

/* ---- canonical form ---- */

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

	json_object_object_add(x, "default", json_object_new_string(net_names[p->net_default]));
	for (int m = 0; m < NET_MODES; m++)
		if (p->net_allowed[m])
			json_object_array_add(y, json_object_new_string(net_names[m]));
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

	json_object_object_add(x, "mode", json_object_new_string(seccomp_names[p->seccomp_mode]));
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
			json_object_array_add(x, json_object_new_string(requirement_names[i]));
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
	json_object_object_add(o, "landlock", json_object_new_string(landlock_names[p->landlock]));
	json_object_object_add(o, "user", juser(p));
	json_object_object_add(o, "requires", jrequires(p));
	json_object_object_add(o, "on_limit", jon_limit(p));
	json_object_object_add(o, "hostname", json_object_new_string(p->hostname));
	return strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							      JSON_C_TO_STRING_NOSLASHESCAPE));
}

/* ---- entry points ---- */

static void parse_landlock(struct ctx *c, struct json_object *root)
{
	const char *s = NULL;
	int m;

	if (json_get_string(root, "landlock", 16, INVALID, "", c->e, &s) == 0)
		verror_add(c->e, INVALID, "/landlock", "missing");
	if (!s)
		return;
	if ((m = pick(s, landlock_names, 3)) < 0)
		verror_add(c->e, INVALID, "/landlock", "must be off, best-effort or required");
	else
		c->p->landlock = (enum landlock_mode)m;
}

int policy_parse(const char *text, size_t len, const char *name, struct policy *ret,
		 struct verrors *e)
{
	_cleanup_json_ struct json_object *root = NULL;

	if (json_parse_strict(text, len, INVALID, e, &root) < 0)
		return -EINVAL;
	return policy_parse_tree(root, name, ret, e);
}

int policy_parse_tree(struct json_object *root, const char *name, struct policy *ret,
		      struct verrors *e)
{
	static const char *const keys[] = { "version",	"description", "limits",   "filesystem",
					    "mounts",	"files",       "collect",  "network",
					    "env",	"seccomp",     "landlock", "user",
					    "requires", "on_limit",    "hostname", NULL };
	struct policy p = { 0 };
	struct ctx c = { .e = e, .p = &p };
	struct json_object *v;
	size_t before = e->n;
	const char *s = NULL;
	uint64_t version = 0;

	policy_proxy_init(&p.proxy);
	json_check_keys(root, keys, INVALID, "", e);
	if (json_get_uint(root, "version", 1, 1, INVALID, "", e, &version) == 0)
		verror_add(e, INVALID, "/version", "missing");
	if (json_get_string(root, "description", 1024, INVALID, "", e, &s) == 0)
		verror_add(e, INVALID, "/description", "missing");
	p.description = strdup(s ? s : "");
	if ((v = need(&c, root, "limits", json_type_object, "")))
		parse_limits(&c, v);
	if ((v = need(&c, root, "filesystem", json_type_object, "")))
		parse_filesystem(&c, v);
	if ((v = need(&c, root, "mounts", json_type_array, "")))
		parse_mount_rules(&c, v);
	if ((v = need(&c, root, "files", json_type_object, "")))
		parse_counts(&c, v, "/files", &p.files_max_count, &p.files_max_bytes);
	if ((v = need(&c, root, "collect", json_type_object, "")))
		parse_counts(&c, v, "/collect", &p.collect_max_count, &p.collect_max_bytes);
	if ((v = need(&c, root, "network", json_type_object, "")))
		parse_network(&c, v);
	if ((v = need(&c, root, "env", json_type_object, "")))
		parse_env(&c, v);
	if ((v = need(&c, root, "seccomp", json_type_object, "")))
		parse_seccomp(&c, v);
	parse_landlock(&c, root);
	if ((v = need(&c, root, "user", json_type_object, "")))
		parse_user(&c, v);
	if ((v = need(&c, root, "requires", json_type_array, "")))
		parse_requires(&c, v);
	if ((p.requires & (REQ_LANDLOCK | REQ_LANDLOCK_NETWORK | REQ_LANDLOCK_SCOPING)) &&
	    p.landlock != LANDLOCK_REQUIRED)
		verror_add(e, INVALID, "/landlock",
			   "must be required when requires lists a landlock mechanism");
	if ((v = need(&c, root, "on_limit", json_type_object, "")))
		parse_on_limit(&c, v);
	s = NULL;
	if (json_get_string(root, "hostname", 64, INVALID, "", e, &s) == 0)
		verror_add(e, INVALID, "/hostname", "missing");
	if (s && !hostname_ok(s))
		verror_add(e, INVALID, "/hostname", "must be 1-64 of a-z, 0-9, '-' and '.'");
	p.hostname = strdup(s && hostname_ok(s) ? s : "hutch");
	p.name = strdup(name);
	if (e->n > before || !p.name || !p.work_dir || !p.hostname || !p.description) {
		if (e->n == before)
			verror_add(e, HUTCH_ERR_INTERNAL, "", "out of memory");
		policy_free(&p);
		return -EINVAL;
	}
	p.canonical = policy_canonical(&p);
	if (!p.canonical) {
		policy_free(&p);
		return verror_add(e, HUTCH_ERR_INTERNAL, "", "out of memory");
	}
	*ret = p;
	return 0;
}

const char *const *policy_search_dirs(void)
{
	static const char *dirs[9];
	static char *env_copy;
	const char *env = getenv("HUTCH_POLICY_PATH");
	size_t n = 0;

	if (dirs[0])
		return dirs;
	/* A test or uninstalled build may name its own directories; this only
	 * picks which policy files of the caller's choice apply to the
	 * caller, as --policy FILE does. */
	if (env && env[0] && (env_copy = strdup(env))) {
		for (char *save = NULL, *d = strtok_r(env_copy, ":", &save); d && n < 8;
		     d = strtok_r(NULL, ":", &save))
			if (d[0] == '/')
				dirs[n++] = d;
	} else {
		dirs[n++] = HUTCH_ADMIN_POLICY_DIR;
		dirs[n++] = HUTCH_POLICY_DIR;
	}
	dirs[n] = NULL;
	return dirs;
}

bool policy_name_valid(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > POLICY_NAME_MAX || !(islower((unsigned char)s[0]) || isdigit((unsigned char)s[0])))
		return false;
	for (const char *p = s; *p; p++)
		if (!(islower((unsigned char)*p) || isdigit((unsigned char)*p) || *p == '-' || *p == '_'))
			return false;
	return true;
}

int policy_digest(const struct policy *p, const char *helper_path, char ret[72])
{
	struct sha256_ctx ctx;
	uint8_t d[SHA256_DIGEST_SIZE];
	char ident[512];
	struct stat st;
	int n;

	if (stat(helper_path, &st) < 0)
		return -errno;
	n = snprintf(ident, sizeof(ident), "\nhelper %s %lld %lld.%09ld %llu\n", helper_path,
		     (long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
		     (unsigned long long)st.st_ino);
	if (n < 0 || (size_t)n >= sizeof(ident))
		return -ENAMETOOLONG;
	sha256_init(&ctx);
	sha256_update(&ctx, strlen(p->canonical), (const uint8_t *)p->canonical);
	sha256_update(&ctx, (size_t)n, (const uint8_t *)ident);
	sha256_digest(&ctx, sizeof(d), d);
	memcpy(ret, "sha256:", 7);
	for (size_t i = 0; i < sizeof(d); i++)
		snprintf(ret + 7 + 2 * i, 3, "%02x", d[i]);
	return 0;
}

void policy_free(struct policy *p)
{
	free(p->name);
	free(p->file);
	free(p->description);
	for (size_t i = 0; p->binds && i < p->n_binds; i++)
		free(p->binds[i].path);
	free(p->binds);
	for (size_t i = 0; p->mount_rules && i < p->n_mount_rules; i++)
		free(p->mount_rules[i].prefix);
	free(p->mount_rules);
	free(p->work_dir);
	free(p->hostname);
	strv_free(p->env_set, p->n_env_set);
	strv_free(p->env_allow, p->n_env_allow);
	strv_free(p->env_allow_prefixes, p->n_env_allow_prefixes);
	strv_free(p->syscalls, p->n_syscalls);
	strv_free(p->hide, p->n_hide);
	strv_free(p->read_only, p->n_read_only);
	policy_proxy_free(&p->proxy);
	free(p->canonical);
	*p = (struct policy){ 0 };
}
