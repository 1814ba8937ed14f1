/* watch-proxy.c: network "proxy"'s egress proxy (run/proxy.h) on the
 * loop of the run's watch (see watch.h): its one descriptor is a loop
 * watch whose handler is proxy_dispatch, and its next deadline a timer of
 * its own, armed again after every dispatch (nothing else changes the
 * proxy's deadlines). It lives from the listening socket pid 1 sends to
 * the helper's exit: nothing in the jail is left to use it then.
 * Frontend only. */
#include "config.h"

#include <unistd.h>

#include "hutch-abi.h"
#include "time-util.h"
#include "run/event-loop.h"
#include "run/proxy.h"
#include "run/watch.h"

static void proxy_rearm(struct jail_watch *l)
{
	int ms = proxy_timeout_ms(l->proxy);

	evtimer_set(l->proxy_timer,
		    ms < 0 ? EVTIMER_NEVER : time_add_ms(time_now_ms(), (uint64_t)ms));
}

static void proxy_turn(struct jail_watch *l)
{
	if (l->hooks.before)
		l->hooks.before(l->hooks.data);
	proxy_dispatch(l->proxy); /* its ready descriptors and its deadlines */
	proxy_rearm(l);
	if (l->hooks.after)
		l->hooks.after(l->hooks.data);
}

static void proxy_ready(struct evwatch *w, uint32_t events, void *data)
{
	(void)w;
	(void)events;
	proxy_turn(data);
}

static void proxy_due(struct evtimer *t, void *data)
{
	(void)t;
	proxy_turn(data);
}

void watch_proxy_start(struct jail_watch *l, int fd)
{
	/* Only on a loop (watch_finish reads what is left after leaving
	 * it), for a run that asked for one, once, while the jail lives. */
	if (!l->loop || !l->o.proxy || l->proxy || l->exited) {
		close(fd);
		return;
	}
	l->proxy = proxy_new(fd, l->o.proxy, &l->res->net);
	if (l->proxy)
		l->proxy_ev = evwatch_add(l->loop, proxy_fd(l->proxy), EPOLLIN, proxy_ready, NULL, l);
	if (l->proxy_ev)
		l->proxy_timer = evtimer_add(l->loop, EVTIMER_NEVER, proxy_due, l);
	if (!l->proxy_timer) {
		watch_proxy_stop(l);
		watch_request_kill(l, HUTCH_ERR_INTERNAL, NULL); /* no way out is no run */
		return;
	}
	proxy_rearm(l);
}

void watch_proxy_stop(struct jail_watch *l)
{
	evtimer_del(l->proxy_timer);
	evwatch_del(l->proxy_ev);	/* before proxy_free closes its descriptor */
	l->proxy_timer = NULL;
	l->proxy_ev = NULL;
	proxy_free(l->proxy);	/* its connections logged as cut short */
	l->proxy = NULL;
}
