/* serve-reap.c: jails `hutch serve` tears down without waiting for them
 * (see serve.h): a worker whose session closed, reset or was lost is
 * killed, and its watch stays on the loop until the helper has exited
 * (the grace period, then SIGKILL, as for a run's end); only then is it
 * reaped, which no longer waits. A stopped or stuck jail delays nobody.
 * Frontend only. */
#include "config.h"

#include <stdlib.h>

#include "serve/serve.h"

void reap_later(struct srv *s, struct exec_run *x, struct jail_watch *w, struct request *req,
		struct plan *plan, struct outcome *o)
{
	struct reaping *rp = calloc(1, sizeof(*rp));
	struct collected files;

	if (w) {
		watch_set_hooks(w, NULL);	/* its owner is going */
		watch_kill(w, HUTCH_ERR_CANCELLED);
	}
	if (!rp || !w) {
		/* No memory (or no watch): the old way, bounded by the grace. */
		exec_finish(x, &files);
		collected_free(&files);
		outcome_free(o);
		plan_free(plan);
		request_free(req);
		free(rp);
		return;
	}
	rp->req = *req;
	rp->plan = *plan;
	rp->o = *o;
	*req = (struct request){ 0 };
	*plan = (struct plan){ 0 };
	*o = (struct outcome){ .workdir_fd = -1 };
	rp->x = x;
	rp->w = w;
	exec_move(x, &rp->plan, &rp->o);
	/* Whatever it writes now is not kept: its capture is closed to more. */
	rp->o.out.limit = rp->o.out.bytes ? rp->o.out.bytes : 1;
	rp->o.errc.limit = rp->o.errc.bytes ? rp->o.errc.bytes : 1;
	rp->next = s->reaping;
	s->reaping = rp;
	s->n_reaping++;
}

void reap_tick(struct srv *s)
{
	struct reaping **pp = &s->reaping;

	while (*pp) {
		struct reaping *rp = *pp;
		struct collected files;

		if (!watch_done(rp->w)) {
			pp = &rp->next;
			continue;
		}
		*pp = rp->next;
		exec_finish(rp->x, &files);	/* exited: nothing to wait for */
		collected_free(&files);
		outcome_free(&rp->o);
		plan_free(&rp->plan);
		request_free(&rp->req);
		free(rp);
		s->n_reaping--;
	}
}
