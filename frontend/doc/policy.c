/* policy.c: parse, validate, load and digest policies (see policy.h and
 * hutch-policy(5)): the limits and the words every policy may use, the
 * entry points (the sections are policy-sections.c's, the canonical form
 * policy-canonical.c's), the search directories, the digest and free.
 * Every field is required, unknown fields are errors, and `policy check`
 * sees every problem at once. Frontend only. */
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
#include "doc/policy-internal.h"
#include "doc/policy.h"
#include "doc/strv.h"

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

const char *const policy_net_names[] = { [NET_NONE] = "none", [NET_LOOPBACK] = "loopback",
					 [NET_HOST] = "host", [NET_PROXY] = "proxy" };
const char *const policy_seccomp_names[] = { [SECCOMP_DENY_LIST] = "deny-list",
					     [SECCOMP_ALLOW_LIST] = "allow-list" };
const char *const policy_landlock_names[] = { [LANDLOCK_OFF] = "off",
					      [LANDLOCK_BEST_EFFORT] = "best-effort",
					      [LANDLOCK_REQUIRED] = "required" };
const char *const policy_requirement_names[] = { "user_namespaces",  "seccomp",
						 "landlock",	     "cgroup",
						 "landlock_network", "landlock_scoping" };

const char *net_mode_name(enum net_mode m)
{
	return policy_net_names[m];
}

const char *seccomp_mode_name(enum seccomp_mode m)
{
	return policy_seccomp_names[m];
}

const char *landlock_mode_name(enum landlock_mode m)
{
	return policy_landlock_names[m];
}

#define INVALID HUTCH_ERR_POLICY_INVALID

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
	struct policy_ctx c = { .e = e, .p = &p };
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
	policy_parse_sections(&c, root);
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
