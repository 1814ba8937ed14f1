/* explain.h: hutch run --explain. With it the jail's filter sends the open
 * and exec calls the policy allows to the listener too (jail/filter.c
 * filter_compile_explained); explain.c looks at each path (in the jail and
 * on the host), records what the jail withholds, and answers "continue",
 * which lets the call go on exactly as the policy's filter, the mounts and
 * Landlock decide. explain-grant.c turns the record, and the run's seccomp
 * denials, into words and the policy fragment that would grant each.
 * Frontend only; notify.c drives the listener. */
#ifndef HUTCH_EXPLAIN_H
#define HUTCH_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "doc/outcome.h"
#include "doc/plan.h"
#include "jail/filter.h"

struct seccomp_data;
struct seccomp_notif;
struct seccomp_notif_resp;

struct explain_watch {
	struct explain_log *log;
	const char *calls[FILTER_EXPLAIN_MAX];	/* filter_explain_calls */
	size_t n_calls;
};

/* Sets log->requested and, with it, allocates the event array: 0, or
 * -ENOMEM, and then explain_watch_wants says no to everything (the
 * watched calls would be answered as denials: fail closed). */
int explain_watch_init(struct explain_watch *x, struct explain_log *log, bool requested,
		       const char *const *calls, size_t n_calls);
/* Whether this kernel can answer "continue" and resolve in a root; else
 * why[] says what --explain needs. */
bool explain_supported(char *why, size_t cap);
/* Whether a notification is one of --explain's: a watched call. */
bool explain_watch_wants(const struct explain_watch *x, const struct seccomp_data *d);
/* Look at the call, answer "continue", record what the jail withholds. */
void explain_watch_answer(struct explain_watch *x, int listener_fd, const struct seccomp_notif *n,
			  struct seccomp_notif_resp *resp, size_t resp_size);

/* explain-grant.c: after the run, each event's words and fragment, and
 * the seccomp denials as events of their own. */
void explain_finish(const struct plan *plan, struct outcome *o);

/* The log's event of this kind and path, or NULL; explain_log_add adds
 * one (counted as dropped past EXPLAIN_EVENTS_MAX), its path cut and with
 * control bytes as '?'. For explain.c and explain-grant.c. */
struct explain_event *explain_log_find(struct explain_log *log, enum explain_kind kind,
				       const char *path);
void explain_log_add(struct explain_log *log, enum explain_kind kind, const char *call,
		     const char *path);

#endif
