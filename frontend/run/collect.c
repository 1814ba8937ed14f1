/* collect.c: see collect.h. The jail is gone when this runs (the helper
 * has exited, which means its pid namespace is empty), so nothing races
 * us; we still open with O_NOFOLLOW and check the type on the descriptor.
 * Frontend only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "fd-util.h"
#include "run/collect.h"

/* One file: NULL with *ret and *ret_len, or the error word for it. A file
 * that shrank under us is kept as far as it went; a read error is not a
 * short file but "unreadable". */
static const char *read_one(int dir_fd, const char *name, uint64_t room, uint8_t **ret,
			    size_t *ret_len)
{
	_cleanup_close_ int fd = openat(dir_fd, name,
					O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	_cleanup_free_ uint8_t *buf = NULL;
	struct stat st;
	long got;

	if (fd < 0)
		return errno == ENOENT ? "missing" : errno == ELOOP ? "not_regular" : "unreadable";
	if (fstat(fd, &st) < 0)
		return "unreadable";
	if (!S_ISREG(st.st_mode))
		return "not_regular";
	if ((uint64_t)st.st_size > room)
		return "too_large";
	buf = malloc((size_t)st.st_size + 1);
	if (!buf)
		return "unreadable";
	got = fd_read_full(fd, buf, (size_t)st.st_size);
	if (got < 0)
		return "unreadable";
	*ret = TAKE_PTR(buf);
	*ret_len = (size_t)got;
	return NULL;
}

int collect_files(int dir_fd, char *const *names, size_t n, uint64_t max_bytes,
		  struct collected *ret)
{
	uint64_t used = 0;

	ret->files = calloc(n + 1, sizeof(*ret->files));
	ret->n = 0;
	if (!ret->files)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct collected_file *f = &ret->files[i];

		f->name = strdup(names[i]);
		if (!f->name)
			return -ENOMEM;
		ret->n = i + 1;
		if (dir_fd < 0) {
			f->error = "missing";
			continue;
		}
		f->error = read_one(dir_fd, names[i], max_bytes - used, &f->data, &f->len);
		used += f->len;
	}
	return 0;
}

void collected_free(struct collected *c)
{
	for (size_t i = 0; c->files && i < c->n; i++) {
		free(c->files[i].name);
		free(c->files[i].data);
	}
	free(c->files);
	c->files = NULL;
	c->n = 0;
}
