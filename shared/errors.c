/* errors.c: the one table from enum hutch_err to its name, fixed message and
 * exit status. Linked by both binaries; pure data. */
#include "config.h"

#include <stddef.h>

#include "errors.h"

static const struct {
	const char *name;
	const char *message;
	int exit_status;
} table[HUTCH_ERR_MAX] = {
	[HUTCH_ERR_NONE] = { "none", "no error", 0 },
	[HUTCH_ERR_INVALID_REQUEST] = { "invalid_request", "the request is not valid", HUTCH_EXIT_FAILURE },
	[HUTCH_ERR_POLICY_VIOLATION] = { "policy_violation", "the request asks for more than the policy allows", HUTCH_EXIT_FAILURE },
	[HUTCH_ERR_POLICY_INVALID] = { "policy_invalid", "the policy is not valid", HUTCH_EXIT_FAILURE },
	[HUTCH_ERR_SANDBOX_UNAVAILABLE] = { "sandbox_unavailable", "a mechanism the policy requires is not available", HUTCH_EXIT_REFUSED },
	[HUTCH_ERR_SANDBOX_PROBE_FAILED] = { "sandbox_probe_failed", "the sandbox probe for this policy failed", HUTCH_EXIT_REFUSED },
	[HUTCH_ERR_HELPER_NOT_FOUND] = { "helper_not_found", "the helper hutch-exec could not be found", HUTCH_EXIT_FAILURE },
	[HUTCH_ERR_SPAWN_ERROR] = { "spawn_error", "the jail could not be set up", HUTCH_EXIT_REFUSED },
	[HUTCH_ERR_EXEC_FAILED] = { "exec_failed", "the command could not be executed in the jail", HUTCH_EXIT_CANNOT_EXEC },
	[HUTCH_ERR_TIMEOUT] = { "timeout", "the run exceeded its time limit", HUTCH_EXIT_TIMEOUT },
	[HUTCH_ERR_OUTPUT_OVERFLOW] = { "output_overflow", "the output exceeded its limit", HUTCH_EXIT_FAILURE },
	[HUTCH_ERR_FRAME_OVERSIZED] = { "frame_oversized", "a frame exceeded its limit", HUTCH_EXIT_FAILURE },
	[HUTCH_ERR_PROTOCOL_ERROR] = { "protocol_error", "the peer broke the framing protocol", HUTCH_EXIT_FAILURE },
	[HUTCH_ERR_DRAIN_TIMEOUT] = { "drain_timeout", "output was still open after the jail ended", HUTCH_EXIT_FAILURE },
	[HUTCH_ERR_CRASH] = { "crash", "the helper or the command crashed", HUTCH_EXIT_FAILURE },
	[HUTCH_ERR_BUSY] = { "busy", "too many runs in flight", HUTCH_EXIT_FAILURE },
	[HUTCH_ERR_CANCELLED] = { "cancelled", "the run was cancelled", HUTCH_EXIT_FAILURE },
	[HUTCH_ERR_STATE_LOST] = { "state_lost", "action outcome unknown; reset the session", HUTCH_EXIT_FAILURE },
	[HUTCH_ERR_INTERNAL] = { "internal", "internal error", HUTCH_EXIT_FAILURE },
};

const char *hutch_err_name(enum hutch_err e)
{
	return (unsigned)e < HUTCH_ERR_MAX ? table[e].name : NULL;
}

const char *hutch_err_message(enum hutch_err e)
{
	return (unsigned)e < HUTCH_ERR_MAX ? table[e].message : "internal error";
}

int hutch_err_exit_status(enum hutch_err e)
{
	return (unsigned)e < HUTCH_ERR_MAX ? table[e].exit_status : HUTCH_EXIT_FAILURE;
}
