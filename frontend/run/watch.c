/* watch.c: the watch of one run on an event loop (see supervise.h and
 * watch.h): each descriptor it waits on is a slot, registered with the
 * loop while wanted and re-synced after everything the watch does; its
 * deadlines are one timer; the target's stdin and the rest of the spec
 * are written as the pipes take them; the helper's exit starts a bounded
 * drain. Nothing here blocks. Frontend only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fd-util.h"
#include "hutch-abi.h"
#include "time-util.h"
#include "run/event-loop.h"
#include "run/forkserver.h"
#include "run/pty-relay.h"
#include "run/watch.h"

static int jail_signal(struct jail_proc *jp, int sig)
{
	return (int)syscall(SYS_pidfd_send_signal, jp->pidfd, sig, NULL, 0);
}

/* What says the helper is gone: its pidfd, or for a forkserver's child
 * the exit pipe its wait status comes on. */
static int jail_exit_fd(const struct jail_proc *jp)
{
	return jp->exit_rd >= 0 ? jp->exit_rd : jp->pidfd;
}

static int jail_reap(struct jail_proc *jp, int flags, struct rusage *ru)
{
	int status = 0;
	pid_t r;

	if (jp->exit_rd >= 0 || jp->pid < 0) {
		status = jp->pid < 0 ? -ECHILD : forkserver_reap(jp, flags, ru);
	} else {
		do
			r = wait4(jp->pid, &status, flags, ru);
		while (r < 0 && errno == EINTR);
		if (r <= 0)
			return r == 0 ? -EAGAIN : -errno;
	}
	/* The helper's outer process exits on its own only after waiting
	 * for pid 1 (a setup failure before that is 71, a signal may be
	 * anyone's): host-ids.h's jail_gone. */
	if (status >= 0 && WIFEXITED(status) && WEXITSTATUS(status) != HUTCH_EXIT_SETUP)
		jp->helper_waited = true;
	return status;
}

int jail_kill_and_reap(struct jail_proc *jp, uint64_t grace_ms, void *ret_rusage)
{
	struct pollfd p = { .fd = jail_exit_fd(jp), .events = POLLIN };
	uint64_t end = time_now_ms() + grace_ms;

	jail_signal(jp, HUTCH_SIG_KILL_JAIL);
	for (;;) {
		uint64_t t = time_now_ms();
		int r = poll(&p, 1, t >= end ? 0 : (int)(end - t));

		if (r > 0 || (r == 0 && t >= end))
			break;
		if (r < 0 && errno != EINTR)
			break;
	}
	if (!(p.revents & POLLIN))
		jail_signal(jp, SIGKILL); /* its death takes pid 1 with it (PDEATHSIG) */
	return jail_reap(jp, 0, ret_rusage);
}

/* A descriptor leaves the loop before it is closed: its number may be
 * reused at once, by this watch or another. */
void watch_unwatch(struct jail_watch *l, int fd)
{
	for (int i = 0; i < SLOT_MAX && fd >= 0; i++)
		if (l->slot[i].ev && evwatch_fd(l->slot[i].ev) == fd) {
			evwatch_del(l->slot[i].ev);
			l->slot[i].ev = NULL;
		}
}

void watch_close(struct jail_watch *l, int *fd)
{
	watch_unwatch(l, *fd);
	fd_close(fd);
}

void watch_request_kill(struct jail_watch *l, enum hutch_err why, const char *limit)
{
	if (l->res->err == HUTCH_ERR_NONE) {
		l->res->err = why;
		l->res->limit = limit;
	}
	if (!l->killing) {
		l->killing = true;
		jail_signal(l->jp, HUTCH_SIG_KILL_JAIL);
		l->kill_at = time_add_ms(time_now_ms(), l->o.kill_grace_ms);
	}
}

static void read_status(struct jail_watch *l)
{
	ssize_t n = read(l->jp->status_rd, l->status_buf + l->status_len,
			 sizeof(l->status_buf) - l->status_len);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n > 0) {
		l->status_len += (size_t)n;
		if (l->status_len < sizeof(l->status_buf))
			return;
	}
	/* EOF, an error, or a whole record (nothing may follow it). */
	l->status_open = false;
}

