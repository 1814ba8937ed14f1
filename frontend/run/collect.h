/* collect.h: files brought back from the jail's work dir after the run,
 * through the descriptor of its tmpfs that the helper sent us on the
 * control socket. A name is a relative path under the work dir, resolved
 * beneath it without following any symbolic link on the way. Bounded in
 * count and bytes; a name that is a symlink or anything but a regular
 * file (or, when walking, a directory) is reported, never followed.
 * Frontend only. */
#ifndef HUTCH_COLLECT_H
#define HUTCH_COLLECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "doc/outcome.h"

struct collect_limits {
	uint64_t max_count;	/* entries in all, a walked directory's included */
	uint64_t max_bytes;	/* the sum of every file's bytes */
	bool walk_dirs;		/* a directory is collected whole (host output) */
};

/* Read each name under dir_fd. Always fills *ret (errors per entry);
 * returns 0 or -ENOMEM. */
int collect_files(int dir_fd, char *const *names, size_t n, const struct collect_limits *lim,
		  struct collected *ret);
void collected_free(struct collected *c);

#endif
