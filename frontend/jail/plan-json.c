/* plan-json.c: see plan-json.h. Shows the exact mount list the helper
 * would get (the same layout_build the run uses), limits, namespaces, the
 * seccomp summary and the environment. Frontend only. */
#include "config.h"

#include <unistd.h>

#include "doc/syscall-names.h"
#include "jail/layout.h"
#include "jail/plan-json.h"

static const char *kind_name(uint8_t k)
{
	switch ((enum hutch_mount_kind)k) {
	case HUTCH_MOUNT_BIND: return "bind";
	case HUTCH_MOUNT_TMPFS: return "tmpfs";
	case HUTCH_MOUNT_PROC: return "proc";
	case HUTCH_MOUNT_SYMLINK: return "symlink";
	case HUTCH_MOUNT_FILE: return "file";
	case HUTCH_MOUNT_DIR: return "dir";
	case HUTCH_MOUNT_DEVPTS: return "devpts";
	case HUTCH_MOUNT_OVERLAY: return "overlay";
	case HUTCH_MOUNT_HIDE: return "hide";
	case HUTCH_MOUNT_READONLY: return "read_only";
	case HUTCH_MOUNT_PIN: return "pin";
	case HUTCH_MOUNT_KIND_MAX: break;
	}
	return "unknown";
}

static struct json_object *jstrv(char *const *v, size_t n)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	return a;
}

/* The jail's mounts as the layout would make them. */
static struct json_object *jmount(const struct spec_mount *m)
{
	struct json_object *mj = json_object_new_object();

	json_object_object_add(mj, "kind", json_object_new_string(kind_name(m->kind)));
	json_object_object_add(mj, "target", json_object_new_string(m->target));
	if (m->kind == HUTCH_MOUNT_BIND || m->kind == HUTCH_MOUNT_SYMLINK ||
	    m->kind == HUTCH_MOUNT_OVERLAY)
		json_object_object_add(mj, "source", json_object_new_string(m->source));
	if (m->kind == HUTCH_MOUNT_TMPFS || m->kind == HUTCH_MOUNT_OVERLAY) /* an overlay's upper */
		json_object_object_add(mj, "size_bytes", json_object_new_int64((int64_t)m->size_bytes));
	if (m->kind == HUTCH_MOUNT_OVERLAY)
		json_object_object_add(mj, "inodes", json_object_new_int64((int64_t)m->inodes));
	if (m->kind == HUTCH_MOUNT_FILE)
		json_object_object_add(mj, "bytes", json_object_new_int64(m->data_len));
	if (m->kind == HUTCH_MOUNT_BIND || m->kind == HUTCH_MOUNT_TMPFS) {
		json_object_object_add(mj, "writable", json_object_new_boolean(m->flags & HUTCH_MF_RW));
		json_object_object_add(mj, "exec", json_object_new_boolean(m->flags & HUTCH_MF_EXEC));
	}
	if (m->flags & HUTCH_MF_IDMAP) /* a root caller's --rw bind */
		json_object_object_add(mj, "idmapped", json_object_new_boolean(true));
	return mj;
}

static struct json_object *jmounts(const struct plan *plan, bool root)
{
	struct json_object *a = json_object_new_array();
	struct layout l;

	if (layout_build(plan, root, NULL, 0, &l) == 0) {
		for (uint32_t i = 0; i < l.sp.n_mounts; i++)
			json_object_array_add(a, jmount(&l.mounts[i]));
		layout_free(&l);
	}
	return a;
}

struct json_object *plan_to_json(const struct plan *plan, const struct policy *pol)
{
	struct json_object *o = json_object_new_object(), *x, *a;
	bool root = geteuid() == 0;

