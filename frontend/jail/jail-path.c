/* jail-path.c: a jail path's origin from the plan (see jail-path.h). It
 * mirrors layout.c's mount list: the deepest mount whose target holds the
 * path decides, request binds last as the helper mounts them. Host lookups
 * (stat) run as the caller; nothing here is a security decision, only
 * words and an early request error. Frontend only. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "doc/path-util.h"
#include "jail/jail-path.h"

int jail_path_clean(const char *path, char *out, size_t cap)
{
	size_t n = 0;
	const char *p = path;

	if (cap < 2 || path[0] != '/')
		return -EINVAL;
	out[0] = '/';
	n = 1;
	while (*p) {
		size_t len;

		while (*p == '/')
			p++;
		len = strcspn(p, "/");
		if (len == 0)
			break;
		if (len == 1 && p[0] == '.') {
			/* nothing */
		} else if (len == 2 && p[0] == '.' && p[1] == '.') {
			while (n > 1 && out[n - 1] != '/')
				n--;
			if (n > 1)
				n--;
		} else {
			if (n + (n > 1) + len + 1 > cap)
				return -ENAMETOOLONG;
			if (n > 1)
				out[n++] = '/';
			memcpy(out + n, p, len);
			n += len;
		}
		p += len;
	}
	out[n] = '\0';
	return 0;
}

static void command_path(const struct plan *plan, const char *cmd, char *out, size_t cap);

static bool host_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* A candidate mount: taken when its target holds path and is deeper than
 * the one found so far (later mounts win at equal depth, as they cover). */
static void consider(struct jail_where *w, size_t *depth, const char *path, const char *target,
		     enum jail_source src, bool exec, const char *host_source)
{
	size_t len = strlen(target);

	if (!path_at_or_below(path, target) || len < *depth)
		return;
	*depth = len;
	w->src = src;
	w->exec = exec;
	snprintf(w->mount, sizeof(w->mount), "%s", target);
	w->host[0] = '\0';
	if (host_source)
		snprintf(w->host, sizeof(w->host), "%s%s", host_source,
			 strcmp(target, "/") == 0 ? path : path + len);
}

/* Whether path is a mount target of plan or leads to one. */
static bool leads_to_mount(const struct plan *plan, const char *path)
{
	for (size_t i = 0; i < plan->n_policy_binds; i++)
		if (path_at_or_below(plan->policy_binds[i].target, path) &&
		    host_exists(plan->policy_binds[i].source))
			return true;
	for (size_t i = 0; i < plan->n_mounts; i++)
		if (path_at_or_below(plan->mounts[i].target, path))
			return true;
	return path_at_or_below("/tmp", path) || path_at_or_below(plan->work_dir, path) ||
	       path_at_or_below("/etc", path) || path_at_or_below("/dev", path) ||
	       path_at_or_below("/proc", path);
}

static void where_clean(const struct plan *plan, const char *path, struct jail_where *w)
{
	static const char *const usr_dirs[] = { "/bin", "/sbin", "/lib", "/lib32", "/lib64",
						"/libx32" };
	size_t depth = 0;

	memset(w, 0, sizeof(*w));
	w->src = JAIL_SRC_ROOT;
	snprintf(w->mount, sizeof(w->mount), "/");
	for (size_t i = 0; i < plan->n_policy_binds; i++)
		if (host_exists(plan->policy_binds[i].source)) /* else the helper skips it */
			consider(w, &depth, path, plan->policy_binds[i].target, JAIL_SRC_POLICY_BIND,
				 plan->policy_binds[i].exec, plan->policy_binds[i].source);
	for (size_t i = 0; plan->usr_symlinks && i < sizeof(usr_dirs) / sizeof(usr_dirs[0]); i++)
		if (host_exists(usr_dirs[i]))
			consider(w, &depth, path, usr_dirs[i], JAIL_SRC_USR_LINK, true, usr_dirs[i]);
	consider(w, &depth, path, "/proc", JAIL_SRC_KERNEL, false, NULL);
	consider(w, &depth, path, "/dev", JAIL_SRC_KERNEL, false, NULL);
	consider(w, &depth, path, "/tmp", JAIL_SRC_TMP, plan->work_exec, NULL);
	consider(w, &depth, path, plan->work_dir, JAIL_SRC_WORK, plan->work_exec, NULL);
	for (size_t i = 0; i < plan->n_mounts; i++)
		consider(w, &depth, path, plan->mounts[i].target, JAIL_SRC_REQUEST_BIND,
			 plan->mounts[i].exec, plan->mounts[i].source);
	w->is_mount_point = leads_to_mount(plan, path);
}

