/* explain-grant.c: --explain's words and fragments (see explain.h). For
 * each event, the smallest piece of a request or policy document that
 * would grant it, worked out from the plan's layout (jail/jail-path.c);
 * the run's seccomp denials join as events of their own. Fragments are
 * advice printed for a human, never applied. Frontend only. */
#include "config.h"

#include <errno.h>
#include <json-c/json.h>
#include <limits.h>
#include <linux/audit.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "status.h"
#include "doc/path-util.h"
#include "doc/policy.h"
#include "jail/jail-path.h"
#include "run/explain.h"

#define X32_BIT 0x40000000u

/* The fragment as one line of JSON into ev->grant; json-c escapes. */
static void set_grant(struct explain_event *ev, struct json_object *frag)
{
	const char *t = frag ? json_object_to_json_string_ext(frag, JSON_C_TO_STRING_PLAIN |
								     JSON_C_TO_STRING_NOSLASHESCAPE)
			     : NULL;

	if (t && strlen(t) < sizeof(ev->grant))
		snprintf(ev->grant, sizeof(ev->grant), "%s", t);
	json_object_put(frag);
}

/* {"KEY": {"MEMBER": v}} */
static struct json_object *nest(const char *key, const char *member, struct json_object *v)
{
	struct json_object *o = json_object_new_object(), *in = json_object_new_object();

	json_object_object_add(in, member, v);
	json_object_object_add(o, key, in);
	return o;
}

/* {"filesystem": {"binds": [{"path": P, "exec": E}]}}: a policy's bind. */
static struct json_object *policy_bind(const char *path, bool exec)
{
	struct json_object *b = json_object_new_object(), *a = json_object_new_array();

	json_object_object_add(b, "path", json_object_new_string(path));
	json_object_object_add(b, "exec", json_object_new_boolean(exec));
	json_object_array_add(a, b);
	return nest("filesystem", "binds", a);
}

/* {"mounts": [{"source": S, "target": T, "mode": M}]}: a request's bind. */
static struct json_object *request_bind(const char *source, const char *target, const char *mode)
{
	struct json_object *o = json_object_new_object(), *m = json_object_new_object();
	struct json_object *a = json_object_new_array();

	json_object_object_add(m, "source", json_object_new_string(source));
	json_object_object_add(m, "target", json_object_new_string(target));
	json_object_object_add(m, "mode", json_object_new_string(mode));
	json_object_array_add(a, m);
	json_object_object_add(o, "mounts", a);
	return o;
}

/* Where no request bind may go (jail/narrow.c narrow_target_ok). */
static bool reserved(const struct plan *plan, const char *path)
{
	static const char *const dirs[] = { "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64",
					    "/libx32", "/usr", "/dev", "/proc", NULL };

	for (size_t i = 0; dirs[i]; i++)
		if (path_at_or_below(path, dirs[i]))
			return true;
	return strcmp(path, "/") == 0 || strcmp(path, "/tmp") == 0 ||
	       path_at_or_below(path, plan->work_dir);
}

/* The resolver's configuration, missing from a jail without the host's
 * network: binding it would resolve names to addresses the jail cannot
 * reach. What reaches a host is the proxy (hutch(1), THE JAIL). */
static bool grant_resolver(const struct plan *plan, struct explain_event *ev)
{
	struct json_object *o, *a;

	if (strcmp(ev->path, "/etc/resolv.conf") != 0 || plan->network == NET_HOST)
		return false;
	if (plan->network == NET_PROXY) {
		snprintf(ev->why, sizeof(ev->why), "a name looked up in the jail: there is no DNS "
						   "under network proxy; a tool must use the proxy "
						   "(HTTPS_PROXY), which resolves the names it may reach");
		return true;
	}
	snprintf(ev->why, sizeof(ev->why), "a name looked up in the jail, whose network is %s: "
					   "nothing outside it is reachable; --network proxy "
					   "--allow-host NAME reaches a host where the policy allows proxy",
		 net_mode_name(plan->network));
	o = json_object_new_object();
	a = json_object_new_array();
	json_object_array_add(a, json_object_new_string("NAME:443"));
	json_object_object_add(o, "network", json_object_new_string("proxy"));
	json_object_object_add(o, "allow_hosts", a);
	set_grant(ev, o);
	return true;
}

