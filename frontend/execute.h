/* execute.h: one plan, run: compile its filter, build and encode its spec,
 * spawn hutch-exec, supervise to the end, and classify what happened.
 * Frontend only; used by `run`, `probe` and `serve`. */
#ifndef HUTCH_EXECUTE_H
#define HUTCH_EXECUTE_H

#include <stdbool.h>

#include "collect.h"
#include "plan.h"
#include "supervise.h"

struct exec_opts {
	bool passthrough;	/* stream output to fds 1 and 2 */
	bool forward_stdin;	/* forward our fd 0 (pass-through mode) */
	uint64_t kill_grace_ms;
};

/* Always fills *ret (a refused jail is an outcome too; a failure of our
 * own before spawning is OUTCOME_FAILED with ret->err saying which) and
 * *ret_files (the plan's collect list, read after the jail is gone).
 * Returns 0 or the -errno of our own failure. */
int execute_plan(const struct plan *plan, const struct exec_opts *eo, struct outcome *ret,
		 struct collected *ret_files);

/* Where the helper is: $HUTCH_EXEC when the build allows a test override,
 * else the configured path. */
const char *execute_helper_path(void);

#endif