	json_object_object_add(o, "policy", json_object_new_string(pol->name));
	json_object_object_add(o, "digest", plan->digest ? json_object_new_string(plan->digest) : NULL);
	json_object_object_add(o, "argv", jstrv(plan->argv, plan->argc));
	json_object_object_add(o, "env", jstrv(plan->envp, plan->envc));
	json_object_object_add(o, "cwd", json_object_new_string(plan->cwd));
	x = json_object_new_object();
	json_object_object_add(x, "wall_ms", json_object_new_int64((int64_t)plan->limits.wall_ms));
	json_object_object_add(x, "cpu_ms", json_object_new_int64((int64_t)plan->limits.cpu_ms));
	json_object_object_add(x, "idle_ms", json_object_new_int64((int64_t)plan->limits.idle_ms));
	json_object_object_add(x, "memory_bytes", json_object_new_int64((int64_t)plan->limits.memory_bytes));
	json_object_object_add(x, "stdout_bytes", json_object_new_int64((int64_t)plan->limits.stdout_bytes));
	json_object_object_add(x, "stderr_bytes", json_object_new_int64((int64_t)plan->limits.stderr_bytes));
	json_object_object_add(x, "file_size_bytes", json_object_new_int64((int64_t)plan->limits.file_size_bytes));
	json_object_object_add(x, "processes", json_object_new_int64((int64_t)plan->limits.processes));
	json_object_object_add(x, "open_files", json_object_new_int64((int64_t)plan->limits.open_files));
	json_object_object_add(x, "tmp_bytes", json_object_new_int64((int64_t)plan->limits.tmp_bytes));
	json_object_object_add(x, "work_bytes", json_object_new_int64((int64_t)plan->limits.work_bytes));
	json_object_object_add(x, "tmp_inodes", json_object_new_int64((int64_t)plan->limits.tmp_inodes));
	json_object_object_add(x, "work_inodes", json_object_new_int64((int64_t)plan->limits.work_inodes));
	json_object_object_add(x, "overlay_bytes", json_object_new_int64((int64_t)plan->limits.overlay_bytes));
	json_object_object_add(x, "overlay_inodes", json_object_new_int64((int64_t)plan->limits.overlay_inodes));
	json_object_object_add(o, "limits", x);
	a = json_object_new_array();
	json_object_array_add(a, json_object_new_string("user"));
	json_object_array_add(a, json_object_new_string("mount"));
	json_object_array_add(a, json_object_new_string("pid"));
	if (plan->network != NET_HOST)
		json_object_array_add(a, json_object_new_string("net"));
	json_object_array_add(a, json_object_new_string("ipc"));
	json_object_array_add(a, json_object_new_string("uts"));
	json_object_array_add(a, json_object_new_string("cgroup"));
	json_object_object_add(o, "namespaces", a);
	json_object_object_add(o, "network", json_object_new_string(net_mode_name(plan->network)));
	if (plan->network == NET_PROXY) {
		x = json_object_new_object();
		json_object_object_add(x, "allow", jstrv(plan->proxy.allow, plan->proxy.n_allow));
		json_object_object_add(x, "allow_private",
				       json_object_new_boolean(plan->proxy.allow_private));
		json_object_object_add(o, "proxy", x);
	}
	x = json_object_new_object();
	json_object_object_add(x, "uid", json_object_new_int64(root ? plan->jail_uid : getuid()));
	json_object_object_add(x, "gid", json_object_new_int64(root ? plan->jail_gid : getgid()));
	json_object_object_add(o, "user", x);
	x = json_object_new_object();
	json_object_object_add(x, "mode", json_object_new_string(seccomp_mode_name(plan->seccomp)));
	json_object_object_add(x, "syscalls", jstrv(plan->seccomp_names, plan->n_seccomp_names));
	a = json_object_new_array();
	for (size_t i = 0; syscall_default_deny[i]; i++)
		json_object_array_add(a, json_object_new_string(syscall_default_deny[i]));
	json_object_object_add(x, "always_denied", a);
	json_object_object_add(x, "allow_ptrace", json_object_new_boolean(plan->allow_ptrace));
	json_object_object_add(o, "seccomp", x);
	json_object_object_add(o, "landlock", json_object_new_string(landlock_mode_name(plan->landlock)));
	json_object_object_add(o, "mounts", jmounts(plan, root));
	json_object_object_add(o, "collect", jstrv(plan->collect, plan->n_collect));
	json_object_object_add(o, "stdout_mode", json_object_new_string(plan->stdout_mode == STDOUT_FRAME ? "frame" : "stream"));
	json_object_object_add(o, "partial_output", json_object_new_boolean(plan->partial_output));
	json_object_object_add(o, "keep_partial", json_object_new_boolean(plan->keep_partial));
	return o;
}
