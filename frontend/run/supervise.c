/* supervise.c: the run's event loop (see supervise.h). Deadlines are on
 * CLOCK_MONOTONIC; the jail is killed on every way out of the loop, normal
 * exit included (the helper's exit already means the jail's pid namespace
 * is empty, see hutch-exec(8)). Frontend only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fd-pass.h"
#include "fd-util.h"
#include "frame-codec.h"
#include "hutch-abi.h"
#include "time-util.h"
#include "doc/result.h"
#include "run/control-recv.h"
#include "run/explain.h"
#include "run/forkserver.h"
#include "run/memfd-notify.h"
#include "run/memory-limit.h"
#include "run/proxy.h"
#include "run/pty-relay.h"
#include "run/sink.h"
#include "run/supervise.h"

#define IO_CHUNK SINK_CHUNK /* a read lands in the sink's buffer */
#define SPLICE_CHUNK (1u << 20)
#define DRAIN_MS 2000u

static int send_signal(struct jail_proc *jp, int sig)
{
	return (int)syscall(SYS_pidfd_send_signal, jp->pidfd, sig, NULL, 0);
}

/* What says the helper is gone: its pidfd, or for a forkserver's child
 * the exit pipe its wait status comes on. */
static int exit_poll_fd(const struct jail_proc *jp)
{
	return jp->exit_rd >= 0 ? jp->exit_rd : jp->pidfd;
}

static int reap(struct jail_proc *jp, int flags, struct rusage *ru)
{
	int status = 0;
	pid_t r;

	if (jp->exit_rd >= 0 || jp->pid < 0)
		return jp->pid < 0 ? -ECHILD : forkserver_reap(jp, flags, ru);
	do
		r = wait4(jp->pid, &status, flags, ru);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return -EAGAIN;
	return r < 0 ? -errno : status;
}

int jail_kill_and_reap(struct jail_proc *jp, uint64_t grace_ms, void *ret_rusage)
{
	struct pollfd p = { .fd = exit_poll_fd(jp), .events = POLLIN };
	uint64_t end = time_now_ms() + grace_ms;

	send_signal(jp, HUTCH_SIG_KILL_JAIL);
	for (;;) {
		uint64_t t = time_now_ms();
		int r = poll(&p, 1, t >= end ? 0 : (int)(end - t));

		if (r > 0 || (r == 0 && t >= end))
			break;
		if (r < 0 && errno != EINTR)
			break;
	}
	if (!(p.revents & POLLIN))
		send_signal(jp, SIGKILL); /* its death takes pid 1 with it (PDEATHSIG) */
	return reap(jp, 0, ret_rusage);
}

static uint64_t capture_room(const struct capture *c)
{
	return c->limit == 0 ? UINT64_MAX : c->bytes >= c->limit ? 0 : c->limit - c->bytes;
}

/* Count n bytes the target wrote; returns how many of them are within the
 * cap (to keep or pass on), and sets *ret_crossed when this chunk crossed
 * it. */
static size_t capture_count(struct capture *c, size_t n, bool *ret_crossed)
{
	uint64_t room = capture_room(c);

	c->bytes += n;
	*ret_crossed = n > room;
	if (n > room)
		c->truncated = true;
	return n < room ? n : (size_t)room;
}

/* Keep bytes for the result document. With rendered caps, the cap bounds
 * the field as rendered (result_fit); whether it will be text or base64
 * is known only at the end, but once both renderings of what is kept
 * exceed the cap, any rendering of more does too: the cap is crossed.
 * Returns true then. */
static bool capture_keep(struct capture *c, const uint8_t *data, size_t use, bool rendered)
{
	uint8_t *nb;

	if (use == 0)
		return false;
	if (!c->buf)
		c->alloc = 0; /* a session freed what it took (session.c) */
	if (c->alloc - c->len < use) {
		/* Doubling: hundreds of MiB without a copy per chunk. */
		size_t want = c->alloc > SIZE_MAX / 2 ? SIZE_MAX : c->alloc * 2;

		if (want < c->len + use)
			want = c->len + use < IO_CHUNK ? IO_CHUNK : c->len + use;
		if (c->limit && want > c->limit)
			want = (size_t)c->limit > c->len + use ? (size_t)c->limit : c->len + use;
		nb = realloc(c->buf, want);
		if (!nb) {
			c->truncated = true;
			return false;
		}
		c->buf = nb;
		c->alloc = want;
	}
	memcpy(c->buf + c->len, data, use);
	c->len += use;
	if (!rendered || c->limit == 0)
		return false;
	c->escaped += result_escaped_len(data, use);
	if (c->escaped <= c->limit || result_base64_len(c->len) <= c->limit)
		return false;
	c->truncated = true;
	return true;
}

