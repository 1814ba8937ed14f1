/* layout.c: the jail's filesystem and process settings, built from a plan.
 * Mount order (hutch-exec enacts it as listed): the policy's read-only
 * binds (but those of the synthetic /etc files), the merged-/usr symlinks
 * as on the host, synthetic /etc files (passwd, group, hosts, nsswitch.conf),
 * /proc, a minimal /dev, /tmp, the working directory, the staged input
 * files, the request's binds, and last the masks inside them. Frontend only. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "hutch-abi.h"
#include "spec-compare.h"
#include "jail/layout.h"

static const char *keep(struct layout *l, char *s)
{
	if (!s)
		return NULL;
	if (l->n_strings >= sizeof(l->strings) / sizeof(l->strings[0])) {
		free(s);
		return NULL;
	}
	l->strings[l->n_strings++] = s;
	return s;
}

static struct spec_mount *add(struct layout *l, uint8_t kind, const char *target)
{
	struct spec_mount *m;

	if (l->sp.n_mounts >= HUTCH_SPEC_MAX_MOUNTS || !target)
		return NULL;
	m = &l->mounts[l->sp.n_mounts++];
	memset(m, 0, sizeof(*m));
	m->kind = kind;
	m->source = "";
	m->target = target;
	return m;
}

static int add_bind(struct layout *l, const char *source, const char *target, uint16_t flags)
{
	struct spec_mount *m = add(l, HUTCH_MOUNT_BIND, target);

	if (!m)
		return -E2BIG;
	m->source = source;
	m->flags = flags;
	return 0;
}

/* bytes and inodes both bound it: a tmpfs's size counts only pages, so
 * empty files would otherwise pin kernel memory without limit. */
static int add_tmpfs(struct layout *l, const char *target, uint32_t mode, uint64_t bytes,
		     uint64_t inodes, uint16_t flags)
{
	struct spec_mount *m = add(l, HUTCH_MOUNT_TMPFS, target);

	if (!m)
		return -E2BIG;
	m->mode = mode;
	m->size_bytes = bytes;
	m->inodes = inodes;
	m->flags = flags;
	return 0;
}

static int add_symlink(struct layout *l, const char *text, const char *target)
{
	struct spec_mount *m = add(l, HUTCH_MOUNT_SYMLINK, target);

	if (!m || !text)
		return -E2BIG;
	m->source = text;
	return 0;
}

static int add_file(struct layout *l, const char *target, const void *data, size_t len,
		    uint32_t mode)
{
	struct spec_mount *m = add(l, HUTCH_MOUNT_FILE, target);

	if (!m)
		return -E2BIG;
	m->data = data;
	m->data_len = (uint32_t)len;
	m->mode = mode;
	return 0;
}

/* /bin, /lib, /lib64, /sbin... as on the host: a symlink where the host has
 * one (merged /usr), a read-only bind where it has a directory. */
static int add_usr_links(struct layout *l)
{
	static const char *const dirs[] = { "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32" };
	int r = 0;

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]) && r == 0; i++) {
		char buf[4096];
		struct stat st;
		ssize_t n;

		if (lstat(dirs[i], &st) < 0)
			continue;
		if (S_ISLNK(st.st_mode)) {
			n = readlink(dirs[i], buf, sizeof(buf) - 1);
			if (n <= 0)
				continue;
			buf[n] = '\0';
			r = add_symlink(l, keep(l, strdup(buf)), dirs[i]);
		} else if (S_ISDIR(st.st_mode)) {
			r = add_bind(l, dirs[i], dirs[i], HUTCH_MF_EXEC | HUTCH_MF_OPTIONAL);
		}
	}
	return r;
}

/* passwd and group list root (getpwuid(0) must not fail: tarfile, id,
 * ls -l), the jail user and nobody; nsswitch.conf says "files" so that no
 * host NSS module (systemd, sss, ldap) is asked about the jail's users. */
static int etc_users(struct layout *l, const struct plan *plan, uint32_t uid, uint32_t gid,
		     char **passwd, char **group)
{
	const char *name = uid == HUTCH_DEFAULT_JAIL_ID ? "nobody" : "hutch";
	const char *gname = gid == HUTCH_DEFAULT_JAIL_ID ? "nogroup" : "hutch";
	_cleanup_free_ char *user = NULL, *ugroup = NULL;

	if (uid != 0 && asprintf(&user, "%s:x:%u:%u:hutch jail:%s:/bin/sh\n", name, uid, gid,
				 plan->work_dir) < 0)
		return -ENOMEM;
	if (gid != 0 && asprintf(&ugroup, "%s:x:%u:\n", gname, gid) < 0)
		return -ENOMEM;
	if (asprintf(passwd, "root:x:0:0:root:/root:/bin/sh\n%s%s", user ? user : "",
		     uid == HUTCH_DEFAULT_JAIL_ID ? ""
						  : "nobody:x:65534:65534:nobody:/:/usr/sbin/nologin\n") < 0)
		return -ENOMEM;
	if (!keep(l, *passwd))
		return -E2BIG;
	if (asprintf(group, "root:x:0:\n%s%s", ugroup ? ugroup : "",
		     gid == HUTCH_DEFAULT_JAIL_ID ? "" : "nogroup:x:65534:\n") < 0)
		return -ENOMEM;
	if (!keep(l, *group))
		return -E2BIG;
	return 0;
}

