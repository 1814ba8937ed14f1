/* explain.c: --explain's side of the listener (see explain.h). It decides
 * nothing: the notifications it takes are answered
 * SECCOMP_USER_NOTIF_FLAG_CONTINUE, and it takes only calls the policy's
 * filter allows (jail/filter.c filter_explain_calls), so "continue" is the
 * verdict the policy's program gave before --explain. What it learns is read
 * before the answer, so that the pid and its memory are the caller's
 * (SECCOMP_IOCTL_NOTIF_ID_VALID), and judged after it, through a
 * descriptor of the jail's root: lookups resolve in that root
 * (RESOLVE_IN_ROOT), never follow a magic link, and only stat. The jail
 * cannot make this grow (a fixed event array) or stall the supervisor (the
 * listener's rate window in supervise.c: past it the jail's calls wait in
 * the kernel). Frontend only; called from supervise.c. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cleanup.h"
#include "fd-util.h"
#include "jail/jail-path.h"
#include "run/explain.h"

#define X32_BIT 0x40000000u
#define PAGE 4096u

/* What one call asks for, read before it is let go. */
struct seen {
	char call[24];
	bool is_exec, wants_write;
	char path[PATH_MAX];	/* the jail path, absolute */
	int root_fd;		/* the caller's root */
};

/* NUL-terminated bytes at addr of pid, at most cap; process_vm_readv fails
 * a piece whole when any of it faults, so it reads page by page. */
static int read_string(pid_t pid, uint64_t addr, char *buf, size_t cap)
{
	size_t got = 0;

	while (got < cap) {
		size_t want = PAGE - (size_t)((addr + got) % PAGE);
		struct iovec local, remote;
		ssize_t n;

		if (want > cap - got)
			want = cap - got;
		local = (struct iovec){ buf + got, want };
		remote = (struct iovec){ (void *)(uintptr_t)(addr + got), want };
		n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
		if (n <= 0)
			return -EFAULT;
		if (memchr(buf + got, '\0', (size_t)n))
			return 0;
		got += (size_t)n;
	}
	return -ENAMETOOLONG;
}

/* The call's name, from its number on its entry point. */
static bool call_name(const struct seccomp_data *d, char *buf, size_t cap)
{
	uint32_t arch = d->arch == AUDIT_ARCH_I386 ? SCMP_ARCH_X86
			: (d->nr & (int)X32_BIT) ? SCMP_ARCH_X32 : SCMP_ARCH_X86_64;
	char *name = seccomp_syscall_resolve_num_arch(arch, d->nr);

	if (!name)
		return false;
	snprintf(buf, cap, "%s", name);
	free(name);
	return true;
}

int explain_watch_init(struct explain_watch *x, struct explain_log *log, bool requested,
		       const char *const *calls, size_t n_calls)
{
	memset(x, 0, sizeof(*x));
	x->log = log;
	log->requested = requested;
	if (!requested)
		return 0;
	for (size_t i = 0; i < n_calls && i < FILTER_EXPLAIN_MAX; i++)
		x->calls[x->n_calls++] = calls[i];
	log->events = calloc(EXPLAIN_EVENTS_MAX, sizeof(*log->events));
	return log->events ? 0 : -ENOMEM;
}

bool explain_supported(char *why, size_t cap)
{
	struct utsname u;
	unsigned major = 0, minor = 0;

	if (uname(&u) == 0 && sscanf(u.release, "%u.%u", &major, &minor) == 2 &&
	    (major > 5 || (major == 5 && minor >= 6)))
		return true;
	snprintf(why, cap, "needs Linux 5.6 or later (seccomp's \"continue\" answer, 5.5, and "
			   "openat2 for lookups in the jail's root, 5.6)");
	return false;
}

bool explain_watch_wants(const struct explain_watch *x, const struct seccomp_data *d)
{
	char name[24];

	if (!x->log || !x->log->events || x->n_calls == 0 || !call_name(d, name, sizeof(name)))
		return false;
	for (size_t i = 0; i < x->n_calls; i++)
		if (strcmp(x->calls[i], name) == 0)
			return true;
	return false;
}

static uint64_t arg(const struct seccomp_data *d, int i)
{
	return d->arch == AUDIT_ARCH_I386 ? (uint32_t)d->args[i] : d->args[i];
}