void outcome_free(struct outcome *o)
{
	free(o->out.buf);
	free(o->errc.buf);
	free(o->explain.events);
	change_set_free(&o->changes);
	o->explain.events = NULL;
	free(o->net.conns);
	o->net.conns = NULL;
	o->net.n = 0;
	o->explain.n = 0;
	o->out.buf = o->errc.buf = NULL;
	o->out.alloc = o->errc.alloc = o->out.len = o->errc.len = 0;
}

/* Each notification costs the supervisor two ioctls and a poll turn that
 * no limit of the jail's pays for, and in hutch serve every client shares
 * that loop. Past NOTIFY_PER_WINDOW in a window the listener is left
 * unpolled until the next: the jail's refused calls then wait in the
 * kernel, so it is the jail that slows down, never the supervisor. */
#define NOTIFY_WINDOW_MS 100
#define NOTIFY_PER_WINDOW 500

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
	int idx_pid, idx_status, idx_out, idx_err, idx_in, idx_src, idx_ctl, idx_lis, idx_proxy;
	int idx_sink_out, idx_sink_err;	/* a full sink, polled for POLLOUT */
	int listener_fd;	/* seccomp user notifications of the jail */
	uint64_t notif_window;	/* start of the current rate window, ms */
	unsigned notif_in_window;	/* notifications answered in it */
	struct seccomp_notif *notif;
	struct seccomp_notif_resp *notif_resp;
	size_t notif_size, resp_size;
	struct explain_watch ex;	/* --explain's calls on the same listener */
	struct sink sink_out, sink_err;
	bool tty_attached;	/* --tty: the pty's master is our stdin/stdout */
	struct proxy *proxy;	/* network proxy (run/proxy.h), once its socket came */
	uint8_t in_buf[IO_CHUNK];
};

static void request_kill(struct jail_watch *l, enum hutch_err why, const char *limit)
{
	if (l->res->err == HUTCH_ERR_NONE) {
		l->res->err = why;
		l->res->limit = limit;
	}
	if (!l->killing) {
		l->killing = true;
		send_signal(l->jp, HUTCH_SIG_KILL_JAIL);
		l->kill_at = time_now_ms() + l->o.kill_grace_ms;
	}
}


/* Frame mode: the header is checked against the cap before anything is
 * kept past it, and a byte after the frame is an overflow. */
static void frame_check(struct jail_watch *l)
{
	struct capture *c = &l->res->out;

	if (!l->frame_known && c->len >= FRAME_HEADER_BYTES) {
		l->frame_len = frame_decode_header(c->buf);
		l->frame_known = true;
		if (l->frame_len > l->o.stdout_bytes)
			request_kill(l, HUTCH_ERR_FRAME_OVERSIZED, "stdout_bytes");
	}
	if (l->frame_known && c->bytes > FRAME_HEADER_BYTES + l->frame_len)
		request_kill(l, HUTCH_ERR_OUTPUT_OVERFLOW, "stdout_bytes");
}

static void output_seen(struct jail_watch *l)
{
	if (l->o.idle_ms)
		l->idle_deadline = time_now_ms() + l->o.idle_ms;
}

static void output_eof(int *fd, struct capture *c)
{
	fd_close(fd);
	c->open = false;
}

/* Pass-through without copying: the target's pipe pages move straight to
 * the sink when it can take them (a pipe, a file). SPLICE_F_NONBLOCK: a
 * full pipe says EAGAIN rather than blocking, whatever the flags of its
 * description. Returns false when splice is not possible here (then read
 * and write). */
