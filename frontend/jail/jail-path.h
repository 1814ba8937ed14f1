/* jail-path.h: where a path of the jail comes from, worked out from the
 * plan's layout (layout.c) without building a jail: a bind's host source,
 * one of the jail's own tmpfs (/tmp, the working directory), /proc and
 * /dev, or the root tmpfs, which holds only what is mounted on it. For
 * messages and checks made before a jail exists (--cwd, an exec failure's
 * cause, --explain); it grants nothing. Frontend only. */
#ifndef HUTCH_JAIL_PATH_H
#define HUTCH_JAIL_PATH_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "doc/plan.h"

enum jail_source {
	JAIL_SRC_ROOT,		/* the root tmpfs: only mount points and /etc files */
	JAIL_SRC_POLICY_BIND,	/* filesystem.binds of the policy */
	JAIL_SRC_REQUEST_BIND,	/* --ro / --rw / "mounts" */
	JAIL_SRC_USR_LINK,	/* /bin, /lib... as on the host */
	JAIL_SRC_TMP,		/* /tmp */
	JAIL_SRC_WORK,		/* the working directory */
	JAIL_SRC_KERNEL,	/* /proc, /dev */
};

struct jail_where {
	enum jail_source src;
	bool exec;		/* the mount it is on allows exec */
	bool is_mount_point;	/* the path is the mount itself or leads to one */
	char mount[PATH_MAX];	/* the jail path of that mount ("/tmp", a target) */
	char host[PATH_MAX];	/* binds and usr links: the host path shown there */
};

/* path: an absolute jail path ("." and ".." are resolved lexically). */
void jail_path_where(const struct plan *plan, const char *path, struct jail_where *ret);

/* Whether the directory exists in a jail built from plan when it starts. */
bool jail_path_dir_exists(const struct plan *plan, const char *path);

/* Words for an exec failure (err: ENOENT or EACCES) of plan's command:
 * the cause and the remedy, naming mounts and host directories, never the
 * command itself. 0 with buf filled, or -ENOENT when there is nothing
 * better to say than the errno. */
int jail_exec_diagnose(const struct plan *plan, int err, char *buf, size_t cap);

/* The jail path of plan's command when argv[0] has a slash (else -ENOENT,
 * a PATH search). */
int jail_command_path(const struct plan *plan, char *out, size_t cap);

/* Lexical clean-up of an absolute path into out (cap bytes): "//", "." and
 * ".." resolved. -ENAMETOOLONG when it does not fit. */
int jail_path_clean(const char *path, char *out, size_t cap);

#endif
