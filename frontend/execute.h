/* execute.h: one plan, run: compile its filter, build and encode its spec,
 * spawn hutch-exec, supervise to the end, and classify what happened.
 * Frontend only; used by `run`, `probe` and `serve`. */
#ifndef HUTCH_EXECUTE_H
#define HUTCH_EXECUTE_H

#include <stdbool.h>

#include "plan.h"
#include "supervise.h"

struct exec_opts {
	bool passthrough;	/* stream output to fds 1 and 2 */
	bool forward_stdin;	/* forward our fd 0 (pass-through mode) */
	uint64_t kill_grace_ms;
};

/* Fills *ret in every case where it returns 0 (even a refused jail: that
 * is an outcome). A negative return is our own failure before spawning
 * (ret->err says which). */
int execute_plan(const struct plan *plan, const struct exec_opts *eo, struct outcome *ret);

/* Where the helper is: $HUTCH_EXEC when the build allows a test override,
 * else the configured path. */
const char *execute_helper_path(void);

#endif