/* The /etc files hutch writes itself: a policy bind of one is skipped. */
static const char *const etc_synthetic[] = { "/etc/passwd", "/etc/group", "/etc/hosts",
					     "/etc/nsswitch.conf", NULL };

static bool is_synthetic(const char *target)
{
	for (size_t i = 0; etc_synthetic[i]; i++)
		if (strcmp(target, etc_synthetic[i]) == 0)
			return true;
	return false;
}

static int add_etc(struct layout *l, const struct plan *plan, uint32_t uid, uint32_t gid)
{
	static const char nsswitch[] = "passwd: files\ngroup: files\nshadow: files\n"
				       "hosts: files dns\nnetworks: files\nprotocols: files\n"
				       "services: files\nethers: files\nrpc: files\n";
	char *passwd = NULL, *group = NULL, *hosts = NULL;
	int r;

	if ((r = etc_users(l, plan, uid, gid, &passwd, &group)) < 0)
		return r;
	if (asprintf(&hosts, "127.0.0.1\tlocalhost %s\n::1\tlocalhost ip6-localhost\n",
		     plan->hostname) < 0)
		return -ENOMEM;
	if (!keep(l, hosts))
		return -E2BIG;
	if ((r = add_file(l, "/etc/passwd", passwd, strlen(passwd), 0644)) < 0 ||
	    (r = add_file(l, "/etc/group", group, strlen(group), 0644)) < 0 ||
	    (r = add_file(l, "/etc/hosts", hosts, strlen(hosts), 0644)) < 0 ||
	    (r = add_file(l, "/etc/nsswitch.conf", nsswitch, strlen(nsswitch), 0644)) < 0)
		return r;
	return 0;
}

static int add_devpts(struct layout *l)
{
	struct spec_mount *pts = add(l, HUTCH_MOUNT_DEVPTS, "/dev/pts");

	if (!pts)
		return -E2BIG;
	pts->mode = 0666;
	return add_symlink(l, "pts/ptmx", "/dev/ptmx");
}

/* null, zero, full, random, urandom bound from the host (a user namespace
 * cannot mknod); no block devices, no host tty, no /dev/mem. Terminals come
 * from a devpts instance of the jail's own at /dev/pts, whose ptmx the jail
 * user may open (/dev/ptmx links to it). /dev itself is a
 * directory of the root tmpfs, read-only with it; /dev/shm is /tmp, so
 * shared memory counts against /tmp's size and costs no tmpfs of its own. */
static int add_dev(struct layout *l)
{
	static const char *const nodes[] = { "/dev/null", "/dev/zero", "/dev/full", "/dev/random",
					      "/dev/urandom" };
	static const char *const links[][2] = {
		{ "/proc/self/fd", "/dev/fd" },	      { "/proc/self/fd/0", "/dev/stdin" },
		{ "/proc/self/fd/1", "/dev/stdout" }, { "/proc/self/fd/2", "/dev/stderr" },
		{ "/tmp", "/dev/shm" },
	};
	struct spec_mount *dir = add(l, HUTCH_MOUNT_DIR, "/dev");
	int r = dir ? 0 : -E2BIG;

	if (dir)
		dir->mode = 0755;
	for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]) && r == 0; i++)
		r = add_bind(l, nodes[i], nodes[i], HUTCH_MF_RW | HUTCH_MF_DEV);
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]) && r == 0; i++)
		r = add_symlink(l, links[i][0], links[i][1]);
	if (r == 0)
		r = add_devpts(l);
	return r;
}

static uint64_t ms_to_rlimit_seconds(uint64_t ms)
{
	return ms == 0 ? HUTCH_RLIM_INFINITY : (ms + 999) / 1000;
}

static uint64_t or_infinity(uint64_t v)
{
	return v == 0 ? HUTCH_RLIM_INFINITY : v;
}

/* Who the jail runs as, what it unshares and its limits: everything of
 * the spec but the mounts and the filter. */
