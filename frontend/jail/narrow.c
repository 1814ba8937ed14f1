/* narrow.c: request + policy = plan (see narrow.h). Frontend only. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "doc/path-util.h"
#include "doc/policy-accepts.h"
#include "doc/strv.h"
#include "jail/bind-owner.h"
#include "jail/bind-fd.h"
#include "jail/bind-source.h"
#include "jail/jail-path.h"
#include "jail/masks.h"
#include "jail/narrow.h"
#include "jail/narrow-proxy.h"

#define VIOLATION HUTCH_ERR_POLICY_VIOLATION
#define BAD HUTCH_ERR_INVALID_REQUEST

bool narrow_target_ok(const struct policy *pol, const char *target)
{
	static const char *const reserved[] = { "/proc", "/dev", "/etc", "/bin", "/sbin", "/lib",
						"/lib32", "/lib64", "/libx32", NULL };

	if (strcmp(target, "/") == 0 || strcmp(target, "/tmp") == 0 ||
	    strcmp(target, pol->work_dir) == 0)
		return false;
	for (size_t i = 0; reserved[i]; i++)
		if (path_at_or_below(target, reserved[i]))
			return false;
	for (size_t i = 0; i < pol->n_binds; i++)
		if (path_at_or_below(target, pol->binds[i].path) || path_at_or_below(pol->binds[i].path, target))
			return false;
	return true;
}

/* The policy's variables, then the request's (which may replace one of
 * them only when the policy allows that name). */
static int build_env(const struct request *req, const struct policy *pol, struct plan *p,
		     struct verrors *e)
{
	size_t cap = pol->n_env_set + req->n_env + 1, n = 0;
	char **env = calloc(cap, sizeof(char *));

	if (!env)
		return -ENOMEM;
	p->envp = env;
	for (size_t i = 0; i < pol->n_env_set; i++) {
		if (!(env[n] = strdup(pol->env_set[i])))
			return -ENOMEM;
		p->envc = ++n;
	}
	for (size_t i = 0; i < req->n_env; i++) {
		const char *name = req->env_names[i];
		size_t len = strlen(name);
		char *kv;

		if (!policy_env_allowed(pol, name)) {
			verror_add_key(e, VIOLATION, "/env", name, "not allowed by the policy");
			policy_accept_env(e, pol);
			return -EINVAL;
		}
		if (asprintf(&kv, "%s=%s", name, req->env_values[i]) < 0)
			return -ENOMEM;
		for (size_t k = 0; k < n; k++)
			if (strncmp(env[k], name, len) == 0 && env[k][len] == '=') {
				free(env[k]);
				env[k] = kv;
				kv = NULL;
				break;
			}
		if (kv) {
			env[n] = kv;
			p->envc = ++n;
		}
	}
	return 0;
}

/* overlayfs layers are directories; the helper checks again on its
 * descriptor, this says so before a jail is built. */
