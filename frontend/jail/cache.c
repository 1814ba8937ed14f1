/* cache.c: see cache.h. A directory or entry that is not ours alone is
 * never trusted: anyone may create names in /dev/shm first, and a jail
 * runs as the caller (or, for root callers, as another user). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "fd-util.h"
#include "doc/path-util.h"
#include "jail/cache.h"
#include "jail/host-ids.h"

#define SHM_ROOT "/dev/shm"
#define RUN_USER_ROOT "/run/user"

/* A directory of ours with no group or other access. */
static bool private_dir(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
	       (st.st_mode & 077) == 0;
}

/* The roots no request bind of any policy can reach, whatever the
 * caller's environment: cache_overlaps refuses every bind that overlaps
 * one, for every caller. The cache is loaded from below these only. */
static const char *const unbindable[] = { SHM_ROOT, RUN_USER_ROOT, NULL };

/* XDG_RUNTIME_DIR when it lies strictly below an unbindable root, has no
 * component starting with a dot (so no "." or ".."), is reached without
 * following a link in any component and is ours with no group or other
 * access; -1 otherwise. A
 * runtime directory anywhere else (/tmp/1000-runtime-dir, as some session
 * managers and containers set it) is not used: a jail of the same user
 * started without that variable could bind it (issue 19). */
static int open_runtime_dir(void)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	struct open_how how = { .flags = O_RDONLY | O_DIRECTORY | O_CLOEXEC,
				.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	bool below = false;
	long fd;

	if (!xdg || xdg[0] != '/' || strstr(xdg, "/."))
		return -1;
	for (size_t i = 0; unbindable[i]; i++)
		below |= path_at_or_below(xdg, unbindable[i]) &&
			 xdg[strlen(unbindable[i]) + strspn(xdg + strlen(unbindable[i]), "/")];
	if (!below)
		return -1;
	fd = syscall(SYS_openat2, AT_FDCWD, xdg, &how, sizeof(how));
	if (fd < 0)
		return -1;
	if (!private_dir((int)fd)) {
		close((int)fd);
		return -1;
	}
	return (int)fd;
}

/* The directory the cache lives in is name beneath the returned fd:
 * hutch/ in a runtime directory open_runtime_dir accepts, else
 * /dev/shm/hutch-UID (shm holds that name). Both are per boot, as a probe
 * verdict should be. -1 without /dev/shm. */
static int open_base(char shm[64], const char **ret_name)
{
	int base = open_runtime_dir();

	*ret_name = "hutch";
	if (base >= 0)
		return base;
	snprintf(shm, 64, "hutch-%u", (unsigned)geteuid());
	*ret_name = shm;
	return open(SHM_ROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* The cache's directory, opened with no link followed, or -1. */
static int open_dir(void)
{
	char shm[64];
	const char *name;
	_cleanup_close_ int base = open_base(shm, &name);
	int fd;

	if (base < 0)
		return -1;
	if (mkdirat(base, name, 0700) < 0 && errno != EEXIST)
		return -1;
	fd = openat(base, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (!private_dir(fd)) {
		close(fd);
		return -1;
	}
	return fd;
}

const char *cache_problem(char *buf, size_t cap)
{
	char shm[64];
	const char *name;
	_cleanup_close_ int base = open_base(shm, &name);
	struct stat st;

	if (base < 0) {
		snprintf(buf, cap, "no %s to keep it in", SHM_ROOT);
		return buf;
	}
	if (fstatat(base, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return NULL;	/* made at the next run */
	if (S_ISDIR(st.st_mode) && st.st_uid == geteuid() && (st.st_mode & 077) == 0)
		return NULL;
	/* /dev/shm is anyone's: another user may have made the name first. */
	snprintf(buf, cap, "%s%s: %s%u and mode %04o, not this user's alone: not used, so every "
		 "run probes and compiles its filter afresh (its owner or root can remove it)",
		 name == shm ? SHM_ROOT "/" : "$XDG_RUNTIME_DIR/", name,
		 S_ISLNK(st.st_mode) ? "a symbolic link, owner " : S_ISDIR(st.st_mode)
		 ? "a directory, owner " : "not a directory, owner ",
		 (unsigned)st.st_uid, (unsigned)(st.st_mode & 07777));
	return buf;
}

static bool name_ok(const char *name)
{
	return name[0] && name[0] != '.' && !strchr(name, '/');
}

int cache_read(const char *name, size_t max, uint8_t **ret, size_t *ret_len)
{
	_cleanup_close_ int dir_fd = -1, fd = -1;
	struct stat st;
	char *buf;
	int r;

	if (!name_ok(name) || (dir_fd = open_dir()) < 0)
		return -ENOENT;
	fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077) ||
	    st.st_nlink != 1)
		return -EPERM;
	r = fd_slurp(fd, max, &buf, ret_len);
	if (r < 0)
		return r;
	*ret = (uint8_t *)buf;
	return 0;
}

void cache_write(const char *name, const void *data, size_t len)
{
	_cleanup_close_ int dir_fd = -1;
	char tmp[NAME_MAX + 1];
	int fd, n;

	if (!name_ok(name) || (dir_fd = open_dir()) < 0)
		return;
	n = snprintf(tmp, sizeof(tmp), ".%s.%d.tmp", name, (int)getpid());
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return;
	fd = openat(dir_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return;
	if (fd_write_all(fd, data, len) == 0 && close(fd) == 0) {
		if (renameat(dir_fd, tmp, dir_fd, name) == 0)
			return;
	} else {
		close(fd);
	}
	unlinkat(dir_fd, tmp, 0);
}

void cache_remove(const char *name)
{
	_cleanup_close_ int dir_fd = -1;

	if (name_ok(name) && (dir_fd = open_dir()) >= 0)
		(void)unlinkat(dir_fd, name, 0);
}

/* p itself, or where it really is when it exists. */
static bool overlaps_real(const char *src, const char *p)
{
	char real[PATH_MAX];

	return path_overlaps(src, p) || (realpath(p, real) && path_overlaps(src, real));
}

bool cache_overlaps(const char *src)
{
	for (size_t i = 0; unbindable[i]; i++)
		if (overlaps_real(src, unbindable[i]))
			return true;
	/* Root's host-id locks and their clean marks (host-ids.c): a jail
	 * bound there, root inside a policy that allowed it, could hold or
	 * mark any id. */
	return overlaps_real(src, HOST_IDS_LOCK_DIR);
}