static bool splice_out(struct jail_watch *l, int *fd, struct capture *c, struct sink *s)
{
	uint64_t room = capture_room(c);
	ssize_t n;

	if (s->no_splice || s->broken || room == 0)
		return false; /* at the cap: read() sees what crosses it */
	n = splice(*fd, NULL, s->fd, NULL, room < SPLICE_CHUNK ? (size_t)room : SPLICE_CHUNK,
		   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
	if (n > 0) {
		c->bytes += (uint64_t)n;
		output_seen(l);
	} else if (n == 0) {
		output_eof(fd, c);
	} else if (errno == EAGAIN) {
		s->waiting = true; /* the sink is full (POLLOUT says when not) */
	} else if (errno != EINTR) {
		s->no_splice = true; /* a terminal, an O_APPEND file, a gone reader */
		return false;
	}
	return true;
}

static void read_output(struct jail_watch *l, int *fd, struct capture *c, struct sink *s,
			const char *limit_name)
{
	uint8_t kbuf[IO_CHUNK];
	uint8_t *buf = s->fd >= 0 ? s->buf : kbuf;
	bool crossed, over;
	size_t use;
	ssize_t n;

	if (s->fd >= 0 && splice_out(l, fd, c, s))
		return;
	n = read(*fd, buf, IO_CHUNK);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		output_eof(fd, c);
		return;
	}
	output_seen(l);
	use = capture_count(c, (size_t)n, &crossed);
	memory_tail_keep(c, buf, use);
	if (s->fd >= 0) {
		s->off = 0;
		s->len = s->broken ? 0 : use;
		sink_flush(s);
		over = crossed;
	} else {
		over = capture_keep(c, buf, use, l->o.rendered_caps) || crossed;
	}
	if (over && !l->o.truncate_on_overflow)
		request_kill(l, HUTCH_ERR_OUTPUT_OVERFLOW, limit_name);
	if (l->o.frame_mode && c == &l->res->out)
		frame_check(l);
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

static void pump_stdin(struct jail_watch *l, short src_rev, short dst_rev)
{
	const struct supervise_opts *o = &l->o;

	if (l->in_off == l->in_len && l->stdin_src_open && (src_rev & (POLLIN | POLLHUP | POLLERR))) {
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
	if (l->in_off < l->in_len && (dst_rev & (POLLOUT | POLLERR | POLLHUP))) {
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
		fd_close(&l->jp->stdin_wr);
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
		fd_close(&l->jp->stdin_wr);
}

static int next_timeout(struct jail_watch *l)
{
	uint64_t t = time_now_ms(), next = UINT64_MAX;

	if (!l->exited) {
		if (l->deadline)
			next = l->deadline;
		if (l->idle_deadline && l->idle_deadline < next)
			next = l->idle_deadline;
		if (l->kill_at && l->kill_at < next)
			next = l->kill_at;
		if (l->listener_fd >= 0 && l->notif_in_window >= NOTIFY_PER_WINDOW &&
		    l->notif_window + NOTIFY_WINDOW_MS < next)
			next = l->notif_window + NOTIFY_WINDOW_MS; /* poll it again then */
		if (l->proxy && proxy_timeout_ms(l->proxy) >= 0 &&
		    t + (uint64_t)proxy_timeout_ms(l->proxy) < next)
			next = t + (uint64_t)proxy_timeout_ms(l->proxy);
	} else {
		next = l->deadline; /* the drain deadline once exited */
	}
	if (next == UINT64_MAX)
		return -1;
	return next <= t ? 0 : (int)(next - t > 60000 ? 60000 : next - t);
}

static void check_deadlines(struct jail_watch *l)
{
	uint64_t t = time_now_ms();

	if (l->exited)
		return;
	if (l->kill_at && t >= l->kill_at) {
		if (l->killing) {
			send_signal(l->jp, SIGKILL);
			l->kill_at = t + 1000;
		} else {
			request_kill(l, l->res->err ? l->res->err : HUTCH_ERR_CANCELLED, NULL);
		}
	}
	if (l->deadline && t >= l->deadline)
		request_kill(l, HUTCH_ERR_TIMEOUT, "wall_ms");
	if (l->idle_deadline && t >= l->idle_deadline)
		request_kill(l, HUTCH_ERR_TIMEOUT, "idle_ms");
}

static void on_exit_of_helper(struct jail_watch *l)
{
	struct rusage ru;
	int st = reap(l->jp, WNOHANG, &ru);

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
	fd_close(&l->jp->stdin_wr);
	proxy_free(l->proxy); /* nothing in the jail is left to use it */
	l->proxy = NULL;
}

/* pid 1 sends the work dir (for collect) and the seccomp listener (for
 * denial reports) on the control socket, and last its timings. */
static int read_control(struct jail_watch *l)
{
	char tag;
	int fd, r = control_recv(l->o.control_fd, &tag, &fd, &l->res->timings);

	if (r == -EAGAIN)
		return -1;
	if (r < 0) {
		fd_close(&l->o.control_fd); /* closed, or nothing we expect */
		return 0;
	}
	if (fd < 0)
		return 1; /* the timings record: taken */
	if (tag == HUTCH_CONTROL_WORKDIR && l->res->workdir_fd < 0)
		l->res->workdir_fd = fd;
	else if (tag == HUTCH_CONTROL_OVERLAY && l->res->n_overlay_fds < OUTCOME_MAX_OVERLAYS)
		l->res->overlay_fd[l->res->n_overlay_fds++] = fd;
	else if (tag == HUTCH_CONTROL_PTY && l->o.tty && !l->tty_attached) {
		l->tty_attached = true;
		if (pty_relay_attach(fd, l->o.tty_size_fd, &l->jp->stdout_rd, &l->jp->stdin_wr) < 0)
			request_kill(l, HUTCH_ERR_INTERNAL, NULL);
	}
	else if (tag == HUTCH_CONTROL_PROXY && l->o.proxy && !l->proxy && !l->exited) {
		if (!(l->proxy = proxy_new(fd, l->o.proxy, &l->res->net)))
			request_kill(l, HUTCH_ERR_INTERNAL, NULL); /* no way out is no run */
	} else if (tag == HUTCH_CONTROL_LISTENER && l->listener_fd < 0) {
		l->listener_fd = fd;
		l->res->denials_attributed = true;
		l->res->explain.attached = l->res->explain.requested;
	} else
		close(fd);
	return 1;
}

static void count_denial(struct outcome *o, int nr, uint32_t arch)
{
	for (size_t i = 0; i < o->n_denials; i++)
		if (o->denials[i].nr == nr && o->denials[i].arch == arch) {
			o->denials[i].count++;
			return;
		}
	if (o->n_denials < DENIALS_MAX)
		o->denials[o->n_denials++] = (struct denial){ nr, arch, 1 };
	else
		o->denials_other++;
}

static bool notify_throttled(struct jail_watch *l, uint64_t t)
{
	if (t - l->notif_window >= NOTIFY_WINDOW_MS) {
		l->notif_window = t;
		l->notif_in_window = 0;
	}
	return l->notif_in_window >= NOTIFY_PER_WINDOW;
}

/* A refused ioctl answers ENOTTY, as a driver without that request would
 * (libraries fall back on it; an allow list refuses most requests), except
 * TIOCSTI and TIOCLINUX, whose refusal is the jail's and says so. */
static int denial_errno(const struct seccomp_data *d)
{
	uint32_t req = (uint32_t)d->args[1];

	if (d->nr != seccomp_syscall_resolve_name_arch(d->arch, "ioctl"))
		return EPERM;
	return req == TIOCSTI || req == TIOCLINUX ? EPERM : ENOTTY;
}

/* A denied call waits for us: record it by number and answer EPERM
 * (ENOTTY for an ioctl: denial_errno). */
static void read_notification(struct jail_watch *l)
{
	l->notif_in_window++;
	memset(l->notif, 0, l->notif_size);
	if (ioctl(l->listener_fd, SECCOMP_IOCTL_NOTIF_RECV, l->notif) < 0) {
		if (errno != EINTR && errno != ENOENT)
			fd_close(&l->listener_fd);
		return;
	}
	/* --explain's: only calls the policy allows, answered "continue". */
	if (explain_watch_wants(&l->ex, &l->notif->data)) {
		explain_watch_answer(&l->ex, l->listener_fd, l->notif, l->notif_resp, l->resp_size);
		return;
	}
	if (l->o.memfd_sealed && memfd_notify_is_memfd(&l->notif->data)) {
		memfd_notify_answer(l->listener_fd, l->notif, l->notif_resp, l->resp_size);
		return; /* not a denial: the memfd, sealed against exec */
	}
	count_denial(l->res, l->notif->data.nr, l->notif->data.arch);
	memset(l->notif_resp, 0, l->resp_size);
	l->notif_resp->id = l->notif->id;
	l->notif_resp->error = -denial_errno(&l->notif->data);
	/* ENOENT: the caller died meanwhile; nothing to answer. */
	(void)ioctl(l->listener_fd, SECCOMP_IOCTL_NOTIF_SEND, l->notif_resp);
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
	l->idx_pid = l->idx_status = l->idx_out = l->idx_err = l->idx_in = l->idx_src = -1;
	l->idx_ctl = l->idx_lis = l->idx_sink_out = l->idx_sink_err = l->idx_proxy = -1;
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
	l->deadline = o->wall_ms ? l->start + o->wall_ms : 0;
	l->idle_deadline = o->idle_ms ? l->start + o->idle_ms : 0;
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

int watch_pollfds(struct jail_watch *l, struct pollfd *p, int n)
{
	struct jail_proc *jp = l->jp;
	const struct supervise_opts *o = &l->o;

	l->idx_pid = l->idx_status = l->idx_out = l->idx_err = l->idx_in = l->idx_src = -1;
	l->idx_ctl = l->idx_lis = l->idx_sink_out = l->idx_sink_err = l->idx_proxy = -1;
	if (l->proxy) /* one fd for all of it: proxy.h */
		l->idx_proxy = n, p[n++] = (struct pollfd){ .fd = proxy_fd(l->proxy), .events = POLLIN };
	if (l->o.control_fd >= 0)
		l->idx_ctl = n, p[n++] = (struct pollfd){ .fd = l->o.control_fd, .events = POLLIN };
	if (l->listener_fd >= 0 && !notify_throttled(l, time_now_ms()))
		l->idx_lis = n, p[n++] = (struct pollfd){ .fd = l->listener_fd, .events = POLLIN };
	if (!l->exited)
		l->idx_pid = n, p[n++] = (struct pollfd){ .fd = exit_poll_fd(jp), .events = POLLIN };
	if (l->status_open)
		l->idx_status = n, p[n++] = (struct pollfd){ .fd = jp->status_rd, .events = POLLIN };
	/* A full sink is polled instead of the stream that feeds it. */
	if (jp->stdout_rd >= 0 && sink_pending(&l->sink_out))
		l->idx_sink_out = n, p[n++] = (struct pollfd){ .fd = l->sink_out.fd, .events = POLLOUT };
	else if (jp->stdout_rd >= 0)
		l->idx_out = n, p[n++] = (struct pollfd){ .fd = jp->stdout_rd, .events = POLLIN };
	if (jp->stderr_rd >= 0 && sink_pending(&l->sink_err))
		l->idx_sink_err = n, p[n++] = (struct pollfd){ .fd = l->sink_err.fd, .events = POLLOUT };
	else if (jp->stderr_rd >= 0)
		l->idx_err = n, p[n++] = (struct pollfd){ .fd = jp->stderr_rd, .events = POLLIN };
	if (jp->stdin_wr >= 0 && (o->stdin_data || l->in_off < l->in_len))
		l->idx_in = n, p[n++] = (struct pollfd){ .fd = jp->stdin_wr, .events = POLLOUT };
	if (jp->stdin_wr >= 0 && l->stdin_src_open && l->in_off == l->in_len)
		l->idx_src = n, p[n++] = (struct pollfd){ .fd = o->stdin_src_fd, .events = POLLIN };
	return n;
}

void watch_dispatch(struct jail_watch *l, const struct pollfd *p)
{
	struct jail_proc *jp = l->jp;
	const struct supervise_opts *o = &l->o;

	if (l->idx_ctl >= 0 && p[l->idx_ctl].revents)
		read_control(l);
	if (l->idx_proxy >= 0 && l->proxy)
		proxy_dispatch(l->proxy); /* its ready fds and its deadlines */
	if (l->idx_lis >= 0 && (p[l->idx_lis].revents & POLLIN))
		read_notification(l);
	else if (l->idx_lis >= 0 && p[l->idx_lis].revents)
		fd_close(&l->listener_fd); /* POLLHUP: every filter user is gone */
	if (l->idx_sink_out >= 0 && p[l->idx_sink_out].revents)
		sink_flush(&l->sink_out); /* POLLERR too: the write then says EPIPE */
	if (l->idx_sink_err >= 0 && p[l->idx_sink_err].revents)
		sink_flush(&l->sink_err);
	if (l->idx_out >= 0 && p[l->idx_out].revents)
		read_output(l, &jp->stdout_rd, &l->res->out, &l->sink_out, "stdout_bytes");
	if (l->idx_err >= 0 && p[l->idx_err].revents)
		read_output(l, &jp->stderr_rd, &l->res->errc, &l->sink_err, "stderr_bytes");
	if (l->idx_status >= 0 && p[l->idx_status].revents)
		read_status(l);
	if (o->stdin_data && l->idx_in >= 0 && p[l->idx_in].revents)
		pump_stdin_data(l);
	else if (jp->stdin_wr >= 0 && o->stdin_src_fd >= 0)
		pump_stdin(l, l->idx_src >= 0 ? p[l->idx_src].revents : 0,
			   l->idx_in >= 0 ? p[l->idx_in].revents : 0);
	if (l->idx_pid >= 0 && p[l->idx_pid].revents)
		on_exit_of_helper(l);
	check_deadlines(l);
}

int watch_timeout_ms(struct jail_watch *l)
{
	check_deadlines(l);
	return next_timeout(l);
}

static void drop_stalled(int *fd, struct capture *c, struct sink *s)
{
	if (*fd >= 0 && sink_pending(s)) {
		s->off = s->len = 0;
		s->broken = true;
		output_eof(fd, c);
	}
}

bool watch_done(struct jail_watch *l)
{
	struct jail_proc *jp = l->jp;

	if (!l->exited)
		return false;
	if (l->res->err != HUTCH_ERR_NONE) {
		/* Killed (timeout, overflow, cancel): what a stalled reader has
		 * not taken is dropped now, not after the drain. */
		drop_stalled(&jp->stdout_rd, &l->res->out, &l->sink_out);
		drop_stalled(&jp->stderr_rd, &l->res->errc, &l->sink_err);
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
		request_kill(l, why, NULL);
}

void watch_forward_signal(struct jail_watch *l, int sig)
{
	if (l->killing || l->exited)
		return;
	/* First signal: pass it on and give the target the grace period;
	 * a second one, or the grace running out, kills the jail. */
	if (l->kill_at == 0) {
		send_signal(l->jp, sig);
		l->kill_at = time_now_ms() + l->o.kill_grace_ms;
	} else {
		request_kill(l, HUTCH_ERR_CANCELLED, NULL);
	}
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
	while (l->o.control_fd >= 0 && read_control(l) > 0)
		;
	fd_close(&l->o.control_fd);
	proxy_free(l->proxy);
	fd_close(&l->listener_fd);
	sink_close(&l->sink_out);
	sink_close(&l->sink_err);
	free(l->notif);
	free(l->notif_resp);
	free(l);
}

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

static void read_winch(struct jail_watch *l, int fd)
{
	struct signalfd_siginfo si;

	while (read(fd, &si, sizeof(si)) == sizeof(si))
		;
	watch_tty_resize(l);
}

int supervise(struct jail_proc *jp, const struct supervise_opts *o, struct outcome *ret)
{
	struct jail_watch *l = watch_start(jp, o, ret);
	sigset_t old, old_winch;
	int sig_fd, winch_fd, r = 0;

	if (!l) {
		struct rusage ru;

		ret->exit_status_raw = jail_kill_and_reap(jp, o->kill_grace_ms, &ru);
		ret->err = HUTCH_ERR_INTERNAL;
		return -ENOMEM;
	}
	sig_fd = supervise_block_signals(&old);
	if (sig_fd < 0)
		r = sig_fd;
	winch_fd = block_winch(o, &old_winch);
	while (r == 0 && !watch_done(l)) {
		struct pollfd p[WATCH_MAX_FDS + 2];
		int n = watch_pollfds(l, p, 0), isig = n, iwinch = -1;
		int k;

		p[n++] = (struct pollfd){ .fd = sig_fd, .events = POLLIN };
		if (winch_fd >= 0)
			iwinch = n, p[n++] = (struct pollfd){ .fd = winch_fd, .events = POLLIN };
		k = poll(p, (nfds_t)n, watch_timeout_ms(l));
		if (k < 0 && errno != EINTR) {
			r = -errno;
			break;
		}
		if (k > 0 && p[isig].revents) {
			struct signalfd_siginfo si;

			if (read(sig_fd, &si, sizeof(si)) == sizeof(si))
				watch_forward_signal(l, (int)si.ssi_signo);
		}
		if (k > 0 && iwinch >= 0 && p[iwinch].revents)
			read_winch(l, winch_fd);
		watch_dispatch(l, p);
	}
	watch_finish(l);
	if (winch_fd >= 0) {
		fd_close(&winch_fd);
		sigprocmask(SIG_SETMASK, &old_winch, NULL);
	}
	if (sig_fd >= 0) {
		fd_close(&sig_fd);
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	return r;
}
