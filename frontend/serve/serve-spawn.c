/* serve-spawn.c: a run's helper asked of the forkserver without waiting
 * (run/forkserver.h). The request goes out with the run's pipes, its
 * watch is made at once, and the run waits in SRUN_SPAWNING while the
 * loop turns; the forkserver's reply, read on the loop, gives the helper's
 * pid and pidfd, and the run goes on exactly as one whose fork was waited
 * for. A kill meanwhile (cancel, --lifetime, the connection or the server
 * going, or the watch's own: wall_ms, idle_ms) is kept and applied the
 * moment the pidfd is there. No reply in
 * the forkserver's timeout, or its death, stops it for good (as a
 * waited-for fork did) and fails every run waiting: each is torn down,
 * which waits for nothing (the forkserver's end held its pipes), and
 * launched again the way a waited-for fork fell back. Sessions and the
 * canary still wait for their fork (they are rare). Frontend only. */
#include "config.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "hutch-abi.h"
#include "serve/serve.h"

struct fs_ticket *spawn_ticket(struct srv *s, const struct srun *r)
{
	/* Not without the loop reading the replies; and a run launched
	 * again after a refusal waits, so that it ends as one did then. */
	if (s->fs.pid < 0 || !s->fs.ev || r->spawn_waits)
		return NULL;
	return forkserver_ticket_new();
}

bool spawn_full(const struct srv *s)
{
	return s->fs.pid >= 0 && s->fs.ev && s->fs.n_queued >= FORKSERVER_INFLIGHT_MAX;
}

bool spawn_pending(struct srun *r, struct fs_ticket *t)
{
	struct forkserver *fs = &r->c->srv->fs;

	fs->next_async = NULL;	/* unused when the run never reached the fork */
	if (t && t->queued) {
		r->fst = t;
		return true;
	}
	forkserver_ticket_drop(fs, t);
	return false;
}

void spawn_settle(struct srun *r)
{
	struct forkserver *fs = &r->c->srv->fs;

	if (!r->fst)
		return;
	forkserver_ticket_wait(fs, r->fst);
	forkserver_ticket_drop(fs, r->fst);
	r->fst = NULL;
}

void spawn_forget(struct srun *r)
{
	forkserver_ticket_drop(&r->c->srv->fs, r->fst);
	r->fst = NULL;
}

void spawn_step(struct srun *r)
{
	struct srv *s = r->c->srv;
	int err, pidfd;

	if (!r->fst->done)
		return;
	err = r->fst->err;
	pidfd = r->fst->jp->pidfd;
	spawn_forget(r);
	if (err == 0) {
		r->phase = SRUN_RUNNING;
		/* Its watch's own kill (wall_ms, idle_ms) went to no pidfd
		 * meanwhile, and the watch sends only SIGKILL after that, a
		 * grace later: the jail gets it now, as a running one did. */
		if (r->o.err != HUTCH_ERR_NONE)
			(void)syscall(SYS_pidfd_send_signal, pidfd, HUTCH_SIG_KILL_JAIL, NULL, 0);
		if (r->killed != HUTCH_ERR_NONE) {
			watch_kill(r->w, r->killed);	/* as if killed while running */
			r->killed = HUTCH_ERR_NONE;
		}
		return;
	}
	/* No jail was started: what the run holds goes, as after a failed
	 * start; exec_finish finds the exit pipe closed at once. */
	exec_finish(r->x, &r->files);
	collected_free(&r->files);
	r->x = NULL;
	r->w = NULL;
	held_release(&s->budget, &r->h_out);
	held_release(&s->budget, &r->h_err);
	outcome_free(&r->o);
	r->phase = SRUN_STARTING;
	/* A broken forkserver is gone (later runs fork their own); one that
	 * refused is asked again, waited for, as before. */
	r->spawn_waits = s->fs.pid >= 0;
}
