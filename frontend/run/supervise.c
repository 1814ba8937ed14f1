/* supervise.c: a run watched on a loop of its own (`hutch run`, the
 * probe's canary outside serve), with the signals sent to us forwarded to
 * the jail (the watch itself is watch.c's). The jail is killed on every
 * way out, normal exit included (the helper's exit already means the
 * jail's pid namespace is empty, see hutch-exec(8)). Frontend only. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "fd-util.h"
#include "run/event-loop.h"
#include "run/supervise.h"

int supervise_block_signals(sigset_t *ret_old)
{
	sigset_t set, old;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGQUIT);
	if (sigprocmask(SIG_BLOCK, &set, &old) < 0)
		return -errno;
	fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (fd < 0) {
		int r = -errno;

		sigprocmask(SIG_SETMASK, &old, NULL); /* a failure changes nothing */
		return r;
	}
	if (ret_old)
		*ret_old = old;
	return fd;
}

/* --tty: SIGWINCH as an event of its own; -1 without --tty. The old mask
 * (*ret_old) is the caller's to put back. */
static int block_winch(const struct supervise_opts *o, sigset_t *ret_old)
{
	sigset_t set;
	int fd;

	if (!o->tty)
		return -1;
	sigemptyset(&set);
	sigaddset(&set, SIGWINCH);
	if (sigprocmask(SIG_BLOCK, &set, ret_old) < 0)
		return -1;
	fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (fd < 0)
		sigprocmask(SIG_SETMASK, ret_old, NULL);
	return fd;
}

/* supervise()'s own signals, on its loop beside the watch. */
struct sup {
	struct jail_watch *l;
	int sig_fd, winch_fd;
};

static void on_signal(struct evwatch *w, uint32_t events, void *data)
{
	struct sup *sp = data;
	struct signalfd_siginfo si;

	(void)w;
	(void)events;
	if (read(sp->sig_fd, &si, sizeof(si)) == sizeof(si))
		watch_forward_signal(sp->l, (int)si.ssi_signo);
}

static void on_winch(struct evwatch *w, uint32_t events, void *data)
{
	struct sup *sp = data;
	struct signalfd_siginfo si;

	(void)w;
	(void)events;
	while (read(sp->winch_fd, &si, sizeof(si)) == sizeof(si))
		;
	watch_tty_resize(sp->l);
}

/* The loop of one run: the watch and our signals, until it is done. */
static int supervise_loop(struct sup *sp)
{
	struct evloop *loop;
	int r = evloop_new(&loop);

	if (r < 0)
		return r;
	if (!evwatch_add(loop, sp->sig_fd, EPOLLIN, on_signal, NULL, sp) ||
	    (sp->winch_fd >= 0 && !evwatch_add(loop, sp->winch_fd, EPOLLIN, on_winch, NULL, sp)))
		r = -errno;
	if (r == 0)
		r = watch_attach(sp->l, loop, NULL);
	while (r == 0 && !watch_done(sp->l))
		r = evloop_turn(loop, EVTIMER_NEVER);
	/* Whatever failed, the watch leaves the loop in watch_finish. */
	watch_finish(sp->l);
	evloop_free(loop);
	return r;
}

int supervise(struct jail_proc *jp, const struct supervise_opts *o, struct outcome *ret)
{
	struct sup sp = { .l = watch_start(jp, o, ret), .sig_fd = -1, .winch_fd = -1 };
	sigset_t old, old_winch;
	int r;

	if (!sp.l) {
		struct rusage ru;

		ret->exit_status_raw = jail_kill_and_reap(jp, o->kill_grace_ms, &ru);
		ret->err = HUTCH_ERR_INTERNAL;
		return -ENOMEM;
	}
	sp.sig_fd = supervise_block_signals(&old);
	sp.winch_fd = block_winch(o, &old_winch);
	if (sp.sig_fd < 0) {
		r = sp.sig_fd;
		watch_finish(sp.l);
	} else {
		r = supervise_loop(&sp);
	}
	if (sp.winch_fd >= 0) {
		fd_close(&sp.winch_fd);
		sigprocmask(SIG_SETMASK, &old_winch, NULL);
	}
	if (sp.sig_fd >= 0) {
		fd_close(&sp.sig_fd);
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	return r;
}
