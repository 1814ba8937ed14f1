/* event-loop.c: the frontend's one event loop (see event-loop.h): epoll,
 * level-triggered, with its own list of watches and timers. Deleted
 * objects are only marked during a turn and freed at its end, so a
 * handler may delete anything, itself included, while the turn still
 * holds events that point at it. Frontend only. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <unistd.h>

#include "time-util.h"
#include "run/event-loop.h"

#define EVENTS_MIN 64
#define EVENTS_MAX 4096	/* per epoll_wait; the rest come next turn */

struct evwatch {
	struct evloop *loop;
	struct evwatch *next;
	int fd;
	uint32_t events;
	bool always;	/* epoll refused fd (EPERM: a regular file): always ready */
	bool in_epoll;	/* registered; a paused watch is not, as epoll would
			 * report EPOLLHUP even for an empty event set */
	bool dead;
	evwatch_fn fn;
	evteardown_fn teardown;
	void *data;
};

struct evtimer {
	struct evloop *loop;
	struct evtimer *next;
	uint64_t at;
	bool dead;
	evtimer_fn fn;
	void *data;
};

struct evloop {
	int epfd;
	struct evwatch *watches;
	struct evtimer *timers;
	unsigned n_live, n_dead;
	struct epoll_event *evs;
	size_t evs_cap;
};

int evloop_new(struct evloop **ret)
{
	struct evloop *l = calloc(1, sizeof(*l));

	if (!l)
		return -ENOMEM;
	l->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (l->epfd < 0) {
		int r = -errno;

		free(l);
		return r;
	}
	*ret = l;
	return 0;
}

/* Free what was deleted during the turn. */
static void sweep(struct evloop *l)
{
	struct evwatch **pw = &l->watches;
	struct evtimer **pt = &l->timers;

	if (l->n_dead == 0)
		return;
	while (*pw) {
		struct evwatch *w = *pw;

		if (w->dead) {
			*pw = w->next;
			free(w);
		} else {
			pw = &w->next;
		}
	}
	while (*pt) {
		struct evtimer *t = *pt;

		if (t->dead) {
			*pt = t->next;
			free(t);
		} else {
			pt = &t->next;
		}
	}
	l->n_dead = 0;
}

void evloop_free(struct evloop *l)
{
	if (!l)
		return;
	for (struct evwatch *w = l->watches; w; w = w->next)
		evwatch_del(w);
	for (struct evtimer *t = l->timers; t; t = t->next)
		evtimer_del(t);
	sweep(l);
	close(l->epfd);
	free(l->evs);
	free(l);
}

struct evwatch *evwatch_add(struct evloop *l, int fd, uint32_t events, evwatch_fn fn,
			    evteardown_fn teardown, void *data)
{
	struct evwatch *w = calloc(1, sizeof(*w));
	struct epoll_event ev = { .events = events };

	if (!w) {
		errno = ENOMEM;
		return NULL;
	}
	*w = (struct evwatch){ .loop = l, .fd = fd, .events = events, .fn = fn,
			       .teardown = teardown, .data = data };
	ev.data.ptr = w;
	if (events && epoll_ctl(l->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		if (errno != EPERM) {
			free(w);
			return NULL;
		}
		w->always = true;
	}
	w->in_epoll = events && !w->always;
	w->next = l->watches;
	l->watches = w;
	l->n_live++;
	return w;
}

int evwatch_set_events(struct evwatch *w, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.ptr = w };
	int op = !events ? EPOLL_CTL_DEL : w->in_epoll ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;

	if (w->dead || w->events == events)
		return 0;
	if (!w->always && (events || w->in_epoll)) {
		if (epoll_ctl(w->loop->epfd, op, w->fd, &ev) == 0)
			w->in_epoll = events != 0;
		else if (op == EPOLL_CTL_ADD && errno == EPERM)
			w->always = true;
		else
			return -errno;
	}
	w->events = events;
	return 0;
}

uint32_t evwatch_events(const struct evwatch *w)
{
	return w->events;
}

