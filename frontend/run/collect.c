/* collect.c: see collect.h. The jail is gone when this runs (the helper
 * has exited, which means its pid namespace is empty), so nothing races
 * us; still every lookup is openat2 beneath the work dir's root, with no
 * symbolic link, magic link or mount crossing anywhere on the path (a link
 * in the tmpfs must never lead to a host path: we resolve it in our own
 * mount namespace), and the type is checked on the descriptor.
 * Frontend only. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "fd-util.h"
#include "run/collect.h"

/* How deep a walked directory may nest below its collect name. */
#define COLLECT_MAX_DEPTH 32

struct walk {
	int root_fd;
	const struct collect_limits *lim;
	uint64_t used_bytes;
	struct collected *c;
};

static int open_beneath(int root_fd, const char *name, int flags)
{
	struct open_how how = {
		/* openat2 refuses O_NOCTTY beside O_PATH */
		.flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC | (flags & O_PATH ? 0 : O_NOCTTY)),
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
			   RESOLVE_NO_XDEV,
	};

	return (int)syscall(SYS_openat2, root_fd, name, &how, sizeof(how));
}

/* The word for a lookup that failed: ELOOP is a link on the path. */
static const char *open_error(int err)
{
	return err == ENOENT || err == ENOTDIR ? "missing" : err == ELOOP ? "not_regular"
								     : "unreadable";
}

static struct collected_file *new_entry(struct walk *w, const char *name)
{
	struct collected_file *f;

	if (w->c->n == w->c->alloc) {
		size_t alloc = w->c->alloc ? w->c->alloc * 2 : 16;
		struct collected_file *nf = reallocarray(w->c->files, alloc, sizeof(*nf));

		if (!nf)
			return NULL;
		w->c->files = nf;
		w->c->alloc = alloc;
	}
	f = &w->c->files[w->c->n];
	memset(f, 0, sizeof(*f));
	f->name = strdup(name);
	if (!f->name)
		return NULL;
	w->c->n++;
	if (w->c->n > w->lim->max_count)
		f->error = "too_many";
	return f;
}

/* A regular file whose O_PATH descriptor said so: read it whole. */
static const char *read_file(struct walk *w, const char *name, const struct stat *st,
			     struct collected_file *f)
{
	_cleanup_close_ int fd = open_beneath(w->root_fd, name, O_RDONLY | O_NONBLOCK);
	_cleanup_free_ uint8_t *buf = NULL;
	struct stat again;
	long got;

	if ((uint64_t)st->st_size > w->lim->max_bytes - w->used_bytes)
		return "too_large";
	if (fd < 0 || fstat(fd, &again) < 0 || again.st_ino != st->st_ino ||
	    again.st_dev != st->st_dev || !S_ISREG(again.st_mode))
		return "unreadable";
	buf = malloc((size_t)st->st_size + 1);
	if (!buf)
		return "unreadable";
	got = fd_read_full(fd, buf, (size_t)st->st_size);
	if (got < 0)
		return "unreadable";
	f->data = TAKE_PTR(buf);
	f->len = (size_t)got;
	f->executable = (st->st_mode & S_IXUSR) != 0;
	w->used_bytes += f->len;
	return NULL;
}

static int collect_one(struct walk *w, const char *name, unsigned depth);

/* Each entry of a directory, by its path from the work dir; stops at the
 * first entry past the count budget (reported as too_many). */
static int walk_dir(struct walk *w, const char *name, unsigned depth)
{
	_cleanup_close_ int fd = open_beneath(w->root_fd, name, O_RDONLY | O_DIRECTORY);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;
	int r = 0;

	if (!d)
		return 1; /* unreadable */
	fd = -1; /* the DIR owns it */
	while (r == 0 && (de = readdir(d))) {
		_cleanup_free_ char *child = NULL;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (asprintf(&child, "%s/%s", name, de->d_name) < 0) {
			r = -ENOMEM;
			break;
		}
		r = collect_one(w, child, depth + 1);
		if (r == 0 && w->c->files[w->c->n - 1].error &&
		    strcmp(w->c->files[w->c->n - 1].error, "too_many") == 0)
			break;
	}
	closedir(d);
	return r;
}

/* One entry for name, then (walking) its children. */
static int collect_one(struct walk *w, const char *name, unsigned depth)
{
	struct collected_file *f = new_entry(w, name);
	_cleanup_close_ int fd = -1;
	struct stat st;
	size_t idx;
	int r;

	if (!f)
		return -ENOMEM;
	if (f->error)
		return 0;
	if (w->root_fd < 0) {
		f->error = "missing";
		return 0;
	}
	if (strlen(name) >= PATH_MAX || depth > COLLECT_MAX_DEPTH) {
		f->error = "unreadable";
		return 0;
	}
	fd = open_beneath(w->root_fd, name, O_PATH);
	if (fd < 0 || fstat(fd, &st) < 0) {
		f->error = open_error(errno);
		return 0;
	}
	if (S_ISREG(st.st_mode)) {
		f->error = read_file(w, name, &st, f);
		return 0;
	}
	if (!S_ISDIR(st.st_mode) || !w->lim->walk_dirs) {
		f->error = "not_regular";
		return 0;
	}
	f->is_dir = true;
	idx = w->c->n - 1; /* f moves when the array grows */
	r = walk_dir(w, name, depth);
	if (r > 0)
		w->c->files[idx].error = "unreadable";
	return r < 0 ? r : 0;
}

int collect_files(int dir_fd, char *const *names, size_t n, const struct collect_limits *lim,
		  struct collected *ret)
{
	struct walk w = { .root_fd = dir_fd, .lim = lim, .c = ret };
	int r = 0;

	memset(ret, 0, sizeof(*ret));
	for (size_t i = 0; i < n && r == 0; i++)
		r = collect_one(&w, names[i], 0);
	return r;
}

void collected_free(struct collected *c)
{
	for (size_t i = 0; c->files && i < c->n; i++) {
		free(c->files[i].name);
		free(c->files[i].data);
	}
	free(c->files);
	c->files = NULL;
	c->n = c->alloc = 0;
}
