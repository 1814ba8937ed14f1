/* serve-socket.c: see serve-socket.h. A client trusts whoever answers at
 * the path, so the path must be one only we (or root) can change: every
 * directory on it owned by root or us, none writable by others but a
 * sticky one above the last (as /tmp), the last writable by us alone. A
 * file already there is replaced only when it is our own socket and
 * nobody answers on it. Frontend only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "serve/serve-socket.h"

/* One directory on the way: owner, then who else may write in it. */
static int dir_ok(const struct stat *st, bool last, const char **why)
{
	if (st->st_uid != 0 && st->st_uid != geteuid()) {
		*why = "a directory on the path belongs to another user; use a directory of your own, "
		       "such as $XDG_RUNTIME_DIR";
		return -EPERM;
	}
	if (!(st->st_mode & (S_IWGRP | S_IWOTH)))
		return 0;
	if (!last && (st->st_mode & S_ISVTX))
		return 0; /* others can add names, not rename or remove ours */
	*why = last ? "the socket's directory is writable by others; use a directory only you can "
		      "write, such as $XDG_RUNTIME_DIR or a mode 0700 one"
		    : "a directory on the path is writable by others; use a directory only you can "
		      "write, such as $XDG_RUNTIME_DIR";
	return -EPERM;
}

/* Walk dir (absolute, resolved) from / without following links, checking
 * each directory. Returns an O_PATH fd of dir, or -errno. */
static int open_checked_dir(const char *dir, const char **why)
{
	_cleanup_free_ char *copy = strdup(dir);
	_cleanup_close_ int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	char *save = NULL;
	struct stat st;

	if (!copy || fd < 0)
		return -ENOMEM;
	for (char *name = strtok_r(copy, "/", &save);; name = strtok_r(NULL, "/", &save)) {
		bool last = name == NULL;
		int next;

		if (fstat(fd, &st) < 0)
			return -errno;
		if (dir_ok(&st, last, why) < 0)
			return -EPERM;
		if (last)
			return TAKE_FD(fd);
		next = openat(fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0) {
			*why = "a directory on the path cannot be opened";
			return -errno;
		}
		close(fd);
		fd = next;
	}
}

/* Someone answers on the socket at sa: then it is not stale. */
static bool someone_listens(const struct sockaddr_un *sa)
{
	_cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	return fd >= 0 && connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0;
}

/* What is at name in dir_fd may go: nothing, or our own stale socket. */
static int clear_old(int dir_fd, const char *name, const struct sockaddr_un *sa, const char **why)
{
	struct stat st;

	if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISSOCK(st.st_mode)) {
		*why = "a file that is not a socket is there; remove it or choose another path";
		return -EEXIST;
	}
	if (st.st_uid != geteuid()) {
		*why = "another user's socket is there; choose a path in a directory of your own";
		return -EEXIST;
	}
	if (someone_listens(sa)) {
		*why = "a server is already listening there; stop it or choose another path";
		return -EADDRINUSE;
	}
	if (unlinkat(dir_fd, name, 0) < 0)
		return -errno;
	return 0;
}

/* The system's maximum backlog: a burst of clients connecting at once
 * waits in the kernel's queue instead of being refused (EAGAIN). listen()
 * caps at net.core.somaxconn anyway; reading it says what we get. */
static int max_backlog(void)
{
	char buf[32] = "";
	long v = 0;
	int fd = open("/proc/sys/net/core/somaxconn", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		ssize_t n = read(fd, buf, sizeof(buf) - 1);

		if (n > 0)
			v = strtol(buf, NULL, 10);
		close(fd);
	}
	return v > 0 && v <= INT_MAX ? (int)v : SOMAXCONN;
}

static int bind_listen(struct sockaddr_un *sa, mode_t mode)
{
	_cleanup_close_ int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	mode_t old;
	int r = 0;

	if (fd < 0)
		return -errno;
	/* The socket is born with its final mode: no window where it is wider. */
	old = umask((mode_t)(~mode & 0777));
	if (bind(fd, (struct sockaddr *)sa, sizeof(*sa)) < 0 || listen(fd, max_backlog()) < 0)
		r = -errno;
	umask(old);
	return r < 0 ? r : TAKE_FD(fd);
}

/* Bind and listen under a name of our own beside the final one, then
 * rename it into place (never over another): a client that sees the path
 * can connect at once, with no window where it names a socket that does
 * not listen yet (connect would be refused). */
static int publish(int dir_fd, const char *name, const struct sockaddr_un *sa, mode_t mode)
{
	struct sockaddr_un tmp = *sa;
	char *slash = strrchr(tmp.sun_path, '/');
	size_t room = sizeof(tmp.sun_path) - (size_t)(slash + 1 - tmp.sun_path);
	const char *tmp_name = slash + 1;
	int fd;

	if ((size_t)snprintf(slash + 1, room, ".%s.%ld", name, (long)getpid()) >= room)
		return -ENAMETOOLONG;
	(void)unlinkat(dir_fd, tmp_name, 0);	/* ours, from a pid long gone */
	fd = bind_listen(&tmp, mode);
	if (fd < 0)
		return fd;
	if (renameat2(dir_fd, tmp_name, dir_fd, name, RENAME_NOREPLACE) < 0) {
		int err = errno;

		(void)unlinkat(dir_fd, tmp_name, 0);
		close(fd);
		return -err;
	}
	return fd;
}

int serve_socket_open(const char *path, mode_t mode, struct serve_socket *ret, const char **ret_why)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	_cleanup_free_ char *d = strdup(path), *b = strdup(path), *dir = NULL;
	_cleanup_close_ int dir_fd = -1;
	const char *name;
	struct stat st;
	int fd, r;

	*ret_why = "cannot be used";
	if (!d || !b)
		return -ENOMEM;
	name = basename(b);
	if (path[0] == '\0' || path[strlen(path) - 1] == '/' || strcmp(name, ".") == 0 ||
	    strcmp(name, "..") == 0) {
		*ret_why = "not a path to a file";
		return -EINVAL;
	}
	dir = realpath(dirname(d), NULL);
	if (!dir) {
		*ret_why = "its directory does not exist or cannot be resolved";
		return -errno;
	}
	dir_fd = open_checked_dir(dir, ret_why);
	if (dir_fd < 0)
		return dir_fd;
	if ((size_t)snprintf(sa.sun_path, sizeof(sa.sun_path), "%s%s%s", dir,
			     strcmp(dir, "/") == 0 ? "" : "/", name) >= sizeof(sa.sun_path)) {
		*ret_why = "the path is too long for a Unix socket; choose a shorter one";
		return -ENAMETOOLONG;
	}
	r = clear_old(dir_fd, name, &sa, ret_why);
	if (r < 0)
		return r;
	fd = publish(dir_fd, name, &sa, mode);
	if (fd < 0) {
		*ret_why = fd == -EEXIST || fd == -EADDRINUSE
				   ? "another process took the path meanwhile; try again"
				   : "cannot bind and listen there";
		return fd;
	}
	if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISSOCK(st.st_mode)) {
		close(fd);
		*ret_why = "the socket vanished as it was made";
		return -ENOENT;
	}
	*ret = (struct serve_socket){ .fd = fd, .dev = st.st_dev, .ino = st.st_ino };
	memcpy(ret->path, sa.sun_path, sizeof(ret->path));
	return 0;
}

void serve_socket_close(struct serve_socket *s)
{
	struct stat st;

	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	if (s->path[0] && lstat(s->path, &st) == 0 && st.st_dev == s->dev && st.st_ino == s->ino)
		unlink(s->path);
	s->path[0] = '\0';
}
