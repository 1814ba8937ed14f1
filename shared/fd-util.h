/* fd-util.h: descriptor helpers for both binaries. EINTR is retried here
 * and nowhere else. fd_read_exact and fd_write_all are async-signal-safe. */
#ifndef HUTCH_FD_UTIL_H
#define HUTCH_FD_UTIL_H

#include <stddef.h>
#include <sys/types.h>

/* Read exactly n bytes. 0 on success; -EPIPE when EOF comes first (a record
 * cut short); -errno otherwise. */
int fd_read_exact(int fd, void *buf, size_t n); /* as-safe */

/* Read up to n bytes, stopping only at EOF or n. Returns bytes read or -errno. */
long fd_read_full(int fd, void *buf, size_t n); /* as-safe */

/* Write all n bytes. 0 or -errno. */
int fd_write_all(int fd, const void *buf, size_t n); /* as-safe */

/* Whole file or pipe into a fresh NUL-terminated buffer, at most max bytes
 * (-EFBIG past that). Writes *ret_buf and *ret_len on success. */
int fd_slurp(int fd, size_t max, char **ret_buf, size_t *ret_len);

/* A pidfd for CHILD, a process we just forked (the clone3 fallback):
 * when the kernel will not give one, the child is killed and reaped
 * (nothing may run that we cannot signal) and -errno returned. */
int pidfd_or_reap(pid_t child);

/* Close *fd if open and mark it closed (-1), for descriptors a struct
 * owns and gives up before the struct goes. */
void fd_close(int *fd);

#endif
