/* changes.c: see changes.h. The upper layer of an overlay in userxattr
 * mode (Documentation/filesystems/overlayfs.rst) holds whole copies of
 * what changed (metacopy and redirect_dir are off in a user namespace),
 * a character device 0/0 for each deletion (a whiteout: the jail cannot
 * make one, overlayfs refuses mknod of 0/0) and the xattr
 * user.overlay.opaque="y" on a directory that replaced the lower one,
 * hiding everything the lower held there. Frontend only. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "cleanup.h"
#include "fd-util.h"
#include "run/changes.h"
#include "run/offload.h"

/* How deep the walk goes below an overlay's root, and how long a path. */
#define CHANGES_MAX_DEPTH 64
#define CHANGES_PATH_MAX 4096
#define CHUNK (64u << 10)

struct walker {
	struct change_set *cs;
	bool with_data;
	uint64_t max_data_bytes;
	/* What is left to hash of this overlay's upper files: twice its
	 * size bound (a changed file is read to compare, then to keep), since
	 * a sparse file or hard links make st_size the jail's to choose
	 * whatever the tmpfs holds, and the frontend (serve's loop) would
	 * hash it long after the jail's time is up. */
	uint64_t hash_left;
	int err;		/* -ENOMEM or -ECANCELED, which end the walk */
	const atomic_bool *cancel;	/* offload.h: stop at the next step; or NULL */
};

/* One name beneath dir_fd: no link followed, no mount crossed in the
 * upper layer (xdev false for the host's lower, whose submounts the jail
 * did not see either: an overlay layer is one mount). */
static int open_child(int dir_fd, const char *name, int flags, bool xdev)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC | (flags & O_PATH ? 0 : O_NOCTTY)),
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
			   (xdev ? 0 : RESOLVE_NO_XDEV),
	};

	return (int)syscall(SYS_openat2, dir_fd, name, &how, sizeof(how));
}

/* An upper entry whose mode the jail made unreadable to its owner (the
 * unprivileged caller): its owner bits are widened to read it, on the
 * inode st describes and no other. The change goes through an O_PATH
 * descriptor checked against st, never a name (fchmodat follows a link,
 * and a process outside that a jail handed a descriptor of the overlay
 * could still swap one in): /proc/self/fd/N names that inode itself. */
static int widen_mode(int dir_fd, const char *name, const struct stat *st)
{
	_cleanup_close_ int fd = open_child(dir_fd, name, O_PATH, false);
	char proc[32];
	struct stat now;

	if (fd < 0 || fstat(fd, &now) < 0 || now.st_ino != st->st_ino ||
	    now.st_dev != st->st_dev || (now.st_mode & S_IFMT) != (st->st_mode & S_IFMT) ||
	    !(S_ISREG(now.st_mode) || S_ISDIR(now.st_mode)))
		return -1;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	return chmod(proc, (now.st_mode & 07777) | (S_ISDIR(now.st_mode) ? 0500 : 0400));
}

static int open_upper(int dir_fd, const char *name, const struct stat *st, int flags)
{
	int fd = open_child(dir_fd, name, flags, false);

	if (fd < 0 && errno == EACCES && widen_mode(dir_fd, name, st) == 0)
		fd = open_child(dir_fd, name, flags, false);
	return fd;
}

static enum change_type type_of(mode_t m)
{
	return S_ISDIR(m) ? CTYPE_DIR : S_ISLNK(m) ? CTYPE_SYMLINK : S_ISFIFO(m) ? CTYPE_FIFO
	     : S_ISSOCK(m) ? CTYPE_SOCKET : S_ISCHR(m) ? CTYPE_CHAR : S_ISBLK(m) ? CTYPE_BLOCK
	     : CTYPE_FILE;
}

static bool is_whiteout(const struct stat *st)
{
	return S_ISCHR(st->st_mode) && st->st_rdev == makedev(0, 0);
}

/* A regular file's SHA-256 and, when asked and within bounds, its bytes.
 * Reads what fstat says and no more: the file cannot grow now. */
