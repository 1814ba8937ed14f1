/* cache.c: see cache.h. A directory or entry that is not ours alone is
 * never trusted: anyone may create names in /dev/shm first, and a jail
 * runs as the caller (or, for root callers, as another user). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "fd-util.h"
#include "doc/path-util.h"
#include "jail/cache.h"

#define SHM_ROOT "/dev/shm"
#define RUN_USER_ROOT "/run/user"

/* A directory of ours with no group or other access. */
static bool private_dir(int fd)
{
	struct stat st;

	return fstat(fd, &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
	       (st.st_mode & 077) == 0;
}

/* Where the cache goes: under the caller's runtime directory when that is
 * private, else /dev/shm. Both are per boot, as a probe verdict should be. */
static char *cache_path(void)
{
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	char *path = NULL;

	if (xdg && xdg[0] == '/') {
		_cleanup_close_ int fd = open(xdg, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

		if (fd >= 0 && private_dir(fd))
			return asprintf(&path, "%s/hutch", xdg) < 0 ? NULL : path;
	}
	return asprintf(&path, SHM_ROOT "/hutch-%u", (unsigned)geteuid()) < 0 ? NULL : path;
}

/* The cache directory, opened without following a link; -1 when there is
 * none we can trust. */
static int open_dir(char **ret_path)
{
	_cleanup_free_ char *path = cache_path();
	int fd;

	if (!path || (mkdir(path, 0700) < 0 && errno != EEXIST))
		return -1;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (!private_dir(fd)) {
		close(fd);
		return -1;
	}
	if (ret_path)
		*ret_path = TAKE_PTR(path);
	return fd;
}

char *cache_dir(void)
{
	char *path = NULL;
	int fd = open_dir(&path);

	if (fd < 0)
		return NULL;
	close(fd);
	return path;
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

	if (!name_ok(name) || (dir_fd = open_dir(NULL)) < 0)
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

	if (!name_ok(name) || (dir_fd = open_dir(NULL)) < 0)
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

	if (name_ok(name) && (dir_fd = open_dir(NULL)) >= 0)
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
	_cleanup_free_ char *mine = cache_path();

	return overlaps_real(src, SHM_ROOT) || overlaps_real(src, RUN_USER_ROOT) ||
	       (mine && overlaps_real(src, mine));
}
