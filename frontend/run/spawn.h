/* spawn.h: start hutch-exec with its spec and status pipes and the
 * target's stdio, and hold it by pidfd. Frontend only. */
#ifndef HUTCH_SPAWN_H
#define HUTCH_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct spec;

struct jail_proc {
	pid_t pid;
	int pidfd;
	int status_rd;	/* close-on-exec status pipe, read end */
	int stdin_wr;	/* -1 when the target reads our own stdin */
	int stdout_rd;
	int stderr_rd;
	int exit_rd;	/* -1, or a forkserver's child: its wait status comes
			 * here (run/forkserver.h), as only a parent can wait */
	int spec_wr;	/* -1, or the spec's pipe while spec_off of it is
			 * written: the run's watch writes the rest */
	size_t spec_off;
	bool helper_waited; /* reaped, exited of its own accord (no signal,
			     * not 71): it waited for pid 1 (reaper.c) */
};

/* The spec to the helper without blocking: what the pipe takes now is
 * written, and when some is left *spec_wr (made non-blocking) moves to
 * ret->spec_wr with ret->spec_off, for the run's watch to finish as the
 * helper reads (a spec is up to 64 MiB; a helper that stops reading
 * must not stop an event loop). Otherwise *spec_wr is closed. */
void spawn_spec_start(int *spec_wr, const uint8_t *spec, size_t spec_len, struct jail_proc *ret);

struct spawn_stdio {
	bool pipe_stdin;	/* else the target inherits our fd 0 */
	bool null_stdin;	/* /dev/null instead of either */
	int control_sock;	/* passed as HUTCH_CONTROL_FD, or -1 */
	int cgroup_fd;		/* start the helper in this cgroup, or -1 */
	const int *bind_fds;	/* a serve client's bind sources, passed as
				 * HUTCH_BIND_FD_FIRST and up (hutch-abi.h) */
	size_t n_bind_fds;	/* at most HUTCH_BIND_FDS_MAX */
	/* The spec before encoding and how many of its mounts are the
	 * policy's prefix (jail/layout.h n_prefix): a forkserver with a
	 * pool builds jails with those ahead (run/forkserver-template.c).
	 * NULL and 0: none. */
	const struct spec *prefix_spec;
	uint32_t n_prefix;
	bool ahead;		/* `hutch-exec --ahead`: pid 1 cloned before the spec */
	uint32_t ahead_owner;	/* and as root, the host uid that owns it (never 0) */
};

/* The pipes between us and one helper: spec, status, the target's stdio.
 * spawn_pipes_open makes them (larger pipes for bulk output, /dev/null
 * for a null stdin); spawn_pipes_keep moves our ends into ret (stdin's
 * only when piped) and closes the child's spec end; spawn_pipes_close
 * closes whatever is still open. Shared by spawn.c and forkserver.c. */
struct spawn_pipes {
	int spec[2], status[2], in[2], out[2], err[2];
	int null_fd;
};
int spawn_pipes_open(struct spawn_pipes *sp, const struct spawn_stdio *io);
void spawn_pipes_keep(struct spawn_pipes *sp, struct jail_proc *ret);
void spawn_pipes_close(struct spawn_pipes *sp);
/* The fd the target reads as stdin: our pipe, /dev/null or our own 0. */
int spawn_pipes_stdin(const struct spawn_pipes *sp, const struct spawn_stdio *io);

/* Fork and exec helper_path with the spec on fd 3 and the status pipe on
 * fd 4; stdout and stderr always come back through pipes. The child asks
 * for SIGKILL when we die, so even a SIGKILLed frontend takes the jail
 * down. Starts the spec (spawn_spec_start); spec must stay valid until
 * the watch has written it. Returns 0 or -errno. */
int spawn_helper(const char *helper_path, const uint8_t *spec, size_t spec_len,
		 const struct spawn_stdio *io, struct jail_proc *ret);

/* The same, but the spec is written later on *ret_spec_wr (the caller's
 * to write whole and close): the helper's exec and start-up overlap
 * whatever the caller does meanwhile, and it does nothing before the spec
 * has arrived. */
int spawn_helper_early(const char *helper_path, const struct spawn_stdio *io,
		       struct jail_proc *ret, int *ret_spec_wr);
void jail_proc_close(struct jail_proc *jp);

#endif
