/* collect-host.h: collected files written into a host directory (hutch run
 * without --json). Nothing on the way or at the destination is followed:
 * every directory is opened beneath the output directory with no symbolic
 * link allowed, a file goes to a fresh temporary name (O_EXCL) and is
 * renamed over the destination, which must be absent or a regular file.
 * Files get the caller's ownership and mode 0644, or 0755 when executable
 * in the jail and the policy let the work dir execute. Frontend only. */
#ifndef HUTCH_COLLECT_HOST_H
#define HUTCH_COLLECT_HOST_H

#include <stdbool.h>
#include <stddef.h>

#include "doc/outcome.h"

/* Write each entry of c without an error under out_fd, in order (a
 * directory before what it holds); sets write_error on each that could
 * not be written. Returns how many entries were not written, whether
 * for their own error or write_error. */
size_t collect_host_write(int out_fd, struct collected *c, bool allow_exec);

#endif