static bool is_directory(const char *real)
{
	struct stat st;

	return stat(real, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Where mount m's source is on this host, canonical, in real[PATH_MAX]:
 * its path, or where its passed descriptor was found (bind-fd.h). The
 * policy's prefix rules then apply to that place whichever way it was
 * named, so they mean the same for a path and a descriptor. A serve
 * without --allow-path-binds takes descriptors only: a path is bound
 * with the server's authority, not the client's. */
static int mount_source(const struct request *req, const struct req_mount *m, const char *ptr,
			char *real, struct verrors *e)
{
	const struct req_origin *o = req->origin;
	const char *why;

	if (m->source_fd >= 0) {
		if (!o || (size_t)m->source_fd >= o->n_fds)
			return verror_add_key(e, BAD, ptr, "source_fd",
					      o ? "no descriptor with that index came with the frame"
						: "descriptors come only with a hutch serve frame");
		why = m->overlay ? bind_fd_overlay_refusal(o->fds[m->source_fd], o->peer_uid, real)
				 : bind_fd_refusal(o->fds[m->source_fd], m->rw, o->peer_uid, real);
		return why ? verror_add_key(e, VIOLATION, ptr, "source_fd", why) : 0;
	}
	if (o && o->path_binds_refused)
		return verror_add_key(e, VIOLATION, ptr, "source",
				      "pass the directory as a descriptor (source_fd) or start "
				      "the server with --allow-path-binds");
	/* The rule applies to where the source really is: a symlink
	 * under an allowed prefix may point anywhere. The helper then
	 * refuses any symlink on the canonical path, so it cannot be
	 * swapped in after this check. */
	if (!realpath(m->source, real))
		return verror_add_key(e, BAD, ptr, "source", "does not exist");
	return 0;
}

/* A parent directory and where it really is (realpath_under). */
struct real_parent {
	char dir[PATH_MAX], real[PATH_MAX];
	bool ok;
};

/* realpath(3) of path, for a list of paths that mostly share a parent
 * (the default policy binds 27 files of /etc): glibc's realpath reads the
 * link of every component, so the parent once (memo) and then the last
 * component alone save a readlink(2) a path. The same answer as realpath:
 * a last component that is a link, "." or "..", or that is missing, is
 * realpath's to resolve. */
static const char *realpath_under(const char *path, char real[PATH_MAX], struct real_parent *memo)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : "";
	size_t dlen = slash == path ? 1 : (size_t)(slash - path);
	char c;
	int n;

	if (path[0] != '/' || !*base || strcmp(base, ".") == 0 || strcmp(base, "..") == 0 ||
	    dlen >= PATH_MAX)
		return realpath(path, real);
	if (strlen(memo->dir) != dlen || strncmp(memo->dir, path, dlen) != 0) {
		memcpy(memo->dir, path, dlen);
		memo->dir[dlen] = '\0';
		memo->ok = realpath(memo->dir, memo->real) != NULL;
	}
	if (!memo->ok)
		return realpath(path, real);
	n = snprintf(real, PATH_MAX, "%s/%s", strcmp(memo->real, "/") ? memo->real : "", base);
	if (n < 0 || n >= PATH_MAX || readlink(real, &c, 1) >= 0 || errno != EINVAL)
		return realpath(path, real);
	return real; /* EINVAL: there, and not a link */
}

static int build_mounts(const struct request *req, const struct policy *pol, struct plan *p,
			struct verrors *e)
{
	struct real_parent memo = { .ok = false };
	size_t n_by_fd = 0;

	p->policy_binds = calloc(pol->n_binds + 1, sizeof(*p->policy_binds));
	p->mounts = calloc(req->n_mounts + 1, sizeof(*p->mounts));
	if (!p->policy_binds || !p->mounts)
		return -ENOMEM;
	for (size_t i = 0; i < pol->n_binds; i++) {
		char real[PATH_MAX];

		/* /etc/resolv.conf and friends are often symlinks; the helper
		 * binds only symlink-free paths, so bind where they point.
		 * A path the host lacks stays as it is and is skipped. */
		p->policy_binds[i].source =
			strdup(realpath_under(pol->binds[i].path, real, &memo) ? real
										 : pol->binds[i].path);
		p->policy_binds[i].target = strdup(pol->binds[i].path);
		p->policy_binds[i].exec = pol->binds[i].exec;
		p->n_policy_binds = i + 1;
		if (!p->policy_binds[i].source || !p->policy_binds[i].target)
			return -ENOMEM;
	}
	for (size_t i = 0; i < req->n_mounts; i++) {
		const struct req_mount *m = &req->mounts[i];
		char ptr[VERROR_POINTER_MAX], real[PATH_MAX];
		const char *why, *key = m->source_fd >= 0 ? "source_fd" : "source";
		int r;

		pointer_join_index(ptr, sizeof(ptr), "/mounts", i);
		if ((r = mount_source(req, m, ptr, real, e)) < 0)
			return r;
		if (m->source_fd >= 0 && ++n_by_fd > REQ_MAX_SOURCE_FDS)
			return verror_add_key(e, BAD, ptr, "source_fd",
					      "more than 16 binds of descriptors");
		if (!policy_takes_mount(pol, real, m)) {
			verror_add(e, VIOLATION, ptr, "not allowed by the policy");
			verror_given(e, "%s", m->overlay ? "overlay" : m->rw ? "rw" : "ro");
			policy_accept_mounts(e, pol);
			return -EINVAL;
		}
		if ((why = bind_source_refusal(real)))
			return verror_add_key(e, VIOLATION, ptr, key, why);
		/* An overlay's lower layer is idmapped too: the jail would read
		 * as the owner what the owner keeps from others. */
		if ((m->rw || m->overlay) && geteuid() == 0 && (why = bind_owner_refusal(real)))
			return verror_add_key(e, VIOLATION, ptr, key, why);
		if (!narrow_target_ok(pol, m->target))
			return verror_add_key(e, BAD, ptr, "target", "reserved path");
		for (size_t k = 0; k < i; k++)
			if (strcmp(req->mounts[k].target, m->target) == 0)
				return verror_add_key(e, BAD, ptr, "target", "duplicate target");
		if (m->overlay && !is_directory(real))
			return verror_add_key(e, BAD, ptr, "source",
					      "an overlay's source must be a directory");
		p->mounts[i].source = strdup(real);
		p->mounts[i].target = strdup(m->target);
		p->mounts[i].rw = m->rw;
		p->mounts[i].overlay = m->overlay;
		p->mounts[i].by_fd = m->source_fd >= 0;
		p->mounts[i].fd = m->source_fd >= 0 ? req->origin->fds[m->source_fd] : -1;
		p->mounts[i].exec = pol->request_exec; /* false: request binds never execute */
		p->n_mounts = i + 1;
		if (!p->mounts[i].source || !p->mounts[i].target)
			return -ENOMEM;
	}
	return 0;
}

static int build_files(const struct request *req, const struct policy *pol, struct plan *p,
		       struct verrors *e)
{
	uint64_t total = 0;

	if (req->n_files > pol->files_max_count) {
		verror_add(e, VIOLATION, "/files", "more files than the policy allows");
		verror_given(e, "%zu files", req->n_files);
		verror_accept(e, "at most %" PRIu64 " files", pol->files_max_count);
		return -EINVAL;
	}
	for (size_t i = 0; i < req->n_files; i++)
		total += req->files[i].len;
	if (total > pol->files_max_bytes) {
		verror_add(e, VIOLATION, "/files", "larger than the policy allows");
		verror_given(e, "%" PRIu64 " bytes", total);
		verror_accept(e, "at most %" PRIu64 " bytes in all", pol->files_max_bytes);
		return -EINVAL;
	}
	p->files = calloc(req->n_files + 1, sizeof(*p->files));
	if (!p->files)
		return -ENOMEM;
	for (size_t i = 0; i < req->n_files; i++) {
		p->files[i].name = strdup(req->files[i].name);
		p->files[i].data = malloc(req->files[i].len + 1);
		p->n_files = i + 1;
		if (!p->files[i].name || !p->files[i].data)
			return -ENOMEM;
		memcpy(p->files[i].data, req->files[i].data, req->files[i].len);
		p->files[i].len = req->files[i].len;
	}
	if (req->n_collect > pol->collect_max_count) {
		verror_add(e, VIOLATION, "/collect", "more files than the policy allows");
		verror_given(e, "%zu names", req->n_collect);
		verror_accept(e, "at most %" PRIu64 " names", pol->collect_max_count);
		return -EINVAL;
	}
	p->collect = strv_copy(req->collect, req->n_collect);
	if (!p->collect)
		return -ENOMEM;
	p->n_collect = req->n_collect;
	p->collect_max_bytes = pol->collect_max_bytes;
	p->collect_max_count = pol->collect_max_count;
	return 0;
}

/* Each limit: the request's, else the policy's default, never above the
 * policy's maximum (said with the range accepted). */
static int fill_limits(const struct request *req, const struct policy *pol, struct plan *p,
		       struct verrors *e)
{
	uint64_t *lim[LIM_COUNT] = {
		[LIM_WALL_MS] = &p->limits.wall_ms,
		[LIM_CPU_MS] = &p->limits.cpu_ms,
		[LIM_IDLE_MS] = &p->limits.idle_ms,
		[LIM_MEMORY_BYTES] = &p->limits.memory_bytes,
		[LIM_STDOUT_BYTES] = &p->limits.stdout_bytes,
		[LIM_STDERR_BYTES] = &p->limits.stderr_bytes,
		[LIM_FILE_SIZE_BYTES] = &p->limits.file_size_bytes,
		[LIM_PROCESSES] = &p->limits.processes,
		[LIM_OPEN_FILES] = &p->limits.open_files,
		[LIM_TMP_BYTES] = &p->limits.tmp_bytes,
		[LIM_WORK_BYTES] = &p->limits.work_bytes,
		[LIM_TMP_INODES] = &p->limits.tmp_inodes,
		[LIM_WORK_INODES] = &p->limits.work_inodes,
		[LIM_OVERLAY_BYTES] = &p->limits.overlay_bytes,
		[LIM_OVERLAY_INODES] = &p->limits.overlay_inodes,
	};

	for (int i = 0; i < LIM_COUNT; i++) {
		uint64_t v = req->limit_set[i] ? req->limits[i] : pol->limits[i].def;

		if (v > pol->limits[i].max) {
			char ptr[VERROR_POINTER_MAX];

			pointer_join_key(ptr, sizeof(ptr), "/limits", limit_defs[i].name);
			verror_add(e, VIOLATION, ptr, "above the policy's maximum");
			verror_detail(e, "%" PRIu64, pol->limits[i].max);
			verror_given(e, "%" PRIu64, v);
			verror_accept(e, "%" PRIu64 " to %" PRIu64, limit_defs[i].min, pol->limits[i].max);
			return -EINVAL;
		}
		*lim[i] = v;
	}
	p->memory_max = pol->limits[LIM_MEMORY_BYTES].max;
	return 0;
}

static int fill(const struct request *req, const struct policy *pol, struct plan *p,
		struct verrors *e)
{
	int r;

	if ((r = fill_limits(req, pol, p, e)) < 0)
		return r;
	p->network = req->network_set ? req->network : pol->net_default;
	if (!pol->net_allowed[p->network]) {
		verror_add(e, VIOLATION, "/network", "not allowed by the policy");
		verror_given(e, "%s", net_mode_name(p->network));
		policy_accept_network(e, pol);
		return -EINVAL;
	}
	if (!(p->argv = strv_copy(req->argv, req->argc)))
		return -ENOMEM;
	p->argc = req->argc;
	if ((r = build_env(req, pol, p, e)) < 0 || (r = narrow_proxy(req, pol, p, e)) < 0 ||
	    (r = build_mounts(req, pol, p, e)) < 0 ||
	    (!(req->origin && req->origin->masks_later) && (r = masks_resolve(req, pol, p, e)) < 0) ||
	    (r = build_files(req, pol, p, e)) < 0)
		return r;
	p->work_dir = strdup(pol->work_dir);
	p->cwd = strdup(req->cwd ? req->cwd : pol->work_dir);
	p->hostname = strdup(pol->hostname);
	if (!p->work_dir || !p->cwd || !p->hostname)
		return -ENOMEM;
	if (req->stdin_given) {
		p->stdin_given = true;
		p->stdin_data = malloc(req->stdin_len + 1);
		if (!p->stdin_data)
			return -ENOMEM;
		memcpy(p->stdin_data, req->stdin_data, req->stdin_len);
		p->stdin_len = req->stdin_len;
	}
	p->stdout_mode = req->stdout_mode_set ? req->stdout_mode : STDOUT_STREAM;
	p->usr_symlinks = pol->usr_symlinks;
	p->work_exec = pol->writable_exec;
	p->seccomp = pol->seccomp_mode;
	if (pol->n_syscalls && !(p->seccomp_names = strv_copy(pol->syscalls, pol->n_syscalls)))
		return -ENOMEM;
	p->n_seccomp_names = pol->n_syscalls;
	p->allow_ptrace = pol->allow_ptrace;
	p->landlock = pol->landlock;
	p->jail_uid = pol->uid;
	p->jail_gid = pol->gid;
	p->partial_output = pol->partial_output;
	p->overflow_truncate = pol->overflow_truncate;
	p->keep_partial = req->keep_partial;
	p->export_changes = req->export_changes;
	p->require_cgroup = (pol->requires & REQ_CGROUP) != 0;
	/* Said here, before any jail: the helper's chdir would fail with 71,
	 * which reads as a refused jail. */
	if (!jail_path_dir_exists(p, p->cwd))
		return verror_add(e, BAD, "/cwd", "no such directory in the jail, which has the "
				  "working directory, /tmp and the binds' directories (bind one "
				  "there with --ro or --rw)");
	return 0;
}

int narrow(const struct request *req, const struct policy *pol, struct plan *ret,
	   struct verrors *e)
{
	struct plan p = { 0 };
	int r = fill(req, pol, &p, e);

	if (r < 0) {
		if (r != -EINVAL || e->n == 0)
			verror_add(e, HUTCH_ERR_INTERNAL, "", "out of memory");
		plan_free(&p);
		return -EINVAL;
	}
	*ret = p;
	return 0;
}
