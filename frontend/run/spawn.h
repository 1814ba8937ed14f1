/* spawn.h: start hutch-exec with its spec and status pipes and the
 * target's stdio, and hold it by pidfd. Frontend only. */
#ifndef HUTCH_SPAWN_H
#define HUTCH_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct jail_proc {
	pid_t pid;
	int pidfd;
	int status_rd;	/* close-on-exec status pipe, read end */
	int stdin_wr;	/* -1 when the target reads our own stdin */
	int stdout_rd;
	int stderr_rd;
};

struct spawn_stdio {
	bool pipe_stdin;	/* else the target inherits our fd 0 */
	bool null_stdin;	/* /dev/null instead of either */
	int control_sock;	/* passed as HUTCH_CONTROL_FD, or -1 */
	int cgroup_fd;		/* start the helper in this cgroup, or -1 */
};

/* Fork and exec helper_path with the spec on fd 3 and the status pipe on
 * fd 4; stdout and stderr always come back through pipes. The child asks
 * for SIGKILL when we die, so even a SIGKILLed frontend takes the jail
 * down. Writes the whole spec before returning. Returns 0 or -errno. */
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
