/* collect.h: files brought back from the jail's work dir after the run,
 * through the descriptor of its tmpfs that the helper sent us on the
 * control socket. Bounded in
 * count and bytes; a name that is a symlink, a directory or anything but a
 * regular file is reported, never followed. Frontend only. */
#ifndef HUTCH_COLLECT_H
#define HUTCH_COLLECT_H

#include <stddef.h>
#include <stdint.h>

#include "doc/outcome.h"

/* Read each name under dir_fd. max_bytes bounds the sum. Always fills
 * *ret (errors per file); returns 0 or -ENOMEM. */
int collect_files(int dir_fd, char *const *names, size_t n, uint64_t max_bytes,
		  struct collected *ret);
void collected_free(struct collected *c);

#endif