static const char *hash_file(int fd, const struct stat *st, uint8_t digest[32],
			     uint8_t **ret_data, const atomic_bool *cancel)
{
	_cleanup_free_ uint8_t *buf = malloc(CHUNK);
	_cleanup_free_ uint8_t *data = NULL;
	struct sha256_ctx ctx;
	uint64_t left = (uint64_t)st->st_size, off = 0;

	if (!buf)
		return "unreadable";
	if (ret_data && !(data = malloc((size_t)st->st_size + 1)))
		return "unreadable";
	sha256_init(&ctx);
	while (left > 0) {
		size_t want = left < CHUNK ? (size_t)left : CHUNK;
		long got = offload_stop(cancel) ? -1 : fd_read_full(fd, buf, want);

		if (got != (long)want)
			return "unreadable";
		sha256_update(&ctx, want, buf);
		if (data)
			memcpy(data + off, buf, want);
		off += want;
		left -= want;
	}
	sha256_digest(&ctx, SHA256_DIGEST_SIZE, digest);
	if (ret_data)
		*ret_data = TAKE_PTR(data);
	return NULL;
}

static int open_regular(int dir_fd, const char *name, const struct stat *st, bool upper)
{
	int fd = upper ? open_upper(dir_fd, name, st, O_RDONLY | O_NONBLOCK)
		       : open_child(dir_fd, name, O_RDONLY | O_NONBLOCK, true);
	struct stat again;

	if (fd >= 0 && (fstat(fd, &again) < 0 || again.st_ino != st->st_ino ||
			again.st_dev != st->st_dev || !S_ISREG(again.st_mode))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Whether the lower file holds other bytes than the upper's digest says. */
static bool lower_differs(int low_dir, const char *name, const struct stat *ls,
			  const struct change_entry *ce, const atomic_bool *cancel)
{
	_cleanup_close_ int fd = -1;
	uint8_t digest[32];

	if (!ce->have_sha256 || (uint64_t)ls->st_size != ce->size)
		return true;
	fd = open_regular(low_dir, name, ls, false);
	if (fd < 0 || hash_file(fd, ls, digest, NULL, cancel))
		return true;
	return memcmp(digest, ce->sha256, sizeof(digest)) != 0;
}

/* Type-specific content of an upper entry: a file's size, digest and
 * bytes, a link's text. */
static void read_content(struct walker *w, int up_dir, const char *name, const struct stat *us,
			 struct change_entry *ce)
{
	ce->mode = us->st_mode & 07777;
	if (S_ISLNK(us->st_mode)) {
		char text[CHANGES_PATH_MAX + 1];
		ssize_t n = readlinkat(up_dir, name, text, sizeof(text) - 1);

		if (n < 0) {
			ce->error = "unreadable";
			return;
		}
		text[n] = '\0';
		if (!(ce->link = strdup(text)))
			w->err = -ENOMEM;
	} else if (S_ISREG(us->st_mode)) {
		_cleanup_close_ int fd = open_regular(up_dir, name, us, true);
		bool keep = w->with_data &&
			    (uint64_t)us->st_size <= w->max_data_bytes - w->cs->data_bytes;

		ce->size = (uint64_t)us->st_size;
		if (ce->size > w->hash_left) {
			ce->error = "too_large";
			return;
		}
		w->hash_left -= ce->size;
		if (fd < 0 || (ce->error = hash_file(fd, us, ce->sha256, keep ? &ce->data : NULL, w->cancel))) {
			ce->error = "unreadable";
			return;
		}
		ce->have_sha256 = true;
		if (keep) {
			ce->len = (size_t)us->st_size;
			w->cs->data_bytes += ce->len;
		} else if (w->with_data) {
			ce->error = "too_large";
		}
	}
}

/* Whether an upper entry differs from the lower one of the same type. */
static bool same_type_differs(int low_dir, const char *name, const struct stat *us,
			      const struct stat *ls, const struct change_entry *ce,
			      const atomic_bool *cancel)
{
	char a[CHANGES_PATH_MAX + 1];
	ssize_t n;

	if ((us->st_mode & 07777) != (ls->st_mode & 07777))
		return true;
	if (S_ISREG(us->st_mode))
		return lower_differs(low_dir, name, ls, ce, cancel);
	if (S_ISLNK(us->st_mode)) {
		n = readlinkat(low_dir, name, a, sizeof(a) - 1);
		if (n < 0 || !ce->link)
			return true;
		a[n] = '\0';
		return strcmp(a, ce->link) != 0;
	}
	if (S_ISCHR(us->st_mode) || S_ISBLK(us->st_mode))
		return us->st_rdev != ls->st_rdev;
	return false;
}

static void walk_dir(struct walker *w, int up_fd, int low_fd, bool opaque, char *path,
		     size_t plen, unsigned depth);

/* A directory of the upper layer (and the lower one it merges with, or
 * -1): its entries, then (opaque) the lower's it hides. */
static void descend(struct walker *w, int up_dir, int low_dir, const char *name, char *path,
		    size_t plen, unsigned depth, struct change_entry *ce, const struct stat *us)
{
	_cleanup_close_ int up = -1, low = -1;
	char mark[2] = "";
	bool opaque;

	if (depth >= CHANGES_MAX_DEPTH || plen >= CHANGES_PATH_MAX - 256) {
		if (ce)
			ce->error = "too_deep";
		return;
	}
	up = open_upper(up_dir, name, us, O_RDONLY | O_DIRECTORY);
	if (up < 0) {
		if (ce)
			ce->error = "unreadable";
		return;
	}
	opaque = fgetxattr(up, "user.overlay.opaque", mark, sizeof(mark)) == 1 && mark[0] == 'y';
	if (low_dir >= 0)
		low = open_child(low_dir, name, O_RDONLY | O_DIRECTORY, false);
	walk_dir(w, up, low, opaque, path, plen, depth + 1);
}

static struct change_entry *add_entry(struct walker *w, const char *path,
				      enum change_kind kind, mode_t type)
{
	struct change_entry *ce = change_set_add(w->cs, path);

	if (!ce && w->cs->n < CHANGES_MAX_ENTRIES)
		w->err = -ENOMEM;
	if (ce) {
		ce->kind = kind;
		ce->type = type_of(type);
	}
	return ce;
}

/* One name of an upper directory against the lower. */
static void upper_entry(struct walker *w, int up_fd, int low_fd, const char *name, char *path,
			size_t plen, unsigned depth)
{
	struct stat us, ls;
	bool have_low = low_fd >= 0 && fstatat(low_fd, name, &ls, AT_SYMLINK_NOFOLLOW) == 0;
	struct change_entry *ce = NULL;
	enum change_kind kind;

	if (fstatat(up_fd, name, &us, AT_SYMLINK_NOFOLLOW) < 0)
		return;
	if (is_whiteout(&us)) {
		if (have_low)
			add_entry(w, path, CHANGE_DELETED, ls.st_mode);
		return;
	}
	kind = !have_low ? CHANGE_ADDED
	     : type_of(us.st_mode) != type_of(ls.st_mode) ? CHANGE_TYPE_CHANGED : CHANGE_MODIFIED;
	if (kind != CHANGE_MODIFIED) {
		ce = add_entry(w, path, kind, us.st_mode);
		if (ce)
			read_content(w, up_fd, name, &us, ce);
	} else if (!S_ISDIR(us.st_mode) || (us.st_mode & 07777) != (ls.st_mode & 07777)) {
		struct change_entry probe = { .path = NULL };
		struct walker pw = { .cs = w->cs, .hash_left = w->hash_left, .cancel = w->cancel };

		/* Read first, keep only if it differs: a copy-up without a
		 * change (opened for writing, touched) is no change. */
		read_content(&pw, up_fd, name, &us, &probe);
		w->hash_left = pw.hash_left;
		if (same_type_differs(low_fd, name, &us, &ls, &probe, w->cancel) &&
		    (ce = add_entry(w, path, kind, us.st_mode)))
			read_content(w, up_fd, name, &us, ce);
		free(probe.link);
	}
	if (S_ISDIR(us.st_mode) && w->err == 0)
		descend(w, up_fd, kind == CHANGE_MODIFIED ? low_fd : -1, name, path, plen, depth, ce,
			&us);
}

/* A directory stream of dir_fd, which stays the caller's: on a
 * duplicate, which closedir() closes. NULL when none can be had. */
static DIR *dir_stream(int dir_fd)
{
	int fd = fcntl(dir_fd, F_DUPFD_CLOEXEC, 3);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d && fd >= 0)
		close(fd);
	return d;
}

/* The lower's entries an opaque upper directory hides: each deleted. */
static void hidden_entries(struct walker *w, int up_fd, int low_fd, char *path, size_t plen)
{
	DIR *d = dir_stream(low_fd);
	struct dirent *de;

	if (!d)
		return;
	while (w->err == 0 && !offload_stop(w->cancel) && (de = readdir(d))) {
		struct stat us, ls;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    fstatat(up_fd, de->d_name, &us, AT_SYMLINK_NOFOLLOW) == 0 ||
		    fstatat(low_fd, de->d_name, &ls, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		snprintf(path + plen, CHANGES_PATH_MAX - plen, "/%s", de->d_name);
		add_entry(w, path, CHANGE_DELETED, ls.st_mode);
	}
	path[plen] = '\0';
	closedir(d);
}

static void walk_dir(struct walker *w, int up_fd, int low_fd, bool opaque, char *path,
		     size_t plen, unsigned depth)
{
	DIR *d = dir_stream(up_fd);
	struct dirent *de;

	if (!d)
		return;
	while (w->err == 0 && (de = readdir(d))) {
		size_t n = strlen(de->d_name);

		if (offload_stop(w->cancel)) {
			w->err = -ECANCELED;
			break;
		}
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (plen + 1 + n >= CHANGES_PATH_MAX)
			continue; /* descend() stops well before this */
		path[plen] = '/';
		memcpy(path + plen + 1, de->d_name, n + 1);
		upper_entry(w, up_fd, low_fd, de->d_name, path, plen + 1 + n, depth);
		path[plen] = '\0';
	}
	closedir(d);
	if (opaque && low_fd >= 0 && w->err == 0)
		hidden_entries(w, up_fd, low_fd, path, plen);
}

/* The overlay's root: its own mode, then what is beneath it. */
static void walk_overlay(struct walker *w, int tmpfs_fd, const struct plan_mount *pm,
			 uint64_t hash_budget, char *path)
{
	struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
				.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	_cleanup_close_ int up = open_child(tmpfs_fd, "upper", O_RDONLY | O_DIRECTORY, false);
	/* a passed descriptor (serve) is the lower itself, not its path */
	_cleanup_close_ int low_path = pm->by_fd ? fcntl(pm->fd, F_DUPFD_CLOEXEC, 3)
						 : (int)syscall(SYS_openat2, AT_FDCWD, pm->source,
								&how, sizeof(how));
	_cleanup_close_ int low = -1;
	struct stat us, ls;
	size_t plen = strlen(pm->target);

	if (up < 0 || plen >= CHANGES_PATH_MAX - 256)
		return;
	w->hash_left = hash_budget;
	memcpy(path, pm->target, plen + 1);
	if (low_path >= 0)
		low = openat(low_path, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fstat(up, &us) == 0 && low >= 0 && fstat(low, &ls) == 0 &&
	    (us.st_mode & 07777) != (ls.st_mode & 07777)) {
		struct change_entry *ce = add_entry(w, path, CHANGE_MODIFIED, us.st_mode);

		if (ce)
			ce->mode = us.st_mode & 07777;
	}
	walk_dir(w, up, low, false, path, plen, 0);
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct change_entry *)a)->path, ((const struct change_entry *)b)->path);
}

