/* offload.h: a bounded piece of work (a walk of a host tree, the reading
 * of a change set) done on a thread of its own so that an event loop
 * (run/event-loop.h) keeps turning meanwhile: `hutch serve` answers every
 * other client while one client's big tree is walked or hashed. The
 * thread's end is an eventfd the loop watches; the loop's owner sees it
 * with offload_done() and then frees the job, which joins the thread
 * (it has ended: nothing waits).
 *
 * Cancelling sets a flag the work reads between steps (a directory entry,
 * a 64 KiB chunk): the thread ends within one step, and its end is seen
 * the same way. The work must touch nothing the loop uses meanwhile; its
 * owner keeps what fn reads and writes until offload_done().
 *
 * The thread is created with every signal blocked, so none of the
 * process's signals (serve takes them on a signalfd) is ever delivered to
 * it, and with the capabilities of the thread that started it.
 * Frontend only. */
#ifndef HUTCH_OFFLOAD_H
#define HUTCH_OFFLOAD_H

#include <stdatomic.h>
#include <stdbool.h>

#include "run/event-loop.h"

struct offload;

/* The work: runs on the job's thread, reads *cancel between steps. */
typedef void (*offload_fn)(void *arg, const atomic_bool *cancel);

/* fn(arg) started on a thread, its end watched on l. 0 and *ret, or
 * -errno (nothing started: the caller may do the work itself). */
int offload_start(struct evloop *l, offload_fn fn, void *arg, struct offload **ret);
/* Whether fn has returned (the loop saw its eventfd). */
bool offload_done(const struct offload *o);
/* Ask fn to stop at its next step; it still ends as usual. */
void offload_cancel(struct offload *o);
bool offload_cancelled(const struct offload *o);
/* Join and free. Only once offload_done() said so, except at the end of
 * the process: then it cancels and waits the one step. NULL is fine. */
void offload_free(struct offload *o);

/* Whether a job's flag asks it to stop; cancel may be NULL (never). */
static inline bool offload_stop(const atomic_bool *cancel)
{
	return cancel && atomic_load_explicit(cancel, memory_order_relaxed);
}

#endif
