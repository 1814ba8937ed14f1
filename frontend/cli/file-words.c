/* file-words.c: the files the caller names (see file-words.h): errors
 * about them in words, reading --request's, and opening the directories
 * `hutch run` writes into. Frontend only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "fd-util.h"

#include "cli/file-words.h"
#include "doc/units.h"

void file_words_errno(const char *path, const char *doing, int err, char *buf, size_t cap)
{
	const char *name = strerrorname_np(err);

	snprintf(buf, cap, "%s: %s: %s (%s)", path, doing, strerror(err), name ? name : "?");
}

void file_words_size(const char *path, uint64_t size, uint64_t limit, char *buf, size_t cap)
{
	char have[32], max[32];

	units_format_size(limit, max, sizeof(max));
	if (size == 0) {
		snprintf(buf, cap, "%s: over the limit of %" PRIu64 " bytes (%s)", path, limit, max);
		return;
	}
	units_format_size(size, have, sizeof(have));
	/* "(40M)" only where a unit says it shorter than the bytes do. */
	if (strspn(have, "0123456789") == strlen(have))
		snprintf(buf, cap, "%s: %" PRIu64 " bytes, over the limit of %" PRIu64 " bytes (%s)",
			 path, size, limit, max);
	else
		snprintf(buf, cap, "%s: %" PRIu64 " bytes (%s), over the limit of %" PRIu64
			 " bytes (%s)", path, size, have, limit, max);
}

/* A --request file that cannot be used, in words naming it: what failed
 * and err (an errno), or what alone (err 0), or the size over the limit
 * (both 0). */
static int request_file_error(struct verrors *e, const char *file, int err, const char *what,
			      uint64_t size)
{
	char why[PATH_MAX + 200];
	const char *kept;

	if (err)
		file_words_errno(file, what, err, why, sizeof(why));
	else if (what)
		snprintf(why, sizeof(why), "%s: %s", file, what);
	else
		file_words_size(file, size, REQ_MAX_DOC_BYTES, why, sizeof(why));
	snprintf(why + strlen(why), sizeof(why) - strlen(why), " (--request)");
	kept = verror_intern(why);
	return verror_add(e, HUTCH_ERR_INVALID_REQUEST, "",
			  kept ? kept : "the request file cannot be read");
}

/* --request FILE: like --input, a regular file, opened without blocking
 * or following a symlink; a pipe is read as "-" (stdin). */
int file_read_request(const char *file, struct request *req, struct verrors *e)
{
	bool is_stdin = strcmp(file, "-") == 0;
	_cleanup_close_ int fd = is_stdin ? -1 : open(file, O_RDONLY | O_NONBLOCK | O_NOFOLLOW |
								O_NOCTTY | O_CLOEXEC);
	_cleanup_free_ char *text = NULL;
	struct stat st;
	size_t len;
	int r;

	if (!is_stdin && fd < 0)
		return errno == ELOOP ? request_file_error(e, file, 0, "is a symbolic link; name "
							   "the file itself", 0)
				      : request_file_error(e, file, errno, "cannot open", 0);
	if (!is_stdin && (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)))
		return request_file_error(e, file, 0, "not a regular file (give a pipe as -)", 0);
	r = fd_slurp(fd >= 0 ? fd : 0, REQ_MAX_DOC_BYTES, &text, &len);
	if (r == -EFBIG)
		return request_file_error(e, is_stdin ? "standard input" : file, 0, NULL,
					  is_stdin ? 0 : (uint64_t)st.st_size);
	if (r < 0)
		return request_file_error(e, is_stdin ? "standard input" : file, -r, "cannot read", 0);
	return request_parse(text, len, req, e);
}

int file_open_dir(const char *flag, const char *dir, int *ret_fd)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	const char *why;

	if (fd >= 0) {
		*ret_fd = fd;
		return 0;
	}
	why = errno == ELOOP	 ? "is a symbolic link; name the directory itself"
	      : errno == ENOTDIR ? "not a directory; name an existing directory"
	      : errno == ENOENT	 ? "no such directory; create it first"
				 : "cannot open the directory";
	fprintf(stderr, "hutch run: %s: %s\nTry 'hutch run --help'.\n", flag, why);
	return -EINVAL;
}