/* Which argument is the path, which the directory fd; the open flags. */
static bool call_shape(struct seen *s, const struct seccomp_notif *n, int *ret_path, int *ret_dirfd,
		       uint64_t *ret_flags)
{
	const struct seccomp_data *d = &n->data;

	*ret_dirfd = -1;
	*ret_flags = 0;
	if (strcmp(s->call, "open") == 0 || strcmp(s->call, "creat") == 0 ||
	    strcmp(s->call, "execve") == 0) {
		*ret_path = 0;
		*ret_flags = strcmp(s->call, "creat") == 0 ? (uint64_t)(O_CREAT | O_WRONLY) : arg(d, 1);
	} else if (strcmp(s->call, "openat") == 0 || strcmp(s->call, "execveat") == 0) {
		*ret_path = 1;
		*ret_dirfd = 0;
		*ret_flags = strcmp(s->call, "openat") == 0 ? arg(d, 2) : 0;
	} else if (strcmp(s->call, "openat2") == 0) {
		struct iovec local = { ret_flags, sizeof(*ret_flags) };
		struct iovec remote = { (void *)(uintptr_t)arg(d, 2), sizeof(*ret_flags) };

		*ret_path = 1;
		*ret_dirfd = 0;
		if (process_vm_readv((pid_t)n->pid, &local, 1, &remote, 1, 0) != sizeof(*ret_flags))
			*ret_flags = 0; /* struct open_how starts with its u64 flags */
	} else {
		return false;
	}
	s->is_exec = strncmp(s->call, "execve", 6) == 0;
	s->wants_write = !s->is_exec && ((*ret_flags & O_ACCMODE) != O_RDONLY ||
					 (*ret_flags & (O_CREAT | O_TRUNC)));
	return true;
}

/* A relative path's base: the caller's cwd or its dirfd, as its own
 * mount namespace names it (the kernel shows paths in a root we do not
 * share relative to that root). */
static int base_dir(pid_t pid, int32_t dirfd, char *buf, size_t cap)
{
	char link[64];
	ssize_t n;

	if (dirfd == AT_FDCWD || dirfd < 0)
		snprintf(link, sizeof(link), "/proc/%d/cwd", (int)pid);
	else
		snprintf(link, sizeof(link), "/proc/%d/fd/%d", (int)pid, (int)dirfd);
	n = readlink(link, buf, cap - 1);
	if (n <= 0 || buf[0] != '/')
		return -ENOENT;
	buf[n] = '\0';
	return 0;
}

/* Step 1, before the answer: the call, its path and the caller's root. */
static int gather(int listener_fd, const struct seccomp_notif *n, struct seen *s)
{
	char raw[PATH_MAX], base[PATH_MAX], proc_root[64];
	int path_arg, dirfd_arg;
	uint64_t flags;

	if (!call_name(&n->data, s->call, sizeof(s->call)) ||
	    !call_shape(s, n, &path_arg, &dirfd_arg, &flags))
		return -EINVAL;
	/* EFAULT also where the caller's memory is not ours to read: the
	 * helper's own execve of the command, as an unprivileged caller (its
	 * mm still belongs to the initial user namespace; explain-grant.c
	 * covers that call from the failure record). */
	if (read_string((pid_t)n->pid, arg(&n->data, path_arg), raw, sizeof(raw)) < 0)
		return -EFAULT;
	if (!raw[0])
		return -ENODATA; /* an empty path (AT_EMPTY_PATH) names no file */
	if (raw[0] == '/')
		snprintf(s->path, sizeof(s->path), "%s", raw);
	else if (base_dir((pid_t)n->pid, dirfd_arg >= 0 ? (int32_t)arg(&n->data, dirfd_arg) : AT_FDCWD,
			  base, sizeof(base)) < 0 ||
		 (size_t)snprintf(s->path, sizeof(s->path), "%s/%s", base, raw) >= sizeof(s->path))
		return -ENAMETOOLONG;
	/* "." and ".." resolved as the kernel would where no link is in the
	 * way (the only paths judge looks further at). */
	snprintf(raw, sizeof(raw), "%s", s->path);
	if (jail_path_clean(raw, s->path, sizeof(s->path)) < 0)
		return -ENAMETOOLONG;
	snprintf(proc_root, sizeof(proc_root), "/proc/%d/root", (int)n->pid);
	s->root_fd = open(proc_root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (s->root_fd < 0)
		return -errno;
	/* The pid may have died and been reused while we read: only a
	 * notification still pending makes all of this the caller's. */
	if (ioctl(listener_fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &n->id) < 0)
		return -ESRCH;
	return 0;
}

static void answer_continue(int listener_fd, const struct seccomp_notif *n,
			    struct seccomp_notif_resp *resp, size_t resp_size)
{
	memset(resp, 0, resp_size);
	resp->id = n->id;
	resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	/* ENOENT: the caller died meanwhile; nothing to answer. EINVAL: a
	 * kernel without the flag (explain_supported keeps us off those):
	 * the call fails rather than waits, and never passes. */
	if (ioctl(listener_fd, SECCOMP_IOCTL_NOTIF_SEND, resp) < 0 && errno == EINVAL) {
		resp->flags = 0;
		resp->error = -ENOSYS;
		(void)ioctl(listener_fd, SECCOMP_IOCTL_NOTIF_SEND, resp);
	}
}

/* The path in the caller's root, resolved there without following any
 * link: one the jail wrote could point a suggestion anywhere (issue 19:
 * cfg -> /some/secret/dir in an rw bind). An O_PATH fd or -errno (ELOOP
 * where a link is in the way). */
static int open_in_jail(int root_fd, const char *path)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC,
				.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS |
					   RESOLVE_NO_MAGICLINKS };
	long fd = syscall(SYS_openat2, root_fd, path, &how, sizeof(how));

	return fd < 0 ? -errno : (int)fd;
}