static void pump_stdin(struct jail_watch *l, uint32_t src_ev, uint32_t dst_ev)
{
	const struct supervise_opts *o = &l->o;

	if (l->in_off == l->in_len && l->stdin_src_open && (src_ev & (EPOLLIN | EPOLLHUP | EPOLLERR))) {
		ssize_t n = read(o->stdin_src_fd, l->in_buf, sizeof(l->in_buf));

		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			return;
		if (n <= 0)
			l->stdin_src_open = false;
		else {
			l->in_len = (size_t)n;
			l->in_off = 0;
		}
	}
	if (l->in_off < l->in_len && (dst_ev & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
		ssize_t n = write(l->jp->stdin_wr, l->in_buf + l->in_off, l->in_len - l->in_off);

		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			return;
		if (n < 0) { /* the target closed its stdin: stop feeding it */
			l->stdin_src_open = false;
			l->in_off = l->in_len = 0;
		} else {
			l->in_off += (size_t)n;
		}
	}
	if (!l->stdin_src_open && l->in_off == l->in_len)
		watch_close(l, &l->jp->stdin_wr);
}

static void pump_stdin_data(struct jail_watch *l)
{
	const struct supervise_opts *o = &l->o;
	ssize_t n = write(l->jp->stdin_wr, o->stdin_data + l->stdin_data_off,
			  o->stdin_len - l->stdin_data_off);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n < 0)
		l->stdin_data_off = o->stdin_len;
	else
		l->stdin_data_off += (size_t)n;
	if (l->stdin_data_off == o->stdin_len)
		watch_close(l, &l->jp->stdin_wr);
}

/* The watch's next deadline, absolute; EVTIMER_NEVER for none. */
static uint64_t next_deadline(struct jail_watch *l)
{
	uint64_t next = EVTIMER_NEVER;

	if (l->exited)
		return l->deadline; /* the drain deadline once exited */
	if (l->deadline)
		next = l->deadline;
	if (l->idle_deadline && l->idle_deadline < next)
		next = l->idle_deadline;
	if (l->kill_at && l->kill_at < next)
		next = l->kill_at;
	if (l->listener_fd >= 0 && l->notif_in_window >= NOTIFY_PER_WINDOW &&
	    l->notif_window + NOTIFY_WINDOW_MS < next)
		next = l->notif_window + NOTIFY_WINDOW_MS; /* watch it again then */
	return next;
}

static void check_deadlines(struct jail_watch *l)
{
	uint64_t t = time_now_ms();

	if (l->exited)
		return;
	if (l->kill_at && t >= l->kill_at) {
		if (l->killing) {
			jail_signal(l->jp, SIGKILL);
			l->kill_at = t + 1000;
		} else {
			watch_request_kill(l, l->res->err ? l->res->err : HUTCH_ERR_CANCELLED, NULL);
		}
	}
	if (l->deadline && t >= l->deadline)
		watch_request_kill(l, HUTCH_ERR_TIMEOUT, "wall_ms");
	if (l->idle_deadline && t >= l->idle_deadline)
		watch_request_kill(l, HUTCH_ERR_TIMEOUT, "idle_ms");
}

static void on_exit_of_helper(struct jail_watch *l)
{
	struct rusage ru;
	int st;

	if (l->jp->exit_rd >= 0)
		watch_unwatch(l, l->jp->exit_rd); /* forkserver_reap closes it */
	st = jail_reap(l->jp, WNOHANG, &ru);
	if (st == -EAGAIN)
		return;
	l->exited = true;
	l->res->exit_status_raw = st < 0 ? 0 : st;
	if (st >= 0) {
		l->res->cpu_user_ms = (uint64_t)ru.ru_utime.tv_sec * 1000 + (uint64_t)ru.ru_utime.tv_usec / 1000;
		l->res->cpu_sys_ms = (uint64_t)ru.ru_stime.tv_sec * 1000 + (uint64_t)ru.ru_stime.tv_usec / 1000;
		l->res->max_rss_kb = (uint64_t)ru.ru_maxrss;
	}
	l->res->wall_ms = time_now_ms() - l->start;
	/* The jail is gone (its pid 1 outlives every process in it), so the
	 * pipes end promptly; a bounded drain covers what is still in them. */
	l->deadline = time_now_ms() + DRAIN_MS;
	l->idle_deadline = 0;
	l->kill_at = 0;
	watch_close(l, &l->jp->stdin_wr);
	watch_proxy_stop(l); /* nothing in the jail is left to use it */
}

struct jail_watch *watch_start(struct jail_proc *jp, const struct supervise_opts *o,
				struct outcome *res)
{
	struct jail_watch *l = calloc(1, sizeof(*l));

	memset(res, 0, sizeof(*res));
	if (!l)
		return NULL;
	struct seccomp_notif_sizes sizes = { 0 };

