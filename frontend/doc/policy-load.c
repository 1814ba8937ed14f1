/* policy-load.c: finding and opening policy files (policy-load.h). */
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
#include "doc/policy-extends.h"
#include "doc/policy-load.h"

/* shown_path is what the result reports as the policy's file; dir_index
 * the search directory it is in (-1: named by path). */
static int load_file(int dir_fd, const char *path, const char *shown_path, const char *name,
		     int dir_index, const struct policy_cache *cache, struct policy *ret,
		     struct verrors *e)
{
	_cleanup_close_ int fd = openat(dir_fd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	_cleanup_free_ char *text = NULL;
	struct stat st;
	size_t len;
	int r;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return verror_add(e, HUTCH_ERR_POLICY_INVALID, "", "not a regular file");
	if (cache && cache->get(cache->ctx, name, shown_path, &st, ret) == 0) {
		r = 0;
	} else {
		r = fd_slurp(fd, POLICY_MAX_BYTES, &text, &len);
		if (r == -EFBIG)
			return verror_add(e, HUTCH_ERR_POLICY_INVALID, "", "larger than 256 KiB");
		if (r < 0)
			return r;
		r = policy_resolve(text, len, name,
				   &(struct policy_source){ shown_path, st.st_dev, st.st_ino,
							    dir_index },
				   ret, e);
		if (r < 0)
			return r;
		/* "extends" anywhere, even in a string: not cached */
		if (cache && !memmem(text, len, "extends", 7))
			cache->put(cache->ctx, name, shown_path, &st, ret);
	}
	if (!(ret->file = strdup(shown_path))) {
		policy_free(ret);
		return -ENOMEM;
	}
	return 0;
}

int policy_load(const char *name_or_path, struct policy *ret, struct verrors *e)
{
	return policy_load_cached(name_or_path, NULL, ret, e);
}

int policy_load_cached(const char *name_or_path, const struct policy_cache *cache,
		       struct policy *ret, struct verrors *e)
{
	if (strchr(name_or_path, '/')) {
		const char *base = strrchr(name_or_path, '/') + 1;
		_cleanup_free_ char *name = strdup(base[0] ? base : "policy");
		char *dot, real[PATH_MAX];

		if (!name)
			return -ENOMEM;
		if ((dot = strstr(name, ".json")) && dot[5] == '\0')
			*dot = '\0';
		return load_file(AT_FDCWD, name_or_path,
				 realpath(name_or_path, real) ? real : name_or_path, name, -1, cache,
				 ret, e);
	}
	if (!policy_name_valid(name_or_path))
		return -ENOENT;
	for (const char *const *d = policy_search_dirs(); *d; d++) {
		_cleanup_close_ int dir_fd = open(*d, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		char file[POLICY_NAME_MAX + 8], shown[PATH_MAX];
		int r;

		if (dir_fd < 0)
			continue;
		snprintf(file, sizeof(file), "%s.json", name_or_path);
		snprintf(shown, sizeof(shown), "%s/%s", *d, file);
		r = load_file(dir_fd, file, shown, name_or_path, (int)(d - policy_search_dirs()),
			      cache, ret, e);
		if (r != -ENOENT)
			return r; /* the first directory that has it decides */
	}
	return -ENOENT;
}
