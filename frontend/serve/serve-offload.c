/* serve-offload.c: the two bounded walks of a run that a client's tree
 * makes long, done off serve's loop on a thread each (run/offload.h): the
 * masks of its binds, resolved after its plan (jail/masks.h), and its
 * files read after its jail is gone (--collect and the change set of its
 * overlays, run/changes.h). The rules they follow are theirs (nothing
 * the jail made is followed, the same bounds); only where they run
 * changes. While a thread works on a run, the loop touches none of what
 * it reads or writes (the run's request, plan and outcome; the pinned
 * policy never changes) and the run stays on its connection's list, so
 * the connection and the server wait for it; killing the run cancels
 * the thread, which ends at its next step. Frontend only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "jail/masks.h"
#include "serve/serve.h"

int run_fds_own(struct srun *r)
{
	for (size_t i = 0; i < r->plan.n_mounts; i++) {
		struct plan_mount *m = &r->plan.mounts[i];
		int fd;

		if (!m->by_fd)
			continue;
		if (r->n_own_fds >= SERVE_FDS_MAX)
			return -E2BIG;	/* narrow admits no more */
		fd = fcntl(m->fd, F_DUPFD_CLOEXEC, 3);
		if (fd < 0)
			return -errno;
		r->own_fds[r->n_own_fds++] = fd;
		m->fd = fd;
	}
	return 0;
}

void run_fds_close(struct srun *r)
{
	for (size_t i = 0; i < r->n_own_fds; i++)
		close(r->own_fds[i]);
	r->n_own_fds = 0;
}

bool run_needs_walk(const struct srv *s, const struct srun *r)
{
	return r->req.n_hide ||
	       (r->plan.n_mounts && (s->pol.n_hide || s->pol.n_read_only));
}

bool run_needs_fds(const struct srv *s, const struct srun *r)
{
	if (run_needs_walk(s, r))
		return true;
	for (size_t i = 0; i < r->plan.n_mounts; i++)
		if (r->plan.mounts[i].by_fd && r->plan.mounts[i].overlay)
			return true;
	return false;
}

static void walk(void *arg, const atomic_bool *cancel)
{
	struct srun *r = arg;

	r->walk_r = masks_resolve_cancellable(&r->req, &r->c->srv->pol, &r->plan, r->walk_e,
					      cancel);
}

int run_walk_start(struct srun *r)
{
	int e;

	r->walk_e = calloc(1, sizeof(*r->walk_e));
	if (!r->walk_e)
		return -ENOMEM;
	e = offload_start(r->c->srv->loop, walk, r, &r->job);
	if (e < 0) {
		/* no thread to be had: the walk, bounded, on the loop */
		walk(r, NULL);
		return 0;
	}
	r->phase = SRUN_WALKING;
	return 0;
}

static void read_files(void *arg, const atomic_bool *cancel)
{
	struct srun *r = arg;

	exec_finish_files(r->x, &r->files, cancel);
}

int run_read_start(struct srun *r)
{
	int e = offload_start(r->c->srv->loop, read_files, r, &r->job);

	if (e == 0)
		r->phase = SRUN_READING;
	return e;
}
