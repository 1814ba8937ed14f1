/* forkserver.h: `hutch serve`'s long-lived helper, `hutch-exec
 * --forkserver` (hutch-exec(8), "FORKSERVER"): started once, it forks one
 * one-shot helper per jail from the descriptors we send it, so a run pays
 * neither our fork nor the helper's exec. It holds no state of a run but
 * the exit pipe it reports the helper's wait status on. Frontend only. */
#ifndef HUTCH_FORKSERVER_H
#define HUTCH_FORKSERVER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "run/spawn.h"

struct forkserver {
	int sock;	/* SOCK_SEQPACKET to it */
	pid_t pid;	/* -1: none, or stopped after it broke */
	int pidfd;
	unsigned pool;	/* jails it builds ahead (--pool); 0: none */
};

/* Start helper as a forkserver; it dies with us (PDEATHSIG) and exits
 * when sock closes. With pool > 0 (at most HUTCH_FS_POOL_MAX), it keeps
 * up to that many jails of the last poolable spec's shape built ahead
 * (hutch-exec(8), FORKSERVER). 0 or -errno. */
int forkserver_start(const char *helper, unsigned pool, struct forkserver *ret);

/* Close its socket, kill and reap it: every jail it started dies too. */
void forkserver_stop(struct forkserver *fs);

/* As spawn_helper, through the forkserver: ret->pidfd is for signals,
 * ret->exit_rd says when the helper is gone. -errno: no jail started;
 * fs->pid is -1 afterwards when the forkserver itself broke. */
int forkserver_spawn(struct forkserver *fs, const uint8_t *spec, size_t spec_len,
		     const struct spawn_stdio *io, struct jail_proc *ret);

/* wait4 for a forkserver's child: the record on jp->exit_rd. The status,
 * -EAGAIN (WNOHANG, not yet) or -ECHILD (the forkserver died first). */
int forkserver_reap(struct jail_proc *jp, int flags, struct rusage *ru);

#endif
