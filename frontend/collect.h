/* collect.h: files brought back from the jail's work dir after the run,
 * through the descriptor of its tmpfs that the helper sent us on the
 * control socket. Bounded in
 * count and bytes; a name that is a symlink, a directory or anything but a
 * regular file is reported, never followed. Frontend only. */
#ifndef HUTCH_COLLECT_H
#define HUTCH_COLLECT_H

#include <stddef.h>
#include <stdint.h>

struct collected_file {
	char *name;
	uint8_t *data;	/* NULL when error is set */
	size_t len;
	const char *error;	/* NULL, "missing", "not_regular", "too_large", "unreadable" */
};

struct collected {
	struct collected_file *files;
	size_t n;
};

/* Read each name under dir_fd. max_bytes bounds the sum. Always fills
 * *ret (errors per file); returns 0 or -ENOMEM. */
int collect_files(int dir_fd, char *const *names, size_t n, uint64_t max_bytes,
		  struct collected *ret);
void collected_free(struct collected *c);

#endif
