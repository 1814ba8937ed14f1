/* result.h: the result document (version 1, DESIGN.md and hutch(1)) and
 * the run's exit status without --json. Frontend only. */
#ifndef HUTCH_RESULT_H
#define HUTCH_RESULT_H

#include <json-c/json.h>
#include <stdbool.h>

#include "doc/outcome.h"
#include "doc/plan.h"
#include "doc/verror.h"

/* The groups of Landlock rights a jail is under (jail.landlock_rights):
 * what hutch-exec handles at the kernel's ABI for this plan. */
enum {
	LANDLOCK_RIGHT_FS = 1u << 0,		/* ABI 1: read, write, exec, make, remove */
	LANDLOCK_RIGHT_FS_REFER = 1u << 1,	/* ABI 2: links and renames across dirs */
	LANDLOCK_RIGHT_FS_TRUNCATE = 1u << 2,	/* ABI 3 */
	LANDLOCK_RIGHT_NET_TCP = 1u << 3,	/* ABI 4, network none: TCP bind, connect */
	LANDLOCK_RIGHT_FS_IOCTL_DEV = 1u << 4,	/* ABI 5 */
	LANDLOCK_RIGHT_SCOPE_UNIX = 1u << 5,	/* ABI 6: abstract unix sockets */
	LANDLOCK_RIGHT_SCOPE_SIGNAL = 1u << 6,	/* ABI 6: signals */
};

struct jail_report {
	const char *policy;
	const char *policy_file;	/* where the policy was loaded from, or NULL */
	const char *digest;
	int landlock_abi;	/* 0: not applied */
	unsigned landlock_rights;	/* LANDLOCK_RIGHT_* in force */
	const char *cgroup;	/* "unavailable", "applied" */
	/* What the policy says, for documents made before a plan exists. */
	bool have_modes;
	enum net_mode network;
	enum seccomp_mode seccomp;
	struct jail_timings timings;	/* "timings", when any step was marked */
};

/* A failure before anything ran (validation, policy, probe). NULL only
 * when json-c cannot allocate even that. */
struct json_object *result_for_error(enum hutch_err code, const char *pointer,
				     const char *reason, const char *detail,
				     const struct jail_report *jr);

/* A validation error's result: result_for_error with the words of
 * verror_message (and "in FILE" for an error inside a policy file) as
 * the message, and the error's "accepted" and "allowed_by" lists. */
struct json_object *result_for_verror(const struct verror *v, const struct jail_report *jr);

/* A run's outcome, as run/classify.c settled it: its status, error and
 * words, and the streams and files as show_out, show_err and
 * output_withheld say, serialised and nothing decided. A document json-c
 * cannot build becomes an internal error result (NULL as
 * result_for_error). */
struct json_object *result_for_outcome(const struct plan *plan, const struct outcome *o,
				       const struct collected *files, const struct jail_report *jr);

/* Exit status of `hutch run` without --json for a document. */
int result_exit_status(struct json_object *doc);

/* One line for stderr: "hutch: CODE: message [at POINTER]". */
void result_print_error(struct json_object *doc);

/* --explain's report on stderr, one line per event of doc's "explain"
 * member, then a summary; nothing when the member is absent. */
void result_print_explain(struct json_object *doc);

/* The frame grammar on a kept stdout: exactly one whole frame. 0 and the
 * payload's bounds, or protocol_error (short, or no header) or
 * output_overflow (bytes after it). */
enum hutch_err result_check_frame(const struct capture *out, size_t *ret_off, size_t *ret_len);


/* Rendered sizes (issue 9). A stream's field in a result document is its
 * text, JSON-escaped, when it is UTF-8 without NUL, else its base64; the
 * stdout_bytes and stderr_bytes caps bound that rendering, and none is
 * ever larger than RESULT_STREAM_MAX_BYTES, so that two streams and the
 * largest collect (1 GiB, 4/3 of it as base64) stay below the 2 GiB a
 * json-c string can hold. All sizes are 64-bit; none saturates silently. */
#define RESULT_STREAM_MAX_BYTES ((uint64_t)256 << 20)

/* The bytes n bytes take as JSON string content, as json-c writes them. */
uint64_t result_escaped_len(const uint8_t *p, size_t n);
/* 4 per 3 bytes, padded; UINT64_MAX when that does not fit. */
uint64_t result_base64_len(uint64_t n);
/* The effective cap of a stream: cap (0: none), at most the maximum. */
uint64_t result_stream_cap(uint64_t cap);
/* How many leading bytes of data render within cap (0: none), cut on a
 * character boundary for text. The rendering (*ret_text) is chosen on
 * all of data, as the document chooses it; *ret_rendered is the field's
 * size for the returned prefix. */
size_t result_fit(const uint8_t *data, size_t len, uint64_t cap, bool *ret_text,
		  uint64_t *ret_rendered);

#endif
