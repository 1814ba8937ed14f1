/* supervise.h: the one event loop of a run: the helper's pidfd, the
 * target's stdout and stderr (drained concurrently, capped), stdin
 * forwarding, the status pipe, signals sent to us, and the deadlines.
 * Every wait in it is bounded. Frontend only. */
#ifndef HUTCH_SUPERVISE_H
#define HUTCH_SUPERVISE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "errors.h"
#include "status.h"
#include "doc/outcome.h"
#include "jail/filter.h"
#include "run/spawn.h"

struct supervise_opts {
	uint64_t wall_ms, idle_ms, kill_grace_ms;
	uint64_t stdout_bytes, stderr_bytes;
	bool passthrough;		/* stream to our fds 1 and 2 */
	int stdin_src_fd;		/* forward this fd to the target, or -1 */
	const uint8_t *stdin_data;	/* or this buffer */
	size_t stdin_len;
	bool truncate_on_overflow;	/* else the jail is killed */
	bool frame_mode;		/* stdout is one length-prefixed frame */
	bool rendered_caps;		/* kept output counts as rendered (result_fit) */
	int control_fd;			/* pid 1 sends descriptors here, or -1 */
	bool memfd_sealed;		/* memfd_create waits are memfd-notify.c's */
	bool explain;			/* --explain (run/explain.h) */
	const char *explain_calls[FILTER_EXPLAIN_MAX];	/* its watched calls */
	size_t n_explain_calls;
	/* --tty: pid 1 sends the master of the jail's pty, which replaces
	 * the stdin and stdout pipes (run/pty-relay.c); window sizes come
	 * from tty_size_fd, the caller's terminal. */
	bool tty;
	int tty_size_fd;
	/* network proxy: pid 1 sends the proxy's listening socket; the
	 * watch runs run/proxy.c on it under these rules (the plan's). */
	const struct plan_proxy *proxy;
};

/* The watch of one run, for callers with their own event loop (serve):
 * start, then each turn add its fds to a poll set, poll with its timeout,
 * dispatch, until done; finish kills what is left and completes the
 * outcome, and frees the watch. */
struct jail_watch;
struct pollfd;
struct jail_watch *watch_start(struct jail_proc *jp, const struct supervise_opts *o,
				struct outcome *res);
int watch_pollfds(struct jail_watch *w, struct pollfd *p, int n);	/* fills from p[n], returns new n */
void watch_dispatch(struct jail_watch *w, const struct pollfd *p);
int watch_timeout_ms(struct jail_watch *w);				/* -1: none */
bool watch_done(struct jail_watch *w);
void watch_kill(struct jail_watch *w, enum hutch_err why);
void watch_forward_signal(struct jail_watch *w, int sig);
void watch_tty_resize(struct jail_watch *w);	/* --tty: SIGWINCH */
void watch_finish(struct jail_watch *w);
#define WATCH_MAX_FDS 9

/* Run the loop until the jail is gone and its output drained. Always
 * leaves the jail dead, whatever happens. Fills *ret (free with
 * outcome_free). Returns 0, or -errno for a failure of our own (the jail
 * has still been killed). */
int supervise(struct jail_proc *jp, const struct supervise_opts *opts, struct outcome *ret);
void outcome_free(struct outcome *o);

/* Block the signals a supervisor turns into events (SIGINT, SIGTERM,
 * SIGHUP, SIGQUIT) and return a signalfd for them (close-on-exec,
 * non-blocking), or -errno. The old mask goes to *ret_old unless NULL.
 * The one definition of that set: supervise() and serve both use it. */
int supervise_block_signals(sigset_t *ret_old);

/* Kill a jail and reap its helper, bounded: HUTCH_SIG_KILL_JAIL, then
 * SIGKILL after the grace period. Returns the helper's wait status. */
int jail_kill_and_reap(struct jail_proc *jp, uint64_t grace_ms, void *ret_rusage);

#endif
