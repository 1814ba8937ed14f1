/* execute.h: one plan, run: compile its filter, build and encode its spec,
 * spawn hutch-exec, supervise to the end, and classify what happened.
 * Frontend only; used by `run`, `probe` and `serve`. */
#ifndef HUTCH_EXECUTE_H
#define HUTCH_EXECUTE_H

#include <stdatomic.h>
#include <stdbool.h>

#include "doc/plan.h"
#include "run/collect.h"
#include "run/supervise.h"

struct forkserver;
struct user_caps_memo;

struct exec_opts {
	bool passthrough;	/* stream output to fds 1 and 2 */
	bool forward_stdin;	/* forward stdin_fd to the target */
	int stdin_fd;		/* what to forward: 0 in pass-through mode */
	uint64_t kill_grace_ms;
	bool unbounded_stdout;	/* keep all stdout: the caller consumes it (sessions) */
	struct exec_early *early; /* from exec_early_start, or NULL; always consumed */
	bool explain;		/* --explain: log what the jail withholds (run/explain.h) */
	bool collect_dirs;	/* collect a directory whole (run/collect-host.c writes it) */
	bool tty;		/* --tty: a pty of the jail's own, relayed to stdin_fd and fd 1 */
	/* serve's forkserver: spawn through it while it works; NULL, the
	 * one-shot path. It must outlive every run started with it. */
	struct forkserver *fs;
	bool changes_data;	/* --changes-dir: keep the overlays' changed files' bytes */
	bool drop_privileges;	/* the last helper this process starts: then keep only
				 * what run/least-privilege.c lists */
	unsigned concurrency;	/* jails of this caller at once, for per-user caps
				 * (jail/user-caps.h); 0: USER_CAPS_CLI_CONCURRENCY */
	struct user_caps_memo *caps_memo; /* serve's: the quotas read at most once a
					   * second (jail/user-caps.h); NULL: now */
};

/* Always fills *ret (a refused jail is an outcome too; a failure of our
 * own before spawning is OUTCOME_FAILED with ret->err saying which) and
 * *ret_files (the plan's collect list, read after the jail is gone).
 * Returns 0 or the -errno of our own failure. */
int execute_plan(const struct plan *plan, const struct exec_opts *eo, struct outcome *ret,
		 struct collected *ret_files);

/* The same in steps, for an event loop running many jails (serve):
 * exec_start spawns (or fills *res and fails), exec_watch gives the watch
 * to attach to the loop, exec_finish completes *res, collects, and frees
 * the run; it waits for nothing once watch_done said so. exec_move: the
 * plan and outcome moved (a worker handed to serve's reaper keeps
 * running on copies); x and its watch use them from now on. */
struct exec_run;
int exec_start(const struct plan *plan, const struct exec_opts *eo, struct outcome *res,
	       struct exec_run **ret);
struct jail_watch *exec_watch(struct exec_run *x);
void exec_finish(struct exec_run *x, struct collected *ret_files);
/* exec_finish in three steps, for serve to read files off its loop:
 * exec_finish_jail (the loop's: the watch finished, the outcome
 * classified), exec_finish_files (any thread, once: --collect and the
 * overlays' change set, the bounded walks; stopped at the next step once
 * *cancel is set, run/offload.h, leaving no change set), exec_free.
 * exec_has_files: whether the second step has anything to read. */
void exec_finish_jail(struct exec_run *x);
bool exec_has_files(const struct exec_run *x);
void exec_finish_files(struct exec_run *x, struct collected *ret_files,
		       const atomic_bool *cancel);
void exec_free(struct exec_run *x);
void exec_move(struct exec_run *x, const struct plan *plan, struct outcome *res);

/* hutch-exec started before the plan is made: run/early.h. */
struct exec_early;

/* Where the helper is: $HUTCH_EXEC when the build allows a test override,
 * else the configured path. */
const char *execute_helper_path(void);

#endif