void jail_path_where(const struct plan *plan, const char *path, struct jail_where *ret)
{
	char clean[PATH_MAX];

	if (jail_path_clean(path, clean, sizeof(clean)) < 0)
		snprintf(clean, sizeof(clean), "/");
	where_clean(plan, clean, ret);
}

bool jail_path_dir_exists(const struct plan *plan, const char *path)
{
	struct jail_where w;
	struct stat st;

	jail_path_where(plan, path, &w);
	if (w.is_mount_point)
		return true;
	switch (w.src) {
	case JAIL_SRC_POLICY_BIND:
	case JAIL_SRC_REQUEST_BIND:
	case JAIL_SRC_USR_LINK:
		return stat(w.host, &st) == 0 && S_ISDIR(st.st_mode);
	case JAIL_SRC_KERNEL:
		return true; /* /proc/self...: the kernel's to say */
	case JAIL_SRC_ROOT:
	case JAIL_SRC_TMP:
	case JAIL_SRC_WORK:
		return false; /* empty at the start but for files and mount points */
	}
	return false;
}

int jail_command_path(const struct plan *plan, char *out, size_t cap)
{
	if (!plan->argc || !strchr(plan->argv[0], '/'))
		return -ENOENT;
	command_path(plan, plan->argv[0], out, cap);
	return 0;
}

/* The command's path in the jail: argv[0] itself, or under the cwd. */
static void command_path(const struct plan *plan, const char *cmd, char *out, size_t cap)
{
	char joined[PATH_MAX * 2];

	snprintf(joined, sizeof(joined), "%s/%s", cmd[0] == '/' ? "" : plan->cwd, cmd);
	if (jail_path_clean(joined, out, cap) < 0)
		snprintf(out, cap, "/");
}

/* Whether the jail shows a file at path when it starts (tmpfs contents
 * are unknown here: the staged files only). */
static bool jail_has(const struct plan *plan, const char *path, struct jail_where *w)
{
	jail_path_where(plan, path, w);
	switch (w->src) {
	case JAIL_SRC_POLICY_BIND:
	case JAIL_SRC_REQUEST_BIND:
	case JAIL_SRC_USR_LINK:
		return host_exists(w->host);
	case JAIL_SRC_WORK:
		for (size_t i = 0; i < plan->n_files; i++) {
			char staged[PATH_MAX];

			snprintf(staged, sizeof(staged), "%s/%s", plan->work_dir, plan->files[i].name);
			if (strcmp(staged, path) == 0)
				return true;
		}
		return false;
	case JAIL_SRC_KERNEL:
	case JAIL_SRC_TMP:
	case JAIL_SRC_ROOT:
		return false;
	}
	return false;
}

/* EACCES where the file is: the mount without exec and what allows it. */
static int say_noexec(const struct jail_where *w, char *buf, size_t cap)
{
	switch (w->exec ? JAIL_SRC_ROOT : w->src) {
	case JAIL_SRC_TMP:
	case JAIL_SRC_WORK:
		snprintf(buf, cap, "the command is on %s, which is mounted without exec; "
				   "\"filesystem\": {\"writable_exec\": true} in a policy allows it "
				   "(the build policy sets it)", w->mount);
		return 0;
	case JAIL_SRC_REQUEST_BIND:
		snprintf(buf, cap, "the command is on the request bind at %s, and request binds "
				   "are mounted without exec; \"filesystem\": {\"request_exec\": true} "
				   "in a policy allows it (the build policy sets it)", w->mount);
		return 0;
	case JAIL_SRC_POLICY_BIND:
		snprintf(buf, cap, "the command is on the policy's bind of %s, which is mounted "
				   "without exec; \"exec\": true on that bind in the policy allows it",
			 w->mount);
		return 0;
	case JAIL_SRC_ROOT:
	case JAIL_SRC_USR_LINK:
	case JAIL_SRC_KERNEL:
		break;
	}
	snprintf(buf, cap, "permission denied: the file is not executable by the jail's user");
	return 0;
}