/* Not in the jail, on the host: a bind of the host file's directory.
 * explain.c found the path with no link followed; a final link is not
 * followed here either (the jail may have written it, in the source of
 * an rw bind under that very path), so it gets words and no grant. */
static void grant_missing(const struct plan *plan, struct explain_event *ev)
{
	char dir[EXPLAIN_PATH_MAX];
	struct stat st;
	char *slash;

	if (grant_resolver(plan, ev))
		return;
	if (ev->path_cut)
		return;
	if (lstat(ev->path, &st) == 0 && S_ISLNK(st.st_mode)) {
		snprintf(ev->why, sizeof(ev->why), "not in the jail; on the host it is a symbolic "
						   "link, which --explain does not follow");
		return;
	}
	snprintf(dir, sizeof(dir), "%s", ev->path);
	slash = strrchr(dir, '/');
	if (slash && slash != dir)
		*slash = '\0';
	if (strncmp(ev->call, "execve", 6) == 0) {
		snprintf(ev->why, sizeof(ev->why), "not in the jail; the host has it: a policy "
						   "bind of its directory, with exec, grants it");
		set_grant(ev, policy_bind(dir, true));
	} else if (reserved(plan, dir)) {
		snprintf(ev->why, sizeof(ev->why), "not in the jail; the host has it: a policy "
						   "bind grants it (a request may not bind there)");
		set_grant(ev, policy_bind(ev->path, false));
	} else {
		snprintf(ev->why, sizeof(ev->why), "not in the jail; the host has it: a read-only "
						   "bind of its directory grants it (--ro)");
		set_grant(ev, request_bind(dir, dir, "ro"));
	}
}

static void grant_noexec(const struct plan *plan, struct explain_event *ev)
{
	struct jail_where w;

	jail_path_where(plan, ev->path, &w);
	switch (w.src) {
	case JAIL_SRC_TMP:
	case JAIL_SRC_WORK:
		snprintf(ev->why, sizeof(ev->why), "executed from %.80s, which is mounted without "
						   "exec (the build policy allows it)", w.mount);
		set_grant(ev, nest("filesystem", "writable_exec", json_object_new_boolean(true)));
		return;
	case JAIL_SRC_REQUEST_BIND:
		snprintf(ev->why, sizeof(ev->why), "executed from the request bind at %.80s; request "
						   "binds are mounted without exec (the build policy "
						   "allows it)", w.mount);
		set_grant(ev, nest("filesystem", "request_exec", json_object_new_boolean(true)));
		return;
	case JAIL_SRC_POLICY_BIND:
		snprintf(ev->why, sizeof(ev->why), "executed from the policy's bind of %.80s, "
						   "which is mounted without exec", w.mount);
		set_grant(ev, policy_bind(w.mount, true));
		return;
	case JAIL_SRC_ROOT:
	case JAIL_SRC_USR_LINK:
	case JAIL_SRC_KERNEL:
		break;
	}
	snprintf(ev->why, sizeof(ev->why), "executed from a mount without exec; no policy "
					   "setting grants it");
}

static void grant_read_only(const struct plan *plan, struct explain_event *ev)
{
	struct jail_where w;
	size_t below;

	jail_path_where(plan, ev->path, &w);
	if (w.src != JAIL_SRC_REQUEST_BIND) {
		snprintf(ev->why, sizeof(ev->why), "opened for writing on a read-only mount; "
						   "only /tmp, the working directory and --rw binds "
						   "are writable");
		return;
	}
	/* The bind's own source: the host path less what lies below it. */
	below = strlen(ev->path) - strlen(w.mount);
	if (strlen(w.host) >= below)
		w.host[strlen(w.host) - below] = '\0';
	snprintf(ev->why, sizeof(ev->why), "opened for writing on the read-only request bind at "
					   "%.80s (--rw grants it)", w.mount);
	set_grant(ev, request_bind(w.host, w.mount, "rw"));
}

static bool in_list(char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return false;
}

/* A seccomp denial's fragment: what the policy's seccomp section would
 * have to say instead. */