	l->jp = jp;
	l->o = *o;
	l->res = res;
	l->listener_fd = -1;
	res->workdir_fd = -1;
	/* The kernel may use larger structures than our headers know. */
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) < 0)
		sizes = (struct seccomp_notif_sizes){ sizeof(struct seccomp_notif),
						      sizeof(struct seccomp_notif_resp), 0 };
	l->notif_size = sizes.seccomp_notif > sizeof(struct seccomp_notif) ? sizes.seccomp_notif
									    : sizeof(struct seccomp_notif);
	l->resp_size = sizes.seccomp_notif_resp > sizeof(struct seccomp_notif_resp)
			       ? sizes.seccomp_notif_resp
			       : sizeof(struct seccomp_notif_resp);
	l->notif = calloc(1, l->notif_size);
	l->notif_resp = calloc(1, l->resp_size);
	if (!l->notif || !l->notif_resp) {
		free(l->notif);
		free(l->notif_resp);
		free(l);
		return NULL;
	}
	/* No memory for explain's log: the run goes on, explain sees nothing. */
	(void)explain_watch_init(&l->ex, &res->explain, o->explain, o->explain_calls,
				 o->n_explain_calls);
	l->status_open = true;
	l->stdin_src_open = o->stdin_src_fd >= 0;
	res->out = (struct capture){ .limit = o->frame_mode ? 0 : o->stdout_bytes,
				     .echo_fd = o->passthrough && !o->frame_mode ? 1 : -1,
				     .open = true };
	res->errc = (struct capture){ .limit = o->stderr_bytes,
				      .echo_fd = o->passthrough ? 2 : -1,
				      .open = true };
	l->start = time_now_ms();
	l->deadline = o->wall_ms ? time_add_ms(l->start, o->wall_ms) : 0;
	l->idle_deadline = o->idle_ms ? time_add_ms(l->start, o->idle_ms) : 0;
	sink_open(&l->sink_out, res->out.echo_fd);
	sink_open(&l->sink_err, res->errc.echo_fd);
	/* stderr is read, never spliced: its tail says whether the command
	 * died of its memory limit (memory-limit.c). stdout, which may be
	 * large, is spliced when passed through, and its tail then unseen. */
	l->sink_err.no_splice = true;
	if (jp->stdin_wr >= 0)
		fcntl(jp->stdin_wr, F_SETFL, O_NONBLOCK);
	if (jp->stdin_wr >= 0 && !o->stdin_data && o->stdin_src_fd < 0)
		fd_close(&jp->stdin_wr);
	return l;
}

/* The rest of the spec, as the helper takes it. */
static void pump_spec(struct jail_watch *l)
{
	struct jail_proc *jp = l->jp;

	while (jp->spec_off < l->o.spec_len) {
		ssize_t n = write(jp->spec_wr, l->o.spec + jp->spec_off, l->o.spec_len - jp->spec_off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n < 0)
			break; /* EPIPE: the helper is gone; its status says why */
		jp->spec_off += (size_t)n;
	}
	watch_close(l, &jp->spec_wr);
}

/* What slot i waits on now: *ret_fd (-1: nothing) and *ret_events. */
static void slot_wants(struct jail_watch *l, enum slot i, int *ret_fd, uint32_t *ret_events)
{
	struct jail_proc *jp = l->jp;
	const struct supervise_opts *o = &l->o;
	int fd = -1;
	uint32_t ev = EPOLLIN;

	switch (i) {
	case SLOT_CTL: fd = o->control_fd; break;
	case SLOT_LIS:
		if (!notify_throttled(l, time_now_ms()))
			fd = l->listener_fd;
		break;
	case SLOT_EXIT: fd = l->exited ? -1 : jail_exit_fd(jp); break;
	case SLOT_STATUS: fd = l->status_open ? jp->status_rd : -1; break;
	/* A full sink is watched instead of the stream that feeds it. */
	case SLOT_OUT:
		fd = jp->stdout_rd < 0 ? -1 : sink_pending(&l->sink_out) ? l->sink_out.fd : jp->stdout_rd;
		ev = jp->stdout_rd >= 0 && sink_pending(&l->sink_out) ? EPOLLOUT : EPOLLIN;
		break;
	case SLOT_ERR:
		fd = jp->stderr_rd < 0 ? -1 : sink_pending(&l->sink_err) ? l->sink_err.fd : jp->stderr_rd;
		ev = jp->stderr_rd >= 0 && sink_pending(&l->sink_err) ? EPOLLOUT : EPOLLIN;
		break;
	case SLOT_IN:
		if (jp->stdin_wr >= 0 && (o->stdin_data || l->in_off < l->in_len))
			fd = jp->stdin_wr;
		ev = EPOLLOUT;
		break;
	case SLOT_SRC:
		if (jp->stdin_wr >= 0 && l->stdin_src_open && l->in_off == l->in_len)
			fd = o->stdin_src_fd;
		break;
	case SLOT_SPEC: fd = jp->spec_wr; ev = EPOLLOUT; break;
	case SLOT_MAX: break;
	}
	*ret_fd = fd;
	*ret_events = ev;
}

