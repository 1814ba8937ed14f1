/* early.c: hutch-exec started before its plan exists, with --ahead so
 * that it clones the jail's namespaces meanwhile; execute.c adopts or
 * discards it (early.h). Frontend only. */
#include "config.h"

#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fd-util.h"
#include "doc/outcome.h"
#include "jail/cgroup.h"
#include "jail/host-ids.h"
#include "run/early.h"
#include "run/spawn.h"
#include "run/supervise.h"

struct exec_early {
	struct jail_proc jp;
	int spec_wr;		/* the helper waits on this for its spec */
	int control_sock;	/* our end; the helper has the other */
	struct host_id_lease ids; /* root: the jail's host ids, leased first */
};

/* hutch-exec --ahead clones the jail's namespaces before it has the
 * spec. A root caller's jail is owned by the host ids it runs as
 * (hutch-exec(8), CLONE AHEAD; jail/host-ids.h), so as root they are
 * leased now, passed on its command line, and the run keeps this lease
 * (early_take_lease); without one, no clone ahead. */
static void early_lease(struct exec_early *e, struct spawn_stdio *io)
{
	char why[OUTCOME_DETAIL_MAX];

	io->ahead = true;
	if (geteuid() != 0)
		return;
	if (host_ids_acquire(&e->ids, why, sizeof(why)) < 0) {
		io->ahead = false; /* exec_start says why, with the run's words */
		return;
	}
	io->ahead_owner = e->ids.uid;
}

struct exec_early *exec_early_start(const char *helper_path)
{
	struct spawn_stdio io = { .pipe_stdin = true, .control_sock = -1, .cgroup_fd = -1 };
	struct exec_early *e;
	struct cgroup_info ci;
	char why[256];
	int sock[2], r;

	/* A delegated cgroup is joined at clone time, with the plan's limits:
	 * then exec_start spawns as ever. */
	if (access(helper_path, X_OK) < 0 || cgroup_detect(&ci, why, sizeof(why)) == 0)
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sock) < 0) {
		free(e);
		return NULL;
	}
	e->spec_wr = -1;
	e->control_sock = sock[0];
	e->ids.lock_fd = -1;
	e->jp = (struct jail_proc){ .pid = -1, .pidfd = -1, .status_rd = -1, .stdin_wr = -1,
				    .stdout_rd = -1, .stderr_rd = -1, .exit_rd = -1, .spec_wr = -1 };
	io.control_sock = sock[1];
	early_lease(e, &io);
	r = spawn_helper_early(helper_path, &io, &e->jp, &e->spec_wr);
	close(sock[1]);
	if (r < 0) {
		close(sock[0]);
		host_ids_release(&e->ids);
		free(e);
		return NULL;
	}
	return e;
}

#define EARLY_EXIT_GRACE_MS 2000

void exec_early_discard(struct exec_early *e)
{
	if (!e)
		return;
	/* It never had a spec: no jail. Its end of file first: with --ahead
	 * it then kills and reaps its early pid 1 itself before it exits, so
	 * that nothing is left once we have reaped it (a SIGKILL would leave
	 * that pid 1 to its PDEATHSIG, dying on its own time). Bounded: a
	 * helper that does not exit is killed. */
	fd_close(&e->spec_wr);
	fd_close(&e->control_sock);
	(void)jail_kill_and_reap(&e->jp, EARLY_EXIT_GRACE_MS, NULL);
	jail_proc_close(&e->jp);
	host_ids_release(&e->ids); /* unless the run took it */
	free(e);
}

void early_take_lease(struct exec_early *e, struct host_id_lease *ret)
{
	*ret = e->ids;
	e->ids.lock_fd = -1;
}

void early_adopt(struct exec_early *e, const uint8_t *spec, size_t spec_len,
		 struct jail_proc *ret_jp, int *ret_control)
{
	*ret_jp = e->jp;
	*ret_control = e->control_sock;
	spawn_spec_start(&e->spec_wr, spec, spec_len, ret_jp); /* a dead helper: its status says */
	free(e);
}
