/* test-event-loop.c: unit tests of the frontend's event loop
 * (frontend/run/event-loop.c) on pipes: a readable pipe calls its
 * handler, a paused watch does not (even once its writer hung up), a
 * watch deleted by an earlier handler of the same turn gets no call, the
 * teardown runs once on delete and on evloop_free, timers fire in time
 * and once, a regular file (which epoll refuses) is ready every turn, a
 * thousand watches are served in one loop, and time_add_ms saturates. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "time-util.h"
#include "run/event-loop.h"

#include "cunit-main.h"

struct probe {
	int calls, teardowns;
	uint32_t last;
	struct evwatch *victim;	/* deleted by this handler, if set */
};

static void on_ready(struct evwatch *w, uint32_t events, void *data)
{
	struct probe *p = data;
	char c;

	p->calls++;
	p->last = events;
	if ((events & EPOLLIN) && read(evwatch_fd(w), &c, 1) < 0)
		c = 0;	/* EOF or EAGAIN: nothing to take */
	if (p->victim) {
		evwatch_del(p->victim);
		p->victim = NULL;
	}
}

static void on_teardown(int fd, void *data)
{
	struct probe *p = data;

	p->teardowns++;
	close(fd);
}

static void test_readable_pipe_calls_handler(void)
{
	struct evloop *l;
	struct probe p = { 0 };
	int fds[2];

	CU_ASSERT_FATAL(evloop_new(&l) == 0);
	CU_ASSERT_FATAL(pipe2(fds, O_CLOEXEC | O_NONBLOCK) == 0);
	CU_ASSERT_FATAL(evwatch_add(l, fds[0], EPOLLIN, on_ready, on_teardown, &p) != NULL);
	CU_ASSERT_EQUAL(evloop_turn(l, 0), 0);
	CU_ASSERT_EQUAL(p.calls, 0);	/* nothing written yet */
	CU_ASSERT_EQUAL(write(fds[1], "x", 1), 1);
	CU_ASSERT_EQUAL(evloop_turn(l, 1000), 0);
	CU_ASSERT_EQUAL(p.calls, 1);
	CU_ASSERT(p.last & EPOLLIN);
	close(fds[1]);
	evloop_free(l);
	CU_ASSERT_EQUAL(p.teardowns, 1);
}

static void test_paused_watch_is_silent_even_on_hangup(void)
{
	struct evloop *l;
	struct probe p = { 0 };
	struct evwatch *w;
	int fds[2];

	CU_ASSERT_FATAL(evloop_new(&l) == 0);
	CU_ASSERT_FATAL(pipe2(fds, O_CLOEXEC | O_NONBLOCK) == 0);
	w = evwatch_add(l, fds[0], EPOLLIN, on_ready, on_teardown, &p);
	CU_ASSERT_FATAL(w != NULL);
	CU_ASSERT_EQUAL(evwatch_set_events(w, 0), 0);
	close(fds[1]);	/* EPOLLHUP would come even for no events */
	CU_ASSERT_EQUAL(evloop_turn(l, 0), 0);
	CU_ASSERT_EQUAL(p.calls, 0);
	CU_ASSERT_EQUAL(evwatch_set_events(w, EPOLLIN), 0);
	CU_ASSERT_EQUAL(evloop_turn(l, 1000), 0);
	CU_ASSERT_EQUAL(p.calls, 1);
	CU_ASSERT(p.last & EPOLLHUP);
	evloop_free(l);
	CU_ASSERT_EQUAL(p.teardowns, 1);
}

/* Two ready watches; whichever runs first deletes the other: exactly one
 * handler runs, and both teardowns ran once by the end. */
static void test_delete_in_handler_skips_collected_event(void)
{
	struct evloop *l;
	struct probe a = { 0 }, b = { 0 };
	struct evwatch *wa, *wb;
	int pa[2], pb[2];

	CU_ASSERT_FATAL(evloop_new(&l) == 0);
	CU_ASSERT_FATAL(pipe2(pa, O_CLOEXEC | O_NONBLOCK) == 0);
	CU_ASSERT_FATAL(pipe2(pb, O_CLOEXEC | O_NONBLOCK) == 0);
	wa = evwatch_add(l, pa[0], EPOLLIN, on_ready, on_teardown, &a);
	wb = evwatch_add(l, pb[0], EPOLLIN, on_ready, on_teardown, &b);
	CU_ASSERT_FATAL(wa && wb);
	a.victim = wb;
	b.victim = wa;
	CU_ASSERT_EQUAL(write(pa[1], "x", 1), 1);
	CU_ASSERT_EQUAL(write(pb[1], "x", 1), 1);
	CU_ASSERT_EQUAL(evloop_turn(l, 1000), 0);
	CU_ASSERT_EQUAL(a.calls + b.calls, 1);
	CU_ASSERT_EQUAL(a.teardowns + b.teardowns, 1);
	CU_ASSERT_EQUAL(evloop_count(l), 1);
	evloop_free(l);
	CU_ASSERT_EQUAL(a.teardowns, 1);
	CU_ASSERT_EQUAL(b.teardowns, 1);
	close(pa[1]);
	close(pb[1]);
}