static void grant_denied(const struct plan *plan, struct explain_event *ev)
{
	struct json_object *a;

	if (plan->seccomp == SECCOMP_ALLOW_LIST) {
		a = json_object_new_array();
		json_object_array_add(a, json_object_new_string(ev->call));
		snprintf(ev->why, sizeof(ev->why), "refused by seccomp: not on the policy's allow "
						   "list; adding it to seccomp.syscalls grants it");
		set_grant(ev, nest("seccomp", "syscalls", a));
	} else if (!plan->allow_ptrace &&
		   (strcmp(ev->call, "ptrace") == 0 || strcmp(ev->call, "process_vm_readv") == 0)) {
		snprintf(ev->why, sizeof(ev->why), "refused by seccomp: ptrace is off");
		set_grant(ev, nest("seccomp", "allow_ptrace", json_object_new_boolean(true)));
	} else if (in_list(plan->seccomp_names, plan->n_seccomp_names, ev->call)) {
		a = json_object_new_array();
		for (size_t i = 0; i < plan->n_seccomp_names; i++)
			if (strcmp(plan->seccomp_names[i], ev->call) != 0)
				json_object_array_add(a, json_object_new_string(plan->seccomp_names[i]));
		snprintf(ev->why, sizeof(ev->why), "refused by seccomp: the policy's deny list "
						   "names it");
		set_grant(ev, nest("seccomp", "syscalls", a));
	} else {
		snprintf(ev->why, sizeof(ev->why), "refused by seccomp: on hutch's built-in deny "
						   "list, which no policy lifts");
	}
}

/* The denials, counted by supervise.c, as events. */
static void add_denials(struct outcome *o)
{
	struct explain_log *log = &o->explain;

	for (size_t i = 0; i < o->n_denials; i++) {
		const struct denial *dn = &o->denials[i];
		uint32_t arch = dn->arch == AUDIT_ARCH_I386 ? SCMP_ARCH_X86
				: (dn->nr & (int)X32_BIT) ? SCMP_ARCH_X32 : SCMP_ARCH_X86_64;
		char *name = seccomp_syscall_resolve_num_arch(arch, dn->nr);
		struct explain_event *ev;

		if (log->n >= EXPLAIN_EVENTS_MAX) {
			log->dropped++;
			free(name);
			continue;
		}
		ev = &log->events[log->n++];
		memset(ev, 0, sizeof(*ev));
		ev->kind = EXPLAIN_DENIED;
		ev->count = dn->count;
		snprintf(ev->call, sizeof(ev->call), "%s", name ? name : "(unknown)");
		free(name);
	}
	log->dropped += o->denials_other ? 1 : 0;
}

/* The command's own exec, when it failed for a reason --explain reports:
 * the failure record says so even where the listener could not read the
 * helper's memory. */
static void add_command_exec(const struct plan *plan, struct outcome *o)
{
	struct explain_log *log = &o->explain;
	char path[PATH_MAX];
	struct jail_where w;
	enum explain_kind kind;

	if (!o->have_record || o->record.stage != STAGE_EXEC ||
	    jail_command_path(plan, path, sizeof(path)) < 0 || strlen(path) >= EXPLAIN_PATH_MAX)
		return;
	jail_path_where(plan, path, &w);
	if (o->record.err == EACCES && !w.exec)
		kind = EXPLAIN_NOEXEC;
	else if (o->record.err == ENOENT && access(path, F_OK) == 0)
		kind = EXPLAIN_MISSING;
	else
		return;
	/* the listener may have seen this exec already: counted once */
	if (!explain_log_find(log, kind, path))
		explain_log_add(log, kind, "execve", path);
}

void explain_finish(const struct plan *plan, struct outcome *o)
{
	struct explain_log *log = &o->explain;

	if (!log->requested || !log->events)
		return;
	add_command_exec(plan, o);
	add_denials(o);
	for (size_t i = 0; i < log->n; i++) {
		struct explain_event *ev = &log->events[i];

		switch (ev->kind) {
		case EXPLAIN_MISSING:
			grant_missing(plan, ev);
			break;
		case EXPLAIN_NOEXEC:
			grant_noexec(plan, ev);
			break;
		case EXPLAIN_READ_ONLY:
			grant_read_only(plan, ev);
			break;
		case EXPLAIN_DENIED:
			grant_denied(plan, ev);
			break;
		}
	}
}