static void slot_ready(struct evwatch *w, uint32_t events, void *data);

/* The loop's watches and timer as the watch's state now asks: a slot
 * whose descriptor changed leaves the loop before it joins with the new
 * one. -errno when the loop refused one (out of memory). */
static int watch_sync(struct jail_watch *l)
{
	int r = 0;

	for (int i = 0; i < SLOT_MAX && l->loop; i++) {
		struct watch_slot *sl = &l->slot[i];
		uint32_t ev;
		int fd;

		slot_wants(l, (enum slot)i, &fd, &ev);
		if (sl->ev && evwatch_fd(sl->ev) != fd) {
			evwatch_del(sl->ev);
			sl->ev = NULL;
		}
		if (fd < 0)
			continue;
		if (!sl->ev)
			sl->ev = evwatch_add(l->loop, fd, ev, slot_ready, NULL, sl);
		if (!sl->ev || evwatch_set_events(sl->ev, ev) < 0)
			r = -ENOMEM;
	}
	if (l->timer)
		evtimer_set(l->timer, next_deadline(l));
	return r;
}

/* After anything the watch did: deadlines, the loop's set, the owner. */
static void watch_settle(struct jail_watch *l)
{
	check_deadlines(l);
	if (watch_sync(l) < 0)
		watch_request_kill(l, HUTCH_ERR_INTERNAL, NULL); /* unwatched, it would hang */
	if (l->hooks.after)
		l->hooks.after(l->hooks.data);
}

static void slot_handle(struct jail_watch *l, enum slot i, uint32_t events)
{
	struct jail_proc *jp = l->jp;

	switch (i) {
	case SLOT_CTL: notify_read_control(l); break;
	case SLOT_LIS:
		if (events & EPOLLIN)
			notify_read(l);
		else
			watch_close(l, &l->listener_fd); /* EPOLLHUP: every filter user is gone */
		break;
	case SLOT_EXIT: on_exit_of_helper(l); break;
	case SLOT_STATUS: read_status(l); break;
	case SLOT_OUT:
		if (sink_pending(&l->sink_out))
			sink_flush(&l->sink_out); /* EPOLLERR too: the write then says EPIPE */
		else
			capture_read(l, &jp->stdout_rd, &l->res->out, &l->sink_out, "stdout_bytes");
		break;
	case SLOT_ERR:
		if (sink_pending(&l->sink_err))
			sink_flush(&l->sink_err);
		else
			capture_read(l, &jp->stderr_rd, &l->res->errc, &l->sink_err, "stderr_bytes");
		break;
	case SLOT_IN:
		if (l->o.stdin_data)
			pump_stdin_data(l);
		else
			pump_stdin(l, 0, events);
		break;
	case SLOT_SRC: pump_stdin(l, events, 0); break;
	case SLOT_SPEC: pump_spec(l); break;
	case SLOT_MAX: break;
	}
}

static void slot_ready(struct evwatch *w, uint32_t events, void *data)
{
	struct watch_slot *sl = data;
	struct jail_watch *l = sl->l;

	(void)w;
	if (l->hooks.before)
		l->hooks.before(l->hooks.data);
	slot_handle(l, (enum slot)(sl - l->slot), events);
	watch_settle(l);
}

static void deadline_due(struct evtimer *t, void *data)
{
	struct jail_watch *l = data;

	(void)t;
	if (l->hooks.before)
		l->hooks.before(l->hooks.data);
	watch_settle(l);
}

void watch_drop_stdin(struct jail_watch *l)
{
	if (l->o.stdin_src_fd >= 0)
		watch_unwatch(l, l->o.stdin_src_fd);
	l->o.stdin_src_fd = -1;
	l->stdin_src_open = false;
	l->in_off = l->in_len = 0;
	if (!l->o.stdin_data)
		watch_close(l, &l->jp->stdin_wr);
	(void)watch_sync(l);
}

struct evloop *watch_loop(const struct jail_watch *l)
{
	return l->loop;
}

