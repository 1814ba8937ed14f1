/* plan.h: a resolved jail: what one run gets after its request has been
 * validated and narrowed by its policy. layout.c turns it into a spec,
 * filter.c into a seccomp program, supervise.c enforces its limits.
 * Frontend only. */
#ifndef HUTCH_PLAN_H
#define HUTCH_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum net_mode { NET_NONE, NET_LOOPBACK, NET_HOST, NET_PROXY, NET_MODES };
enum seccomp_mode { SECCOMP_DENY_LIST, SECCOMP_ALLOW_LIST };
enum landlock_mode { LANDLOCK_OFF, LANDLOCK_BEST_EFFORT, LANDLOCK_REQUIRED };
enum stdout_mode { STDOUT_STREAM, STDOUT_FRAME };

struct plan_mount {
	char *source;	/* host path, canonical (by_fd: where fd was found) */
	char *target;	/* jail path */
	bool rw;
	bool overlay;	/* copy-on-write: rw is false, the upper layer is the jail's */
	bool exec;
	bool by_fd;	/* the source is fd, a descriptor a serve client passed */
	int fd;		/* borrowed: its owner (the serve frame) closes it */
};

/* Masks inside the request's binds (jail/masks.c), enacted after every
 * other mount: pins first, then read-only paths, then hidden ones. */
enum plan_mask_kind { MASK_PIN, MASK_READ_ONLY, MASK_HIDE };

struct plan_mask {
	char *target;	/* jail path */
	enum plan_mask_kind kind;
};

/* What the walk that resolved the patterns did, for the result's
 * jail.masks: every bound it hit is named. */
struct plan_masks_report {
	uint64_t hidden, read_only, pinned;
	uint64_t left_out;	/* matches not masked: more than MASKS_MAX */
	uint64_t visited;	/* directory entries looked at */
	uint64_t unreadable;	/* directories the caller could not list */
	uint64_t links;		/* symbolic links matching a pattern: not followed */
	uint64_t absent;	/* read_only paths held that did not exist (overlays) */
	uint64_t hard_links;	/* other host names of hidden files, hidden too */
	bool depth_hit, entries_hit;
	bool walked;		/* some pattern or --hide applied to some bind */
};

struct plan_file {
	char *name;	/* bare name, staged in the working directory */
	uint8_t *data;
	size_t len;
};

struct plan_limits {
	uint64_t wall_ms, cpu_ms, idle_ms;
	uint64_t memory_bytes, stdout_bytes, stderr_bytes, file_size_bytes;
	uint64_t processes, open_files;
	uint64_t tmp_bytes, work_bytes;
	uint64_t tmp_inodes, work_inodes;	/* nr_inodes of /tmp and the work dir */
	uint64_t overlay_bytes, overlay_inodes;	/* each overlay's upper tmpfs */
};

/* network "proxy": what the supervisor's proxy lets through (run/proxy.c),
 * the policy's section narrowed by the request (jail/narrow-proxy.c). */
struct plan_proxy {
	char **allow;		/* host patterns (doc/host-pattern.h) */
	size_t n_allow;
	bool allow_private;	/* private and host addresses may be reached */
	uint64_t max_connections;	/* at once */
	uint64_t max_header_bytes;	/* a client's request head */
	uint64_t idle_ms;		/* a connection with no byte either way */
	uint64_t max_bytes;		/* both ways, all connections; 0: none */
};

struct plan {
	char **argv;	/* NULL-terminated */
	size_t argc;
	char **envp;	/* NULL-terminated "NAME=value" */
	size_t envc;
	char *cwd;
	char *work_dir;
	char *hostname;
	enum net_mode network;
	struct plan_proxy proxy;	/* NET_PROXY */
	bool work_exec;	/* the writable dirs are executable */
	struct plan_mount *policy_binds;	/* the policy's read-only layout */
	size_t n_policy_binds;
	struct plan_mount *mounts;	/* the request's binds */
	size_t n_mounts;
	struct plan_mask *masks;
	size_t n_masks;
	struct plan_masks_report masks_report;
	bool usr_symlinks;
	struct plan_file *files;
	size_t n_files;
	char **collect;
	size_t n_collect;
	uint8_t *stdin_data;	/* NULL: pass through (CLI) or empty (documents) */
	size_t stdin_len;
	bool stdin_given;
	enum stdout_mode stdout_mode;
	struct plan_limits limits;
	uint64_t memory_max;	/* the policy's memory_bytes max, for advice */
	enum seccomp_mode seccomp;
	char **seccomp_names;	/* extra denies, or the allow list */
	size_t n_seccomp_names;
	bool allow_ptrace;
	enum landlock_mode landlock;
	uint32_t jail_uid, jail_gid;	/* for root invocations */
	bool partial_output;	/* output survives a timeout or overflow */
	bool overflow_truncate;	/* a cap truncates instead of killing */
	bool keep_partial;	/* the request's "keep_partial": output survives a kill */
	bool require_cgroup;
	uint64_t collect_max_bytes;
	uint64_t collect_max_count;	/* entries, a collected directory's included */
	bool export_changes;	/* the overlays' changed files come back as data */
	char *digest;	/* "sha256:..." */
};

void plan_free(struct plan *p);

#endif
