/* event-loop.h: the one event loop of the frontend. `hutch serve` and
 * `hutch run`'s supervisor both turn it: a growable epoll set of watched
 * descriptors, each with its own handler and its own teardown, and
 * timers, all added, changed and removed through this interface, from
 * anywhere (handlers included). Nothing in it blocks but evloop_turn's
 * one wait, bounded by the earliest timer. Frontend only.
 *
 * Plugging in, for code that never reads serve.c or supervise.c:
 *
 *	w = evwatch_add(loop, fd, EPOLLIN, on_readable, on_teardown, obj);
 *	t = evtimer_add(loop, time_add_ms(time_now_ms(), idle_ms), on_idle, obj);
 *	...in a handler: evwatch_set_events(w, EPOLLIN | EPOLLOUT);
 *	...when obj is done: evtimer_del(t); evwatch_del(w);  (teardown closes fd)
 *
 * Handlers run from evloop_turn, level-triggered (an event not consumed
 * comes back next turn). A watch or timer deleted in a handler gets no
 * further call, not even one already collected in the same turn; its
 * memory goes at the end of the turn. */
#ifndef HUTCH_EVENT_LOOP_H
#define HUTCH_EVENT_LOOP_H

#include <stdint.h>
#include <sys/epoll.h>

#define EVTIMER_NEVER UINT64_MAX

struct evloop;
struct evwatch;
struct evtimer;

/* events: what epoll reported (EPOLLIN, EPOLLOUT, EPOLLHUP, EPOLLERR). */
typedef void (*evwatch_fn)(struct evwatch *w, uint32_t events, void *data);
typedef void (*evtimer_fn)(struct evtimer *t, void *data);
/* Called once, when the watch is deleted or its loop freed: the place to
 * close the descriptor and free what data owns. May be NULL. */
typedef void (*evteardown_fn)(int fd, void *data);

/* A new, empty loop: 0 and *ret, or -errno. */
int evloop_new(struct evloop **ret);
/* Every watch's teardown, then the loop's memory. NULL is fine. */
void evloop_free(struct evloop *l);

/* Watch fd for events (EPOLLIN, EPOLLOUT; 0 pauses the watch, which
 * stays registered). A descriptor epoll refuses (a regular file, as
 * `hutch run <file` gives) is treated as poll(2) would: ready at every
 * turn for the events asked. NULL with errno set on failure (nothing
 * registered; the fd stays the caller's). fd may be watched once per
 * loop. */
struct evwatch *evwatch_add(struct evloop *l, int fd, uint32_t events, evwatch_fn fn,
			    evteardown_fn teardown, void *data);
/* 0 or -errno; 0 events pause it. */
int evwatch_set_events(struct evwatch *w, uint32_t events);
uint32_t evwatch_events(const struct evwatch *w);
int evwatch_fd(const struct evwatch *w);
/* Unregister (before the caller closes fd: a descriptor number is reused
 * at once), then teardown. NULL is fine. */
void evwatch_del(struct evwatch *w);

/* A timer firing once at at_ms (CLOCK_MONOTONIC, time_now_ms(); add
 * durations with time_add_ms, which saturates), or disarmed with
 * EVTIMER_NEVER. A fired timer is disarmed before its handler runs, which
 * may arm it again. NULL (ENOMEM) on failure. */
struct evtimer *evtimer_add(struct evloop *l, uint64_t at_ms, evtimer_fn fn, void *data);
void evtimer_set(struct evtimer *t, uint64_t at_ms);
uint64_t evtimer_at(const struct evtimer *t);
void evtimer_del(struct evtimer *t);	/* NULL is fine */

/* One turn: wait for events up to the earliest timer (and at most
 * max_wait_ms; EVTIMER_NEVER for no bound of the caller's), run the
 * handlers of what is ready, then of the timers due. 0, or -errno when
 * epoll_wait fails (EINTR is a turn with nothing done). */
int evloop_turn(struct evloop *l, uint64_t max_wait_ms);

/* How many watches and timers are live (for tests and bounds). */
unsigned evloop_count(const struct evloop *l);

#endif
