/* collect-host.c: see collect-host.h. The output directory may be shared
 * with the jail (a --rw bind), so the jail may have planted links, FIFOs
 * or directories there before we write: nothing is followed, written
 * through or opened for writing but a file we created ourselves.
 * Frontend only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "fd-util.h"
#include "doc/request.h"
#include "run/collect-host.h"

static const char err_link[] =
	"a directory on its way is a symbolic link or not a directory; remove it";
static const char err_not_reg[] =
	"the destination exists and is not a regular file (a symbolic link, FIFO, device or "
	"directory); remove it";
static const char err_not_dir[] = "the destination exists and is not a directory; remove it";
static const char err_name[] = "the jail gave it a name that is not a clean relative path";
static const char err_write[] = "cannot write into the output directory";

static int open_dir_beneath(int dir_fd, const char *name)
{
	struct open_how how = {
		.flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};

	return (int)syscall(SYS_openat2, dir_fd, name, &how, sizeof(how));
}

/* The directory holding name (made as needed, 0755, never through a
 * link); *ret_base points at name's last component. -errno or an fd. */
static int open_parent(int out_fd, const char *name, const char **ret_base)
{
	_cleanup_close_ int dir_fd = fcntl(out_fd, F_DUPFD_CLOEXEC, 3);
	const char *p = name;
	const char *slash;

	while (dir_fd >= 0 && (slash = strchr(p, '/'))) {
		char comp[256];
		int next;

		if ((size_t)(slash - p) >= sizeof(comp))
			return -ENAMETOOLONG;
		memcpy(comp, p, (size_t)(slash - p));
		comp[slash - p] = '\0';
		if (mkdirat(dir_fd, comp, 0755) < 0 && errno != EEXIST)
			return -errno;
		next = open_dir_beneath(dir_fd, comp);
		if (next < 0)
			return -errno;
		close(dir_fd);
		dir_fd = next;
		p = slash + 1;
	}
	if (dir_fd < 0)
		return -errno;
	*ret_base = p;
	return TAKE_FD(dir_fd);
}

static const char *write_dir(int parent_fd, const char *base)
{
	_cleanup_close_ int fd = -1;

	if (mkdirat(parent_fd, base, 0755) < 0 && errno != EEXIST)
		return err_write;
	fd = open_dir_beneath(parent_fd, base);
	if (fd < 0)
		return errno == ELOOP || errno == ENOTDIR ? err_not_dir : err_write;
	return NULL;
}

/* A fresh name beside the destination, created O_EXCL. */
static int open_temp(int parent_fd, char *name, size_t size)
{
	for (int tries = 0; tries < 8; tries++) {
		unsigned char rnd[8];
		int fd;

		if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd))
			return -EIO;
		snprintf(name, size, ".hutch-%02x%02x%02x%02x%02x%02x%02x%02x", rnd[0], rnd[1],
			 rnd[2], rnd[3], rnd[4], rnd[5], rnd[6], rnd[7]);
		fd = openat(parent_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0600);
		if (fd >= 0 || errno != EEXIST)
			return fd >= 0 ? fd : -errno;
	}
	return -EEXIST;
}

static const char *write_file(int parent_fd, const char *base, const struct collected_file *f,
			      mode_t mode)
{
	char tmp[32];
	struct stat st;
	int fd, r;

	/* Only a regular file is replaced; rename never writes through
	 * it, so a hard link elsewhere keeps the old contents. */
	if (fstatat(parent_fd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode))
		return err_not_reg;
	fd = open_temp(parent_fd, tmp, sizeof(tmp));
	if (fd < 0)
		return err_write;
	r = fd_write_all(fd, f->data ? f->data : (const uint8_t *)"", f->len);
	if (r == 0 && fchmod(fd, mode) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r == 0 && renameat(parent_fd, tmp, parent_fd, base) < 0)
		r = -errno;
	if (r < 0) {
		unlinkat(parent_fd, tmp, 0);
		return r == -EISDIR || r == -ENOTDIR ? err_not_reg : err_write;
	}
	return NULL;
}

static const char *write_one(int out_fd, const struct collected_file *f, bool allow_exec)
{
	_cleanup_close_ int parent_fd = -1;
	const char *base = NULL;

	/* Walked names come from the jail: the same rule as a typed one. */
	if (!request_relpath_ok(f->name))
		return err_name;
	parent_fd = open_parent(out_fd, f->name, &base);
	if (parent_fd < 0)
		return parent_fd == -ELOOP || parent_fd == -ENOTDIR || parent_fd == -EXDEV
			       ? err_link
			       : err_write;
	if (f->is_dir)
		return write_dir(parent_fd, base);
	return write_file(parent_fd, base, f, f->executable && allow_exec ? 0755 : 0644);
}

size_t collect_host_write(int out_fd, struct collected *c, bool allow_exec)
{
	size_t failed = 0;

	for (size_t i = 0; i < c->n; i++) {
		struct collected_file *f = &c->files[i];

		if (!f->error)
			f->write_error = write_one(out_fd, f, allow_exec);
		if (f->error || f->write_error)
			failed++;
	}
	return failed;
}
