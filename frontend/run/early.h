/* early.h: hutch-exec started before the plan is made. Frontend only. */
#ifndef HUTCH_EARLY_H
#define HUTCH_EARLY_H

#include <stddef.h>
#include <stdint.h>

struct exec_early;
struct host_id_lease;
struct jail_proc;

/* hutch-exec (helper_path) started before the plan is made (the CLI,
 * first thing), so its exec and start-up run on another core while the
 * policy is read: with --ahead it clones the jail's namespaces meanwhile
 * (hutch-exec(8), CLONE AHEAD), then waits for its spec. Only for the
 * usual shape of a run (stdin through a pipe, no cgroup to join at clone
 * time); NULL otherwise, or on any failure, and exec_start then spawns
 * as ever. exec_start (execute.h, exec_opts.early) uses or discards it;
 * exec_early_discard ends one never used: its spec pipe closed, it
 * reaped (bounded), nothing of it left. */
struct exec_early *exec_early_start(const char *helper_path);
void exec_early_discard(struct exec_early *e);

/* As root, the host ids leased for its clone ahead move to *ret (which
 * then holds no lease if it had none: lock_fd -1); the run keeps them
 * whether it adopts the helper or not. */
void early_take_lease(struct exec_early *e, struct host_id_lease *ret);

/* The run takes the helper (into *ret_jp) and our end of its control
 * socket, and the spec is started on its pipe (spawn_spec_start); e is
 * freed. */
void early_adopt(struct exec_early *e, const uint8_t *spec, size_t spec_len,
		 struct jail_proc *ret_jp, int *ret_control);

#endif
