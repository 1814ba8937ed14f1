/* supervise.h: the watch of a run (watch.c, capture.c, notify.c) on an
 * event loop (run/event-loop.h): the helper's pidfd, the target's stdout
 * and stderr (drained concurrently, capped), stdin forwarding, the rest
 * of the spec, the status pipe and the deadlines; and supervise(), a run
 * on a loop of its own with the signals sent to us. Nothing in it blocks.
 * Frontend only. */
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
	/* The spec, of which jp->spec_wr still owes the helper the bytes
	 * from jp->spec_off (spawn_spec_start); the watch writes them. */
	const uint8_t *spec;
	size_t spec_len;
	/* network proxy: pid 1 sends the proxy's listening socket; the
	 * watch runs run/proxy.c on it under these rules (the plan's). */
	const struct plan_proxy *proxy;
};

/* The watch of one run on an event loop (run/event-loop.h), serve's or
 * supervise()'s own: start, attach, and the loop does the rest; after
 * every event or deadline the watch handled, hooks->after runs (and
 * hooks->before ahead of it), where its owner asks watch_done. finish
 * kills what is left (without waiting once watch_done said true),
 * completes the outcome, leaves the loop and frees the watch. */
struct jail_watch;
struct evloop;
struct watch_hooks {
	void (*before)(void *data);
	void (*after)(void *data);
	void *data;
};
struct jail_watch *watch_start(struct jail_proc *jp, const struct supervise_opts *o,
				struct outcome *res);
/* 0, or -errno (the watch could not register: kill it and finish). */
int watch_attach(struct jail_watch *w, struct evloop *loop, const struct watch_hooks *hooks);
/* The watch stops forwarding stdin_src_fd (the caller is about to
 * close it; its number may come back at once) and closes the target's
 * stdin. */
void watch_drop_stdin(struct jail_watch *w);
/* The loop the watch is attached to, NULL before watch_attach: where
 * what belongs to the run (a per-run listener, its connections, their
 * timers) registers, to leave it before watch_finish. */
struct evloop *watch_loop(const struct jail_watch *w);
/* Another owner's hooks (NULL: none). */
void watch_set_hooks(struct jail_watch *w, const struct watch_hooks *hooks);
/* The outcome moved (exec_move, a run being torn down): the watch fills
 * res from now on, and its network proxy, if any, stops. */
void watch_move_outcome(struct jail_watch *w, struct outcome *res);
bool watch_done(struct jail_watch *w);
void watch_kill(struct jail_watch *w, enum hutch_err why);
void watch_forward_signal(struct jail_watch *w, int sig);
void watch_tty_resize(struct jail_watch *w);	/* --tty: SIGWINCH */
void watch_finish(struct jail_watch *w);

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
