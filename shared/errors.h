/* errors.h: the stable error codes users and daemons see (DESIGN.md), each
 * with its string, its exit status without --json and a fixed message.
 * Linked by both binaries. Append only; a retired value stays reserved. */
#ifndef HUTCH_ERRORS_H
#define HUTCH_ERRORS_H

enum hutch_err {
	HUTCH_ERR_NONE = 0,
	HUTCH_ERR_INVALID_REQUEST,
	HUTCH_ERR_POLICY_VIOLATION,
	HUTCH_ERR_POLICY_INVALID,
	HUTCH_ERR_SANDBOX_UNAVAILABLE,
	HUTCH_ERR_SANDBOX_PROBE_FAILED,
	HUTCH_ERR_HELPER_NOT_FOUND,
	HUTCH_ERR_SPAWN_ERROR,
	HUTCH_ERR_EXEC_FAILED,
	HUTCH_ERR_TIMEOUT,
	HUTCH_ERR_OUTPUT_OVERFLOW,
	HUTCH_ERR_FRAME_OVERSIZED,
	HUTCH_ERR_PROTOCOL_ERROR,
	HUTCH_ERR_DRAIN_TIMEOUT,
	HUTCH_ERR_CRASH,
	HUTCH_ERR_BUSY,
	HUTCH_ERR_CANCELLED,
	HUTCH_ERR_STATE_LOST,
	HUTCH_ERR_INTERNAL,
	HUTCH_ERR_MAX
};

/* Exit statuses of `hutch run` without --json (hutch(1)). */
#define HUTCH_EXIT_TIMEOUT 124
#define HUTCH_EXIT_FAILURE 125
#define HUTCH_EXIT_CANNOT_EXEC 126
#define HUTCH_EXIT_NOT_FOUND 127
#define HUTCH_EXIT_REFUSED 71

const char *hutch_err_name(enum hutch_err e);		/* "invalid_request"; NULL if unknown */
const char *hutch_err_message(enum hutch_err e);	/* fixed, never request content */
int hutch_err_exit_status(enum hutch_err e);		/* exit status without --json */

#endif