static void layout_settings(struct layout *l, const struct plan *plan, bool is_root)
{
	l->sp.uid_inside = l->sp.uid_outside = is_root ? plan->jail_uid : (uint32_t)getuid();
	l->sp.gid_inside = l->sp.gid_outside = is_root ? plan->jail_gid : (uint32_t)getgid();
	l->sp.flags = HUTCH_SPEC_NS_PID | HUTCH_SPEC_NS_IPC | HUTCH_SPEC_NS_UTS | HUTCH_SPEC_NS_CGROUP;
	if (plan->network != NET_HOST)
		l->sp.flags |= HUTCH_SPEC_NS_NET;
	if (plan->network == NET_LOOPBACK || plan->network == NET_PROXY)
		l->sp.flags |= HUTCH_SPEC_NET_LOOPBACK;
	if (plan->network == NET_PROXY)
		l->sp.flags |= HUTCH_SPEC_NET_PROXY;
	if (plan->landlock != LANDLOCK_OFF)
		l->sp.flags |= HUTCH_SPEC_LANDLOCK;
	if (plan->landlock == LANDLOCK_REQUIRED)
		l->sp.flags |= HUTCH_SPEC_LANDLOCK_REQUIRED;
	if (plan->network == NET_NONE)
		l->sp.flags |= HUTCH_SPEC_LANDLOCK_NET;
	l->sp.rlimit[HUTCH_RLIM_AS] = or_infinity(plan->limits.memory_bytes);
	l->sp.rlimit[HUTCH_RLIM_CPU] = ms_to_rlimit_seconds(plan->limits.cpu_ms);
	/* 0 is a real limit here: no file may grow at all. */
	l->sp.rlimit[HUTCH_RLIM_FSIZE] = plan->limits.file_size_bytes;
	l->sp.rlimit[HUTCH_RLIM_NOFILE] = or_infinity(plan->limits.open_files);
	l->sp.rlimit[HUTCH_RLIM_NPROC] = or_infinity(plan->limits.processes);
	l->sp.hostname = plan->hostname;
	l->sp.cwd = plan->cwd;
	l->sp.argc = (uint32_t)plan->argc;
	l->sp.argv = plan->argv;
	l->sp.envc = (uint32_t)plan->envc;
	l->sp.envp = plan->envp;
}

/* A root caller's jail runs as the policy's user, not as the caller: its
 * --rw binds are idmapped so that user acts as each bind's owner there
 * (hutch-exec's idmap.c). An unprivileged caller's jail is the caller. */
static uint16_t rw_idmap(const struct layout *l)
{
	return l->is_root ? HUTCH_MF_IDMAP : 0;
}

/* Masks after everything they cover (hutch-exec's masks.c): the pins,
 * so that a protected path's parents are mount points before anything
 * is bound beneath them, then the read-only paths, then the hidden. */
static int layout_masks(struct layout *l, const struct plan *plan)
{
	static const uint8_t kind[] = { [MASK_PIN] = HUTCH_MOUNT_PIN,
					[MASK_READ_ONLY] = HUTCH_MOUNT_READONLY,
					[MASK_HIDE] = HUTCH_MOUNT_HIDE };

	for (int k = MASK_PIN; k <= MASK_HIDE; k++)
		for (size_t i = 0; i < plan->n_masks; i++)
			if (plan->masks[i].kind == (enum plan_mask_kind)k &&
			    !add(l, kind[k], plan->masks[i].target))
				return -E2BIG;
	return 0;
}

/* Copy-on-write (hutch-exec's overlay.c): the source is the lower layer,
 * the upper a tmpfs bounded like the work dir. A root caller's lower is
 * idmapped as its --rw binds are, or the jail's user could change only
 * what "other" may write, and copy-up would fail on unmapped owners. */
static int add_overlay(struct layout *l, const struct plan *plan, const struct plan_mount *pm)
{
	struct spec_mount *m = add(l, HUTCH_MOUNT_OVERLAY, pm->target);

	if (!m)
		return -E2BIG;
	m->source = pm->source;
	m->mode = 0700;
	m->size_bytes = plan->limits.overlay_bytes;
	m->inodes = plan->limits.overlay_inodes;
	m->flags = rw_idmap(l) | (pm->exec ? HUTCH_MF_EXEC : 0) | (pm->by_fd ? HUTCH_MF_FD : 0);
	return 0;
}

/* The binds of passed descriptors: the helper gets each as the next fd
 * of its range (hutch-abi.h), in mount order. narrow.c admits no more
 * than fit; more would be -E2BIG, never a bind by path. */
