/* watch.h: inside the watch of one run (run/supervise.h), shared by the
 * files that make it up: watch.c (its life on the event loop: slots,
 * deadlines, stdin and the spec, the helper's exit and its killing),
 * capture.c (stdout and stderr, captured or passed through), notify.c
 * (what pid 1 sends on the control socket, and the seccomp
 * notifications) and watch-proxy.c (network "proxy"'s egress proxy on
 * the same loop). supervise.c, the standalone loop, uses the watch as any
 * caller does. Frontend only; not for callers of the watch. */
#ifndef HUTCH_WATCH_H
#define HUTCH_WATCH_H

#include <seccomp.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>

#include "status.h"
#include "run/explain.h"
#include "run/sink.h"
#include "run/supervise.h"

#define IO_CHUNK SINK_CHUNK /* a read lands in the sink's buffer */
#define SPLICE_CHUNK (1u << 20)
#define DRAIN_MS 2000u

/* Each notification costs the supervisor two ioctls and a poll turn that
 * no limit of the jail's pays for, and in hutch serve every client shares
 * that loop. Past NOTIFY_PER_WINDOW in a window the listener is left
 * unpolled until the next: the jail's refused calls then wait in the
 * kernel, so it is the jail that slows down, never the supervisor. */
#define NOTIFY_WINDOW_MS 100
#define NOTIFY_PER_WINDOW 500

/* What a watch waits on, one loop watch each while wanted: the helper's
 * control socket, the seccomp listener, the helper's exit, the status
 * pipe, stdout and stderr (or, while their sink is full, the sink), the
 * target's stdin and its source, and the rest of the spec. */
enum slot { SLOT_CTL, SLOT_LIS, SLOT_EXIT, SLOT_STATUS, SLOT_OUT, SLOT_ERR, SLOT_IN, SLOT_SRC,
	    SLOT_SPEC, SLOT_MAX };

struct jail_watch {
	struct jail_proc *jp;
	struct supervise_opts o;
	struct outcome *res;
	uint64_t start, deadline, idle_deadline, kill_at;
	bool exited, killing, finished;
	uint8_t status_buf[sizeof(struct hutch_status)];
	size_t status_len;
	bool status_open;
	size_t in_len, in_off;
	size_t stdin_data_off;
	bool stdin_src_open;
	uint64_t frame_len;	/* declared, once the header is in */
	bool frame_known;
	struct evloop *loop;	/* watch_attach's; NULL before */
	struct watch_slot {
		struct jail_watch *l;
		struct evwatch *ev;	/* registered on ev's fd, or NULL */
	} slot[SLOT_MAX];
	struct evtimer *timer;	/* the next deadline */
	struct watch_hooks hooks;
	int listener_fd;	/* seccomp user notifications of the jail */
	uint64_t notif_window;	/* start of the current rate window, ms */
	unsigned notif_in_window;	/* notifications answered in it */
	struct seccomp_notif *notif;
	struct seccomp_notif_resp *notif_resp;
	size_t notif_size, resp_size;
	struct explain_watch ex;	/* --explain's calls on the same listener */
	struct sink sink_out, sink_err;
	bool tty_attached;	/* --tty: the pty's master is our stdin/stdout */
	/* network proxy (run/proxy.h), once its socket came on a watch on a
	 * loop: its one descriptor a loop watch, its deadlines a timer */
	struct proxy *proxy;
	struct evwatch *proxy_ev;
	struct evtimer *proxy_timer;
	uint8_t in_buf[IO_CHUNK];
};

/* watch.c */
void watch_unwatch(struct jail_watch *l, int fd);	/* before fd is closed */
void watch_close(struct jail_watch *l, int *fd);	/* unwatch, then close */
void watch_request_kill(struct jail_watch *l, enum hutch_err why, const char *limit);

/* capture.c */
void capture_read(struct jail_watch *l, int *fd, struct capture *c, struct sink *s,
		  const char *limit_name);
void capture_drop_stalled(struct jail_watch *l, int *fd, struct capture *c, struct sink *s);

/* watch-proxy.c: the proxy on pid 1's listening socket (takes fd); and
 * its end (the helper exited, the watch leaves its loop or moves). */
void watch_proxy_start(struct jail_watch *l, int fd);
void watch_proxy_stop(struct jail_watch *l);

/* notify.c: 1 when a message was read, 0 when the socket closed, -1 when
 * none waits (notify_read_control); the listener read and answered. */
int notify_read_control(struct jail_watch *l);
bool notify_throttled(struct jail_watch *l, uint64_t t);
void notify_read(struct jail_watch *l);

#endif
