/* forkserver.h: `hutch serve`'s long-lived helper, `hutch-exec
 * --forkserver` (hutch-exec(8), "FORKSERVER"): started once, it forks one
 * one-shot helper per jail from the descriptors we send it, so a run pays
 * neither our fork nor the helper's exec. It holds no state of a run but
 * the exit pipe it reports the helper's wait status on. Frontend only. */
#ifndef HUTCH_FORKSERVER_H
#define HUTCH_FORKSERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "run/event-loop.h"
#include "run/spawn.h"

struct spec;

/* One request awaiting its reply. The forkserver answers in the order it
 * was asked and a reply does not name its request, so the requests sent
 * wait in a queue, oldest first. A request sent without waiting (serve's
 * runs: forkserver_ticket_new) leaves its run's jail_proc with pid 0 and
 * no pidfd: its pipes are all there, the helper not yet; done says when
 * the reply came, with err 0 and jp's pid and pidfd filled, or -errno
 * (no jail was started; the forkserver broke when fs->pid is -1 then). */
struct fs_ticket {
	struct fs_ticket *next;
	struct jail_proc *jp;	/* NULL: let go of (forkserver_ticket_drop) */
	uint64_t deadline;	/* when no reply means the forkserver is stuck */
	int err;
	bool queued, done;
	bool heap;		/* forkserver_ticket_new's, not a waiting call's own */
};

/* A template's bytes and id (forkserver-wire.h, prefix_id). */
struct fs_template {
	uint8_t *buf;	/* owned */
	size_t len;
	uint8_t id[32];
};

struct forkserver {
	int sock;	/* SOCK_SEQPACKET to it */
	pid_t pid;	/* -1: none, or stopped after it broke */
	int pidfd;
	unsigned pool;	/* jails it builds ahead (--pool); 0: none */
	struct fs_ticket *head, *tail;	/* sent, not yet answered */
	unsigned n_queued;
	/* Set by the caller around one spawn: that spawn sends its request
	 * and returns without waiting; the ticket tells the rest. */
	struct fs_ticket *next_async;
	struct evwatch *ev;	/* sock on a loop (forkserver_attach) */
	struct evtimer *timer;	/* the oldest request's deadline */
	struct fs_template tmpl;	/* the template it was sent last */
	unsigned whole_streak;	/* poolable requests in a row with no mount of their own */
};

/* A request with no mount of its own gets a whole template (hutch-exec(8),
 * "The template") once this many poolable requests in a row, itself
 * included, had none: a jail built whole serves no request with a mount
 * of its own, a prefix one serves both, so a server whose requests mix
 * the two keeps the prefix template instead of rebuilding its pool at
 * every change. */
#define FS_WHOLE_AFTER 8

/* Start helper as a forkserver; it dies with us (PDEATHSIG) and exits
 * when sock closes. With pool > 0 (at most HUTCH_FS_POOL_MAX), it keeps
 * up to that many jails of the last poolable spec's shape built ahead
 * (hutch-exec(8), FORKSERVER). 0 or -errno. */
int forkserver_start(const char *helper, unsigned pool, struct forkserver *ret);

/* Close its socket, kill and reap it: every jail it started dies too. */
void forkserver_stop(struct forkserver *fs);

/* As spawn_helper, through the forkserver: ret->pidfd is for signals,
 * ret->exit_rd says when the helper is gone. -errno: no jail started;
 * fs->pid is -1 afterwards when the forkserver itself broke. */
int forkserver_spawn(struct forkserver *fs, const uint8_t *spec, size_t spec_len,
		     const struct spawn_stdio *io, struct jail_proc *ret);

/* Replies read and the queue's deadline kept on l, so that requests sent
 * without waiting are answered while the loop turns: 0 or -errno. */
int forkserver_attach(struct forkserver *fs, struct evloop *l);

/* Requests sent without waiting, at most, before the next waits for a
 * reply: the descriptors in flight on a socket count against the
 * sender's user's RLIMIT_NOFILE until they are received (ETOOMANYREFS
 * past it, for any process of that user: a jail's pid 1 sending its
 * seccomp listener too), and a full socket would block the sender. Two
 * keep the forkserver busy. */
#define FORKSERVER_INFLIGHT_MAX 2

/* A ticket for the next spawn (fs->next_async), or NULL (no memory: the
 * spawn waits, as the CLI's path does). */
struct fs_ticket *forkserver_ticket_new(void);
/* Block (bounded by the forkserver's reply timeout) until t is done:
 * for the rare paths that must have the jail now. */
void forkserver_ticket_wait(struct forkserver *fs, struct fs_ticket *t);
/* Its owner lets go: freed now when done or never sent, else when its
 * reply comes, the jail it names then killed at once (the forkserver
 * reaps it). NULL is fine. */
void forkserver_ticket_drop(struct forkserver *fs, struct fs_ticket *t);

/* forkserver-template.c: the template of sp's first n_prefix mounts
 * (forkserver-wire.h), whole (HUTCH_SPEC_TEMPLATE_WHOLE) when those are
 * all of sp's and whole is true (FS_WHOLE_AFTER). *ret_id: its SHA-256,
 * all zero when there is none (sp NULL, n_prefix 0). When it is not
 * last's, *ret_fd is a sealed memfd of it to send and *ret_new its bytes
 * (the caller's: kept with forkserver_template_keep once sent, else
 * freed); else *ret_fd is -1.
 * 0 or -errno (then no template: the request pools as without). */
int forkserver_template(const struct fs_template *last, const struct spec *sp,
			uint32_t n_prefix, bool whole, uint8_t ret_id[32],
			struct fs_template *ret_new, int *ret_fd);
/* sent replaces last (whose bytes are freed); sent is emptied. */
void forkserver_template_keep(struct fs_template *last, struct fs_template *sent);

/* wait4 for a forkserver's child: the record on jp->exit_rd. The status,
 * -EAGAIN (WNOHANG, not yet) or -ECHILD (the forkserver died first). */
int forkserver_reap(struct jail_proc *jp, int flags, struct rusage *ru);

#endif