static int pass_bind_fds(struct layout *l, const struct plan *plan)
{
	for (size_t i = 0; i < plan->n_mounts; i++) {
		if (!plan->mounts[i].by_fd)
			continue;
		if (l->n_bind_fds >= HUTCH_BIND_FDS_MAX)
			return -E2BIG;
		l->bind_fds[l->n_bind_fds++] = plan->mounts[i].fd;
	}
	return 0;
}

/* n_prefix (layout.h): the mounts before the request's own (its files,
 * binds, overlays, masks), up to the first one that cannot be built
 * ahead; end is where the request's own begin. */
static void set_prefix(struct layout *l, uint32_t end)
{
	uint32_t k = 0;

	while (k < end && spec_mount_prebuildable(&l->mounts[k]))
		k++;
	l->n_prefix = k;
}

/* The mounts, in the order the file's opening comment gives. */
static int layout_mounts(struct layout *l, const struct plan *plan)
{
	uint16_t wexec = plan->work_exec ? HUTCH_MF_EXEC : 0;
	int r = 0;

	/* A policy names host paths some hosts lack: those are skipped. */
	for (size_t i = 0; i < plan->n_policy_binds && r == 0; i++)
		if (!is_synthetic(plan->policy_binds[i].target))
			r = add_bind(l, plan->policy_binds[i].source, plan->policy_binds[i].target,
				     HUTCH_MF_OPTIONAL |
					     (plan->policy_binds[i].exec ? HUTCH_MF_EXEC : 0));
	if (r == 0 && plan->usr_symlinks)
		r = add_usr_links(l);
	if (r == 0)
		r = add_etc(l, plan, l->sp.uid_inside, l->sp.gid_inside);
	if (r == 0 && !add(l, HUTCH_MOUNT_PROC, "/proc"))
		r = -E2BIG;
	if (r == 0)
		r = add_dev(l);
	if (r == 0)
		r = add_tmpfs(l, "/tmp", 01777, plan->limits.tmp_bytes, plan->limits.tmp_inodes,
			      HUTCH_MF_RW | wexec);
	if (r == 0)
		r = add_tmpfs(l, plan->work_dir, 0755, plan->limits.work_bytes,
			      plan->limits.work_inodes,
			      HUTCH_MF_RW | wexec | (plan->n_collect ? HUTCH_MF_SEND_FD : 0));
	if (r == 0)
		set_prefix(l, l->sp.n_mounts);
	for (size_t f = 0; f < plan->n_files && r == 0; f++) {
		char *path = NULL;

		if (asprintf(&path, "%s/%s", plan->work_dir, plan->files[f].name) < 0)
			return -ENOMEM;
		r = add_file(l, keep(l, path), plan->files[f].data, plan->files[f].len, 0644);
	}
	/* The request's binds last: they may land inside the working dir. */
	for (size_t i = 0; i < plan->n_mounts && r == 0; i++)
		r = plan->mounts[i].overlay
			    ? add_overlay(l, plan, &plan->mounts[i])
			    : add_bind(l, plan->mounts[i].source, plan->mounts[i].target,
				       (plan->mounts[i].rw ? HUTCH_MF_RW | rw_idmap(l) : 0) |
					       (plan->mounts[i].exec ? HUTCH_MF_EXEC : 0) |
					       (plan->mounts[i].by_fd ? HUTCH_MF_FD : 0));
	if (r == 0)
		r = pass_bind_fds(l, plan);
	return r < 0 ? r : layout_masks(l, plan);
}

int layout_build(const struct plan *plan, bool is_root, uint8_t **filter, size_t filter_len,
		 struct layout *ret)
{
	int r;

	memset(ret, 0, sizeof(*ret));
	ret->sp.mounts = ret->mounts;
	layout_settings(ret, plan, is_root);
	ret->is_root = is_root;
	r = layout_mounts(ret, plan);
	if (r < 0) {
		layout_free(ret); /* its strings; the filter was never taken */
		return r;
	}
	/* Only now, with nothing left to fail, does the filter change hands. */
	ret->filter = filter ? TAKE_PTR(*filter) : NULL;
	if (ret->filter && filter_len) {
		ret->sp.flags |= HUTCH_SPEC_SECCOMP | HUTCH_SPEC_SECCOMP_NOTIFY;
		ret->sp.filter = ret->filter;
		ret->sp.filter_len = (uint32_t)filter_len;
	}
	return 0;
}

void layout_free(struct layout *l)
{
	for (unsigned i = 0; i < l->n_strings; i++)
		free(l->strings[i]);
	l->n_strings = 0;
	l->sp.n_mounts = 0;
	free(l->filter);
	l->filter = NULL;
	l->sp.filter = NULL;
	l->sp.filter_len = 0;
}