/* The first directory of a PATH-like list (':'-separated) whose entry
 * name passes test; its path into out. */
static bool search_list(const char *list, const char *name, char *out, size_t cap,
			bool (*test)(const char *path, void *arg), void *arg)
{
	for (const char *p = list; p && *p;) {
		size_t n = strcspn(p, ":");

		if (n > 0 && p[0] == '/' && (size_t)snprintf(out, cap, "%.*s/%s", (int)n, p, name) < cap &&
		    test(out, arg))
			return true;
		p += n;
		if (*p == ':')
			p++;
	}
	return false;
}

struct search_ctx {
	const struct plan *plan;
	struct jail_where w;
};

static bool in_jail(const char *path, void *arg)
{
	struct search_ctx *s = arg;

	return jail_has(s->plan, path, &s->w);
}

/* On the host, executable, and not shown by the jail at that path. */
static bool host_only(const char *path, void *arg)
{
	struct search_ctx *s = arg;
	struct jail_where w;

	return access(path, X_OK) == 0 && !jail_has(s->plan, path, &w);
}

static const char *jail_path_var(const struct plan *plan)
{
	for (size_t i = 0; i < plan->envc; i++)
		if (strncmp(plan->envp[i], "PATH=", 5) == 0)
			return plan->envp[i] + 5;
	return "/usr/local/bin:/usr/bin:/bin"; /* helper/exec.c's default */
}

/* ENOENT for a name searched on PATH; which directory of the host has it. */
static int say_not_on_path(const struct plan *plan, const char *cmd, char *buf, size_t cap)
{
	struct search_ctx s = { .plan = plan };
	char found[PATH_MAX];
	char *slash;

	if (search_list(jail_path_var(plan), cmd, found, sizeof(found), in_jail, &s)) {
		snprintf(buf, cap, "not found: the command is on the jail's PATH, but its "
				   "interpreter (#! line or ELF loader) is not in the jail");
		return 0;
	}
	if (search_list(jail_path_var(plan), cmd, found, sizeof(found), host_only, &s) ||
	    search_list(getenv("PATH"), cmd, found, sizeof(found), host_only, &s)) {
		slash = strrchr(found, '/');
		*slash = '\0';
		snprintf(buf, cap, "not found on the jail's PATH; the host has it in %s, which the "
				   "jail lacks: bind that directory (--ro) or name the command by a "
				   "path inside the jail", found);
		return 0;
	}
	snprintf(buf, cap, "not found on the jail's PATH (nor on the host's)");
	return 0;
}

/* ENOENT for a command named by its path. */
static int say_not_at_path(const struct plan *plan, const char *jpath, char *buf, size_t cap)
{
	struct jail_where w;

	if (jail_has(plan, jpath, &w)) {
		snprintf(buf, cap, "not found: the file is in the jail, but its interpreter "
				   "(#! line or ELF loader) is not");
		return 0;
	}
	if (host_exists(jpath)) {
		snprintf(buf, cap, "not found in the jail; the host has a file at that path, "
				   "outside the jail's binds: bind its directory (--ro) where the "
				   "policy's mount rules allow");
		return 0;
	}
	snprintf(buf, cap, "not found in the jail (nor at that path on the host)");
	return 0;
}

int jail_exec_diagnose(const struct plan *plan, int err, char *buf, size_t cap)
{
	const char *cmd = plan->argc ? plan->argv[0] : NULL;
	struct search_ctx s = { .plan = plan };
	char jpath[PATH_MAX];

	if (!cmd || !cmd[0] || (err != ENOENT && err != EACCES))
		return -ENOENT;
	if (strchr(cmd, '/')) {
		command_path(plan, cmd, jpath, sizeof(jpath));
		if (err == ENOENT)
			return say_not_at_path(plan, jpath, buf, cap);
		jail_path_where(plan, jpath, &s.w);
		return say_noexec(&s.w, buf, cap);
	}
	if (err == ENOENT)
		return say_not_on_path(plan, cmd, buf, cap);
	/* EACCES on PATH: the first directory that shows the file says why. */
	if (search_list(jail_path_var(plan), cmd, jpath, sizeof(jpath), in_jail, &s))
		return say_noexec(&s.w, buf, cap);
	snprintf(buf, cap, "permission denied: a file of that name on the jail's PATH may not "
			   "be executed");
	return 0;
}
