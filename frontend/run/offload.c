/* offload.c: see offload.h. Frontend only. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "run/offload.h"

/* The walks recurse one frame per directory level (at most 64 levels of
 * a few hundred bytes each); this is ample, and bounded whatever
 * RLIMIT_STACK says. */
#define OFFLOAD_STACK (1u << 20)

struct offload {
	pthread_t th;
	int efd;		/* written once, when fn has returned */
	struct evwatch *w;	/* efd on the loop, until done */
	atomic_bool cancel;
	bool done;
	offload_fn fn;
	void *arg;
};

static void *thread_main(void *data)
{
	struct offload *o = data;
	uint64_t one = 1;

	o->fn(o->arg, &o->cancel);
	/* An eventfd write of 1 cannot block or fail short of overflow. */
	(void)!write(o->efd, &one, sizeof(one));
	return NULL;
}

static void on_end(struct evwatch *w, uint32_t events, void *data)
{
	struct offload *o = data;
	uint64_t n;

	(void)events;
	if (read(o->efd, &n, sizeof(n)) != (ssize_t)sizeof(n))
		return;	/* spurious: level-triggered, it comes back */
	o->done = true;
	o->w = NULL;
	evwatch_del(w);	/* its teardown closes nothing: efd is ours */
}

/* The thread's attributes: its stack, and every signal blocked while it
 * is created (it inherits the mask), restored for us after. */
static int spawn(struct offload *o)
{
	sigset_t all, old;
	pthread_attr_t at;
	int r;

	if ((r = pthread_attr_init(&at)) != 0)
		return -r;
	r = pthread_attr_setstacksize(&at, OFFLOAD_STACK);
	sigfillset(&all);
	if (r == 0 && (r = pthread_sigmask(SIG_SETMASK, &all, &old)) == 0) {
		r = pthread_create(&o->th, &at, thread_main, o);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	pthread_attr_destroy(&at);
	return -r;
}

int offload_start(struct evloop *l, offload_fn fn, void *arg, struct offload **ret)
{
	struct offload *o = calloc(1, sizeof(*o));
	int r;

	if (!o)
		return -ENOMEM;
	o->fn = fn;
	o->arg = arg;
	atomic_init(&o->cancel, false);
	o->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (o->efd < 0) {
		r = -errno;
		free(o);
		return r;
	}
	o->w = evwatch_add(l, o->efd, EPOLLIN, on_end, NULL, o);
	if (!o->w) {
		r = -errno;
		close(o->efd);
		free(o);
		return r;
	}
	if ((r = spawn(o)) < 0) {
		evwatch_del(o->w);
		close(o->efd);
		free(o);
		return r;
	}
	*ret = o;
	return 0;
}

bool offload_done(const struct offload *o)
{
	return o->done;
}

void offload_cancel(struct offload *o)
{
	atomic_store(&o->cancel, true);
}

bool offload_cancelled(const struct offload *o)
{
	return atomic_load(&o->cancel);
}

void offload_free(struct offload *o)
{
	if (!o)
		return;
	if (!o->done)
		offload_cancel(o);
	pthread_join(o->th, NULL);
	evwatch_del(o->w);
	close(o->efd);
	free(o);
}