static void on_timer(struct evtimer *t, void *data)
{
	(void)t;
	(*(int *)data)++;
}

static void test_timer_fires_once_in_time(void)
{
	struct evloop *l;
	struct evtimer *t, *never;
	uint64_t start = time_now_ms();
	int fired = 0, other = 0;

	CU_ASSERT_FATAL(evloop_new(&l) == 0);
	t = evtimer_add(l, start + 30, on_timer, &fired);
	never = evtimer_add(l, EVTIMER_NEVER, on_timer, &other);
	CU_ASSERT_FATAL(t && never);
	while (fired == 0 && time_now_ms() < start + 2000)
		CU_ASSERT_EQUAL(evloop_turn(l, EVTIMER_NEVER), 0);
	CU_ASSERT_EQUAL(fired, 1);
	CU_ASSERT(time_now_ms() >= start + 30);
	CU_ASSERT_EQUAL(evtimer_at(t), EVTIMER_NEVER);	/* disarmed once fired */
	CU_ASSERT_EQUAL(evloop_turn(l, 10), 0);
	CU_ASSERT_EQUAL(fired, 1);
	CU_ASSERT_EQUAL(other, 0);
	evtimer_del(t);
	CU_ASSERT_EQUAL(evloop_count(l), 1);
	evloop_free(l);
}

/* epoll refuses regular files (EPERM); poll(2) calls them always ready. */
static void test_regular_file_is_always_ready(void)
{
	char path[] = "/tmp/hutch-evloop.XXXXXX";
	struct evloop *l;
	struct probe p = { 0 };
	int fd = mkstemp(path);

	CU_ASSERT_FATAL(fd >= 0);
	unlink(path);
	CU_ASSERT_FATAL(evloop_new(&l) == 0);
	CU_ASSERT_FATAL(evwatch_add(l, fd, EPOLLIN, on_ready, on_teardown, &p) != NULL);
	CU_ASSERT_EQUAL(evloop_turn(l, EVTIMER_NEVER), 0);	/* must not wait */
	CU_ASSERT_EQUAL(p.calls, 1);
	evloop_free(l);
	CU_ASSERT_EQUAL(p.teardowns, 1);
}

/* More watches than one epoll_wait batch of the smallest size: every one
 * is served, none twice, within a few turns. */
static void test_many_watches(void)
{
	enum { N = 1000 };
	struct evloop *l;
	struct probe *p = calloc(N, sizeof(*p));
	int (*fds)[2] = calloc(N, sizeof(*fds));
	int total = 0;

	CU_ASSERT_FATAL(p && fds && evloop_new(&l) == 0);
	for (int i = 0; i < N; i++) {
		if (pipe2(fds[i], O_CLOEXEC | O_NONBLOCK) < 0) {
			CU_ASSERT_EQUAL_FATAL(errno, EMFILE);	/* a low ulimit -n */
			fds[i][0] = fds[i][1] = -1;
			continue;
		}
		CU_ASSERT_FATAL(evwatch_add(l, fds[i][0], EPOLLIN, on_ready, on_teardown, &p[i]) != NULL);
		CU_ASSERT_EQUAL(write(fds[i][1], "x", 1), 1);
		total++;
	}
	for (int turn = 0; turn < 3; turn++)
		CU_ASSERT_EQUAL(evloop_turn(l, 0), 0);
	for (int i = 0; i < N; i++)
		if (fds[i][0] >= 0)
			CU_ASSERT_EQUAL(p[i].calls, 1);
	CU_ASSERT_EQUAL(evloop_count(l), (unsigned)total);
	evloop_free(l);
	for (int i = 0; i < N; i++)
		if (fds[i][1] >= 0)
			close(fds[i][1]);
	free(p);
	free(fds);
}

static void test_time_add_saturates(void)
{
	CU_ASSERT_EQUAL(time_add_ms(5, 7), 12);
	CU_ASSERT_EQUAL(time_add_ms(1000, UINT64_MAX), UINT64_MAX);
	CU_ASSERT_EQUAL(time_add_ms(UINT64_MAX - 1, 1), UINT64_MAX);
	CU_ASSERT_EQUAL(time_add_ms(UINT64_MAX - 1, 2), UINT64_MAX);
}

static const struct unit_case cases[] = {
	{ "a readable pipe calls its handler", test_readable_pipe_calls_handler },
	{ "a paused watch is silent, even on hang-up", test_paused_watch_is_silent_even_on_hangup },
	{ "a watch deleted in a handler gets no call", test_delete_in_handler_skips_collected_event },
	{ "a timer fires once, not early", test_timer_fires_once_in_time },
	{ "a regular file is always ready", test_regular_file_is_always_ready },
	{ "a thousand watches, each served once", test_many_watches },
	{ "time_add_ms saturates", test_time_add_saturates },
	{ NULL, NULL },
};

UNIT_MAIN("event-loop")