/* Whether the host has the path itself, looked up with no link followed
 * in any component (a final link is found as itself): the jail path
 * names a host path only where the jail cannot have put a link on the
 * way, since the host source of an rw bind may sit under that very path. */
static bool on_host(const char *path)
{
	struct open_how how = { .flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
				.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	long fd = syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));

	if (fd < 0)
		return false;
	close((int)fd);
	return true;
}

struct explain_event *explain_log_find(struct explain_log *log, enum explain_kind kind,
				       const char *path)
{
	for (size_t i = 0; i < log->n; i++)
		if (log->events[i].kind == kind &&
		    strncmp(log->events[i].path, path, EXPLAIN_PATH_MAX - 1) == 0)
			return &log->events[i];
	return NULL;
}

void explain_log_add(struct explain_log *log, enum explain_kind kind, const char *call,
		     const char *path)
{
	struct explain_event *ev;
	size_t len = strlen(path);

	if (log->n >= EXPLAIN_EVENTS_MAX) {
		log->dropped++;
		return;
	}
	ev = &log->events[log->n++];
	memset(ev, 0, sizeof(*ev));
	ev->kind = kind;
	ev->count = 1;
	snprintf(ev->call, sizeof(ev->call), "%s", call);
	/* It reaches a terminal and a log line: control bytes as '?'. */
	for (size_t i = 0; i < len && i < EXPLAIN_PATH_MAX - 1; i++)
		ev->path[i] = (unsigned char)path[i] < 0x20 || path[i] == 0x7f ? '?' : path[i];
	ev->path_cut = len >= EXPLAIN_PATH_MAX;
}

static void record(struct explain_log *log, enum explain_kind kind, const struct seen *s)
{
	struct explain_event *ev = explain_log_find(log, kind, s->path);

	if (ev)
		ev->count++;
	else
		explain_log_add(log, kind, s->call, s->path);
}

/* Step 2, after the answer: what of it the jail withholds. */
static void judge(struct explain_log *log, const struct seen *s)
{
	_cleanup_close_ int fd = -1;
	char parent[PATH_MAX];
	struct statvfs vfs;
	char *slash;

	if (strncmp(s->path, "/proc/", 6) == 0)
		return; /* the jail's own procfs; the host's pids differ */
	fd = open_in_jail(s->root_fd, s->path);
	if (fd == -ELOOP)
		return; /* through a link: nothing said of what it points at */
	if (fd == -ENOENT || fd == -ENOTDIR) {
		if (on_host(s->path))
			record(log, EXPLAIN_MISSING, s);
		else if (s->wants_write) {
			snprintf(parent, sizeof(parent), "%s", s->path);
			slash = strrchr(parent, '/');
			if (slash && slash != parent) {
				*slash = '\0';
				fd = open_in_jail(s->root_fd, parent);
				if (fd >= 0 && fstatvfs(fd, &vfs) == 0 && (vfs.f_flag & ST_RDONLY))
					record(log, EXPLAIN_READ_ONLY, s);
			}
		}
		return;
	}
	if (fd < 0 || fstatvfs(fd, &vfs) < 0) {
		log->unread++;
		return;
	}
	if (s->is_exec && (vfs.f_flag & ST_NOEXEC))
		record(log, EXPLAIN_NOEXEC, s);
	else if (s->wants_write && (vfs.f_flag & ST_RDONLY))
		record(log, EXPLAIN_READ_ONLY, s);
}

void explain_watch_answer(struct explain_watch *x, int listener_fd, const struct seccomp_notif *n,
			  struct seccomp_notif_resp *resp, size_t resp_size)
{
	struct seen s = { .root_fd = -1 };
	int r;

	x->log->seen++;
	r = gather(listener_fd, n, &s);
	answer_continue(listener_fd, n, resp, resp_size);
	if (r == 0)
		judge(x->log, &s);
	else if (r != -EINVAL && r != -ENODATA)
		x->log->unread++; /* EFAULT too: memory we may not read (below) */
	if (s.root_fd >= 0)
		close(s.root_fd);
}