void watch_set_hooks(struct jail_watch *l, const struct watch_hooks *hooks)
{
	l->hooks = hooks ? *hooks : (struct watch_hooks){ 0 };
}

int watch_attach(struct jail_watch *l, struct evloop *loop, const struct watch_hooks *hooks)
{
	l->loop = loop;
	watch_set_hooks(l, hooks);
	for (int i = 0; i < SLOT_MAX; i++)
		l->slot[i].l = l;
	l->timer = evtimer_add(loop, next_deadline(l), deadline_due, l);
	if (!l->timer)
		return -ENOMEM;
	return watch_sync(l);
}

/* Out of the loop: nothing of the watch is called any more. */
static void watch_detach(struct jail_watch *l)
{
	watch_proxy_stop(l);
	for (int i = 0; i < SLOT_MAX; i++) {
		evwatch_del(l->slot[i].ev);
		l->slot[i].ev = NULL;
	}
	evtimer_del(l->timer);
	l->timer = NULL;
	l->loop = NULL;
}

void watch_move_outcome(struct jail_watch *l, struct outcome *res)
{
	/* A moved run is one being torn down (serve-reap.c): its proxy,
	 * whose rules and log were the old owner's, stops, and none starts. */
	watch_proxy_stop(l);
	l->o.proxy = NULL;
	l->res = res;
	l->ex.log = &res->explain;	/* the other pointer into the outcome */
}

bool watch_done(struct jail_watch *l)
{
	struct jail_proc *jp = l->jp;

	if (!l->exited)
		return false;
	if (l->res->err != HUTCH_ERR_NONE) {
		/* Killed (timeout, overflow, cancel): what a stalled reader has
		 * not taken is dropped now, not after the drain. */
		capture_drop_stalled(l, &jp->stdout_rd, &l->res->out, &l->sink_out);
		capture_drop_stalled(l, &jp->stderr_rd, &l->res->errc, &l->sink_err);
	}
	if (!l->status_open && jp->stdout_rd < 0 && jp->stderr_rd < 0)
		return true;
	if (time_now_ms() >= l->deadline) {
		if (l->res->err == HUTCH_ERR_NONE)
			l->res->err = HUTCH_ERR_DRAIN_TIMEOUT;
		return true;
	}
	return false;
}

void watch_kill(struct jail_watch *l, enum hutch_err why)
{
	if (!l->exited)
		watch_request_kill(l, why, NULL);
	(void)watch_sync(l);	/* the kill's deadline */
}

void watch_forward_signal(struct jail_watch *l, int sig)
{
	if (l->killing || l->exited)
		return;
	/* First signal: pass it on and give the target the grace period;
	 * a second one, or the grace running out, kills the jail. */
	if (l->kill_at == 0) {
		jail_signal(l->jp, sig);
		l->kill_at = time_add_ms(time_now_ms(), l->o.kill_grace_ms);
	} else {
		watch_request_kill(l, HUTCH_ERR_CANCELLED, NULL);
	}
	(void)watch_sync(l);
}

void watch_tty_resize(struct jail_watch *l)
{
	if (l->tty_attached)
		pty_relay_resize(l->o.tty_size_fd,
				 l->jp->stdin_wr >= 0 ? l->jp->stdin_wr : l->jp->stdout_rd);
}

void watch_finish(struct jail_watch *l)
{
	struct outcome *ret = l->res;

	watch_detach(l);
	/* Whatever ended the watch, nothing of the jail survives it. */
	if (!l->exited) {
		struct rusage ru;
		int st = jail_kill_and_reap(l->jp, l->o.kill_grace_ms, &ru);

		ret->exit_status_raw = st < 0 ? 0 : st;
		ret->wall_ms = time_now_ms() - l->start;
	}
	if (l->status_len == sizeof(struct hutch_status)) {
		memcpy(&ret->record, l->status_buf, sizeof(ret->record));
		ret->have_record = status_check(&ret->record) == 0;
		if (!ret->have_record && ret->err == HUTCH_ERR_NONE)
			ret->err = HUTCH_ERR_CRASH;
	} else if (l->status_len > 0 && ret->err == HUTCH_ERR_NONE) {
		ret->err = HUTCH_ERR_CRASH; /* a record cut short */
	}
	/* What pid 1 sent that we have not read yet (a quick run). */
	while (l->o.control_fd >= 0 && notify_read_control(l) > 0)
		;
	fd_close(&l->o.control_fd);
	fd_close(&l->listener_fd);
	sink_close(&l->sink_out);
	sink_close(&l->sink_err);
	free(l->notif);
	free(l->notif_resp);
	free(l);
}
