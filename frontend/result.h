/* result.h: the result document (version 1, DESIGN.md and hutch(1)) and
 * the run's exit status without --json. Frontend only. */
#ifndef HUTCH_RESULT_H
#define HUTCH_RESULT_H

#include <json-c/json.h>
#include <stdbool.h>

#include "collect.h"
#include "plan.h"
#include "supervise.h"
#include "verror.h"

struct jail_report {
	const char *policy;
	const char *digest;
	int landlock_abi;	/* 0: not applied */
	const char *cgroup;	/* "unavailable", "applied" */
	/* What the policy says, for documents made before a plan exists. */
	bool have_modes;
	enum net_mode network;
	enum seccomp_mode seccomp;
};

/* A failure before anything ran (validation, policy, probe). */
struct json_object *result_for_error(enum hutch_err code, const char *pointer,
				     const char *reason, const char *detail,
				     const struct jail_report *jr);

/* A run's outcome. Applies the partial-output rule and the frame grammar
 * (which may turn an exit into protocol_error or crash). */
struct json_object *result_for_outcome(const struct plan *plan, struct outcome *o,
				       const struct collected *files, const struct jail_report *jr);

/* Exit status of `hutch run` without --json for a document. */
int result_exit_status(struct json_object *doc);

/* One line for stderr: "hutch: CODE: message [at POINTER]". */
void result_print_error(struct json_object *doc);

/* Frame mode on a kept stdout: 0 and the payload bounds, or the error. */
enum hutch_err result_check_frame(const struct capture *out, size_t *ret_off, size_t *ret_len);

bool utf8_valid(const uint8_t *s, size_t n);

#endif
