/* policy.h: named policies (hutch-policy(5)): defaults and maxima for every
 * limit, the filesystem layout, what a request may add, network modes, env
 * rules, seccomp and Landlock settings, the jail user for root callers,
 * required mechanisms and partial-output behaviour. Parsed strictly; its
 * canonical form and digest key the probe cache. Frontend only. */
#ifndef HUTCH_POLICY_H
#define HUTCH_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "doc/plan.h"
#include "doc/policy-proxy.h"
#include "doc/verror.h"

#define POLICY_MAX_BYTES (256u << 10)
#define POLICY_NAME_MAX 64

enum limit_id {
	LIM_WALL_MS,
	LIM_CPU_MS,
	LIM_IDLE_MS,
	LIM_MEMORY_BYTES,
	LIM_STDOUT_BYTES,
	LIM_STDERR_BYTES,
	LIM_FILE_SIZE_BYTES,
	LIM_PROCESSES,
	LIM_OPEN_FILES,
	LIM_TMP_BYTES,
	LIM_WORK_BYTES,
	LIM_TMP_INODES,
	LIM_WORK_INODES,
	LIM_OVERLAY_BYTES,	/* each --overlay's upper tmpfs */
	LIM_OVERLAY_INODES,
	LIM_COUNT
};

struct limit_def {
	const char *name;	/* the JSON name, as in requests */
	uint64_t min, max;	/* what any policy may say */
	bool in_request;	/* a request may set it (else policy only) */
	uint64_t if_absent;	/* default and max when a policy omits it; 0: required */
};
extern const struct limit_def limit_defs[LIM_COUNT];

struct limit_rule {
	uint64_t def, max;
};

struct policy_bind {
	char *path;	/* host path, bound read-only at the same place */
	bool exec;
};

struct policy_mount_rule {
	char *prefix;	/* request binds may come from at or below this */
	bool ro, rw;	/* with these modes */
	bool overlay;	/* copy-on-write (--overlay) */
};

enum requirement {
	REQ_USER_NAMESPACES = 1u << 0,
	REQ_SECCOMP = 1u << 1,
	REQ_LANDLOCK = 1u << 2,
	REQ_CGROUP = 1u << 3,
	REQ_LANDLOCK_NETWORK = 1u << 4,	/* Landlock TCP rules: ABI 4 */
	REQ_LANDLOCK_SCOPING = 1u << 5,	/* Landlock signal/socket scoping: ABI 6 */
};

struct policy {
	char *name;
	char *file;		/* where it was loaded from; NULL when parsed from text */
	char *description;
	struct limit_rule limits[LIM_COUNT];
	struct policy_bind *binds;
	size_t n_binds;
	bool usr_symlinks;
	char *work_dir;
	bool writable_exec;
	bool request_exec;	/* request binds are mounted executable */
	char **hide;		/* mask patterns (doc/mask-pattern.h) */
	size_t n_hide;
	char **read_only;	/* protected subpaths of writable binds */
	size_t n_read_only;
	char *hostname;
	struct policy_mount_rule *mount_rules;
	size_t n_mount_rules;
	uint64_t files_max_count, files_max_bytes;
	uint64_t collect_max_count, collect_max_bytes;
	enum net_mode net_default;
	bool net_allowed[NET_MODES];	/* by enum net_mode */
	struct policy_proxy proxy;	/* network.proxy, when "proxy" is allowed */
	char **env_set;		/* "NAME=value" */
	size_t n_env_set;
	char **env_allow;	/* names a request may set */
	size_t n_env_allow;
	char **env_allow_prefixes;
	size_t n_env_allow_prefixes;
	bool env_allow_any;	/* any name that is a valid identifier */
	enum seccomp_mode seccomp_mode;
	char **syscalls;	/* extra denials, or the allow list */
	size_t n_syscalls;
	bool allow_ptrace;
	enum landlock_mode landlock;
	uint32_t uid, gid;
	unsigned requires;	/* enum requirement bits */
	bool partial_output;
	bool overflow_truncate;
	char *canonical;	/* canonical JSON text */
};

/* Parse policy text; name is what it is called by. On error fills e
 * (policy_invalid, every problem found) and returns -EINVAL. */
int policy_parse(const char *text, size_t len, const char *name, struct policy *ret,
		 struct verrors *e);

/* The canonical JSON text of p (what p->canonical holds once parsed;
 * every field but name and file), malloc'd; NULL without memory. */
char *policy_canonical(const struct policy *p);

struct json_object;

/* The same, for a document json_parse_strict already read (root stays
 * the caller's; the policy copies what it keeps). policy_resolve hands
 * a file without "extends" over this way instead of parsing it twice. */
int policy_parse_tree(struct json_object *root, const char *name, struct policy *ret,
		      struct verrors *e);

/* A policy name: 1-64 of [a-z0-9_-], starting with a letter or digit. */
bool policy_name_valid(const char *s);

/* Directories searched, in order, NULL-terminated (static storage). */
const char *const *policy_search_dirs(void);

/* "sha256:<hex>" over the canonical form and the helper's identity
 * (path, size, mtime, inode: a rebuilt or replaced helper re-probes). */
int policy_digest(const struct policy *p, const char *helper_path, char ret[72]);

void policy_free(struct policy *p);

const char *net_mode_name(enum net_mode m);
const char *seccomp_mode_name(enum seccomp_mode m);
const char *landlock_mode_name(enum landlock_mode m);

#endif