int changes_read(const struct plan *plan, struct outcome *res, bool with_data,
		 uint64_t data_bytes)
{
	return changes_read_cancellable(plan, res, with_data, data_bytes, NULL);
}

int changes_read_cancellable(const struct plan *plan, struct outcome *res, bool with_data,
			     uint64_t data_bytes, const atomic_bool *cancel)
{
	struct walker w = { .cs = &res->changes, .with_data = with_data,
			    .max_data_bytes = data_bytes, .cancel = cancel };
	_cleanup_free_ char *path = malloc(CHANGES_PATH_MAX);
	uint64_t hash_budget = plan->limits.overlay_bytes > UINT64_MAX / 2
				       ? UINT64_MAX
				       : 2 * plan->limits.overlay_bytes;
	size_t k = 0;

	for (size_t i = 0; i < plan->n_mounts; i++) {
		if (!plan->mounts[i].overlay)
			continue;
		res->changes.present = true;
		if (path && k < res->n_overlay_fds && w.err == 0)
			walk_overlay(&w, res->overlay_fd[k], &plan->mounts[i], hash_budget, path);
		k++;
	}
	res->changes.with_data = with_data;
	res->changes.exported = with_data && plan->export_changes;
	/* by path: stable, and a directory comes before what it holds */
	if (res->changes.n)
		qsort(res->changes.e, res->changes.n, sizeof(*res->changes.e), by_path);
	for (size_t i = 0; i < res->n_overlay_fds; i++)
		close(res->overlay_fd[i]);
	res->n_overlay_fds = 0;
	return path ? w.err : -ENOMEM;
}
