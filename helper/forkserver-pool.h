/* forkserver-pool.h: the forkserver's pool of jails built before they
 * are asked for (forkserver-pool.c). Helper only; async-signal-safe,
 * no allocation. */
#ifndef HUTCH_FORKSERVER_POOL_H
#define HUTCH_FORKSERVER_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "forkserver-wire.h"

/* The arguments after --forkserver: none, or "--pool N" (N at most
 * HUTCH_FS_POOL_MAX). 0 or -EINVAL. */
int fs_pool_init(int argc, char **argv);

/* The poll timeout for the loop, given how many jobs are being built or
 * run: 0 when a jail should be built on the next idle turn
 * (fs_pool_fill_one; while no job runs, or fewer jobs and fills since
 * the last request or reaped child than processors, or requests have
 * been quiet), the ms until then or until the idle teardown, or -1;
 * past the idle time, every pooled jail goes first. */
int fs_pool_timeout(size_t jobs);
void fs_pool_fill_one(void);

/* A request: the pid of the pooled jail that took its descriptors (the
 * pidfd in *ret_pidfd, the caller's to close), or 0 when none did and a
 * one-shot helper must be forked. Remembers a poolable request's shape. */
pid_t fs_pool_take(const struct hutch_fs_request *rq, const int slot_fd[FS_SLOTS],
		   const int *bind_fds, int *ret_pidfd);

/* A request's template (slot FS_SLOT_TEMPLATE, -1: none), kept for the
 * fills of its shape when the request is poolable; before anything else
 * of the request, whatever its answer (the frontend counts it sent). */
void fs_pool_keep_template(const struct hutch_fs_request *rq, int fd);

/* A child reaped: true when it was a pooled jail, now dropped. */
bool fs_pool_reaped(pid_t pid);
void fs_pool_drop_all(void);

#endif
