/* cache.c: see cache.h. The fallback under /tmp is trusted only when it is
 * our own 0700 directory and not a link, since anyone may create names
 * there first. Frontend only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cache.h"
#include "cleanup.h"
#include "fd-util.h"

static char *usable(char *dir)
{
	struct stat st;

	if (dir && (mkdir(dir, 0700) == 0 || errno == EEXIST) && lstat(dir, &st) == 0 &&
	    S_ISDIR(st.st_mode) && st.st_uid == geteuid() && !(st.st_mode & 022) &&
	    access(dir, W_OK) == 0)
		return dir;
	free(dir);
	return NULL;
}

char *cache_dir(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char *base = NULL, *dir = NULL;

	if (xdg && xdg[0] == '/')
		base = strdup(xdg);
	else if (home && home[0] == '/' && asprintf(&base, "%s/.cache", home) < 0)
		base = NULL;
	if (base && (mkdir(base, 0700) == 0 || errno == EEXIST) && access(base, W_OK) == 0 &&
	    asprintf(&dir, "%s/hutch", base) >= 0 && (dir = usable(dir))) {
		free(base);
		return dir;
	}
	free(base);
	if (asprintf(&dir, "/tmp/hutch-%u", (unsigned)geteuid()) < 0)
		return NULL;
	return usable(dir);
}

static char *entry_path(const char *name)
{
	_cleanup_free_ char *dir = cache_dir();
	char *path = NULL;

	if (!dir || strchr(name, '/') || asprintf(&path, "%s/%s", dir, name) < 0)
		return NULL;
	return path;
}

int cache_read(const char *name, size_t max, uint8_t **ret, size_t *ret_len)
{
	_cleanup_free_ char *path = entry_path(name);
	_cleanup_close_ int fd = -1;
	char *buf;
	int r;

	if (!path)
		return -ENOENT;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	r = fd_slurp(fd, max, &buf, ret_len);
	if (r < 0)
		return r;
	*ret = (uint8_t *)buf;
	return 0;
}

void cache_write(const char *name, const void *data, size_t len)
{
	_cleanup_free_ char *path = entry_path(name), *tmp = NULL;
	int fd;

	if (!path || asprintf(&tmp, "%s.%d.tmp", path, (int)getpid()) < 0)
		return;
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return;
	if (fd_write_all(fd, data, len) == 0 && close(fd) == 0) {
		if (rename(tmp, path) == 0)
			return;
	} else {
		close(fd);
	}
	unlink(tmp);
}