int evwatch_fd(const struct evwatch *w)
{
	return w->fd;
}

void evwatch_del(struct evwatch *w)
{
	if (!w || w->dead)
		return;
	w->dead = true;
	w->loop->n_live--;
	w->loop->n_dead++;
	if (w->in_epoll)
		(void)epoll_ctl(w->loop->epfd, EPOLL_CTL_DEL, w->fd, NULL);
	if (w->teardown)
		w->teardown(w->fd, w->data);
}

struct evtimer *evtimer_add(struct evloop *l, uint64_t at_ms, evtimer_fn fn, void *data)
{
	struct evtimer *t = calloc(1, sizeof(*t));

	if (!t) {
		errno = ENOMEM;
		return NULL;
	}
	*t = (struct evtimer){ .loop = l, .at = at_ms, .fn = fn, .data = data, .next = l->timers };
	l->timers = t;
	l->n_live++;
	return t;
}

void evtimer_set(struct evtimer *t, uint64_t at_ms)
{
	t->at = at_ms;
}

uint64_t evtimer_at(const struct evtimer *t)
{
	return t->at;
}

void evtimer_del(struct evtimer *t)
{
	if (!t || t->dead)
		return;
	t->dead = true;
	t->at = EVTIMER_NEVER;
	t->loop->n_live--;
	t->loop->n_dead++;
}

unsigned evloop_count(const struct evloop *l)
{
	return l->n_live;
}

/* The wait: 0 when an always-ready watch wants events, else up to the
 * earliest timer and max_wait_ms, as an epoll_wait timeout. */
static int wait_ms(struct evloop *l, uint64_t now, uint64_t max_wait_ms)
{
	uint64_t until = max_wait_ms == EVTIMER_NEVER ? EVTIMER_NEVER : time_add_ms(now, max_wait_ms);

	for (struct evwatch *w = l->watches; w; w = w->next)
		if (!w->dead && w->always && w->events)
			return 0;
	for (struct evtimer *t = l->timers; t; t = t->next)
		if (!t->dead && t->at < until)
			until = t->at;
	if (until == EVTIMER_NEVER)
		return -1;
	if (until <= now)
		return 0;
	return until - now > INT_MAX ? INT_MAX : (int)(until - now);
}

/* Room for one event per watch (within bounds): one turn sees them all. */
static int grow_events(struct evloop *l)
{
	size_t want = l->n_live < EVENTS_MIN ? EVENTS_MIN : l->n_live;
	struct epoll_event *n;

	if (want > EVENTS_MAX)
		want = EVENTS_MAX;
	if (want <= l->evs_cap)
		return 0;
	n = realloc(l->evs, want * sizeof(*n));
	if (!n)
		return l->evs ? 0 : -ENOMEM; /* a smaller batch still works */
	l->evs = n;
	l->evs_cap = want;
	return 0;
}

static void fire_timers(struct evloop *l)
{
	uint64_t now = time_now_ms();

	/* Timers added by a handler are at the head, behind the walk. */
	for (struct evtimer *t = l->timers; t; t = t->next) {
		if (t->dead || t->at > now)
			continue;
		t->at = EVTIMER_NEVER;
		t->fn(t, t->data);
	}
}

int evloop_turn(struct evloop *l, uint64_t max_wait_ms)
{
	int n, r = grow_events(l);

	if (r < 0)
		return r;
	n = epoll_wait(l->epfd, l->evs, (int)l->evs_cap, wait_ms(l, time_now_ms(), max_wait_ms));
	if (n < 0 && errno != EINTR)
		return -errno;
	for (int i = 0; i < n; i++) {
		struct evwatch *w = l->evs[i].data.ptr;

		/* Deleted, or paused, by an earlier handler of this turn. */
		if (!w->dead && w->events)
			w->fn(w, l->evs[i].events, w->data);
	}
	for (struct evwatch *w = l->watches; w; w = w->next)
		if (!w->dead && w->always && w->events)
			w->fn(w, w->events, w->data);
	fire_timers(l);
	sweep(l);
	return 0;
}
