/* proxy-relay.c: a connected proxy connection's bytes, both ways. What
 * the proxy says itself (the rewritten head, the CONNECT answer) goes
 * first from its buffer; then each direction is spliced socket to pipe to
 * socket, so the payload never crosses into our memory: two copies fewer
 * per byte than read and write, which is what keeps a download through
 * the proxy near a direct one. Everything non-blocking; counted; the
 * run's byte cap checked on every move. Frontend only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "run/proxy-conn.h"

#define PIPE_WANT (1u << 20)
#define TURNS 8

void pconn_relay_start(struct conn *c)
{
	int cap;

	if (pipe2(c->up_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return;
	if (pipe2(c->down_pipe, O_CLOEXEC | O_NONBLOCK) < 0) {
		close(c->up_pipe[0]);
		close(c->up_pipe[1]);
		c->up_pipe[0] = c->up_pipe[1] = -1;
		return;
	}
	/* A larger pipe, where the user's pipe budget allows: fewer turns. */
	(void)fcntl(c->up_pipe[1], F_SETPIPE_SZ, PIPE_WANT);
	(void)fcntl(c->down_pipe[1], F_SETPIPE_SZ, PIPE_WANT);
	cap = fcntl(c->up_pipe[1], F_GETPIPE_SZ);
	c->pipe_cap = cap > 0 ? (size_t)cap : 65536;
	cap = fcntl(c->down_pipe[1], F_GETPIPE_SZ);
	if (cap > 0 && (size_t)cap < c->pipe_cap)
		c->pipe_cap = (size_t)cap;
}

struct lane {
	int src, dst;
	struct buf *b;
	int *pipe;
	size_t *in_pipe;
	bool *eof;
	bool *dst_full;			/* the last send to dst was short */
	uint64_t *count;
};

/* What the steps of one pump learnt. A short move means its socket has
 * no more for now (a read) or no room for now (a send): trying again
 * this turn would only fail with EAGAIN, so the lane leaves it to epoll,
 * which reports the socket again (level-triggered) once it is ready. */
struct progress {
	bool moved, src_dry;
};

static bool again(ssize_t n)
{
	return n < 0 && (errno == EAGAIN || errno == EINTR);
}

/* One step of the buffer: send what is in it. -1: over. */
static int step_buffer(const struct lane *l, struct progress *pr)
{
	size_t want = l->b->len;
	ssize_t n = send(l->dst, l->b->p + l->b->off, want, MSG_NOSIGNAL | MSG_DONTWAIT);

	if (n < 0 && !again(n))
		return -1;
	*l->dst_full = n < (ssize_t)want;
	if (n > 0) {
		l->b->off += (size_t)n;
		l->b->len -= (size_t)n;
		pr->moved = true;
	}
	return 0;
}

/* One step of the pipe: fill it from src, drain it to dst; neither when
 * this pump already saw it would not move. */
static int step_splice(struct conn *c, const struct lane *l, struct progress *pr)
{
	const unsigned fl = SPLICE_F_MOVE | SPLICE_F_NONBLOCK;

	if (!pr->src_dry && !*l->eof && *l->in_pipe < c->pipe_cap) {
		size_t want = c->pipe_cap - *l->in_pipe;
		ssize_t n = splice(l->src, NULL, l->pipe[1], NULL, want, fl);

		if (n == 0)
			*l->eof = true;
		else if (n < 0 && !again(n))
			return -1;
		pr->src_dry = n < (ssize_t)want;
		if (n > 0) {
			*l->in_pipe += (size_t)n;
			*l->count += (uint64_t)n;
			pr->moved = true;
			if (!proxy_count(c->px, (uint64_t)n))
				return -1;
		}
	}
	if (*l->in_pipe > 0) {
		size_t want = *l->in_pipe;
		ssize_t n = splice(l->pipe[0], NULL, l->dst, NULL, want, fl);

		if (n < 0 && !again(n))
			return -1;
		*l->dst_full = n < (ssize_t)want;
		if (n > 0) {
			*l->in_pipe -= (size_t)n;
			pr->moved = true;
		}
	}
	return 0;
}

/* Without pipes: read into the buffer when it is empty. */
static int step_read(struct conn *c, const struct lane *l, struct progress *pr)
{
	ssize_t n = read(l->src, l->b->p, l->b->cap);

	if (n == 0)
		*l->eof = true;
	else if (n < 0 && !again(n))
		return -1;
	pr->src_dry = n < (ssize_t)l->b->cap;
	if (n > 0) {
		l->b->off = 0;
		l->b->len = (size_t)n;
		*l->count += (uint64_t)n;
		pr->moved = true;
		if (!proxy_count(c->px, (uint64_t)n))
			return -1;
	}
	return 0;
}

static bool pending(const struct buf *b, size_t in_pipe)
{
	return b->len > 0 || in_pipe > 0;
}

/* Until nothing moves, the source has no more, or the destination no
 * room: each try past that point would be a system call for EAGAIN. */
static int pump(struct conn *c, const struct lane *l)
{
	struct progress pr = { 0 };

	for (int turn = 0; turn < TURNS; turn++) {
		int r;

		pr.moved = false;
		if (l->b->len > 0)
			r = step_buffer(l, &pr);
		else if (l->pipe[0] >= 0)
			r = step_splice(c, l, &pr);
		else if (!*l->eof && !pr.src_dry)
			r = step_read(c, l, &pr);
		else
			r = 0;
		if (r < 0)
			return -1;
		if (!pr.moved || *l->dst_full)
			break;
		if ((pr.src_dry || *l->eof) && !pending(l->b, *l->in_pipe))
			break;
	}
	return 0;
}

/* Read interest: its source is open and there is room for more, and
 * what it sent last is not still waiting for room at its destination: a
 * lane whose receiver does not read waits for that receiver's EPOLLOUT,
 * not on its sender's EPOLLIN. (A pipe runs out of slots before bytes
 * when segments are small; reading would then only say EAGAIN, level-
 * triggered, on every turn.) */
static bool wants_more(const struct conn *c, const struct lane *l)
{
	if (*l->eof || l->b->len > 0 || *l->dst_full)
		return false;
	return l->pipe[0] >= 0 ? *l->in_pipe < c->pipe_cap : true;
}

unsigned pconn_relay_lanes(bool upstream, uint32_t events)
{
	unsigned in = upstream ? RELAY_DOWN : RELAY_UP;
	unsigned out = upstream ? RELAY_UP : RELAY_DOWN;

	if (events & (EPOLLHUP | EPOLLERR | EPOLLRDHUP))
		return RELAY_UP | RELAY_DOWN;
	return (events & EPOLLIN ? in : 0) | (events & EPOLLOUT ? out : 0);
}

void pconn_relay(struct conn *c, unsigned lanes, uint64_t now)
{
	struct lane up = { c->cfd, c->ufd, &c->up, c->up_pipe, &c->up_in_pipe, &c->c_eof,
			   &c->up_full, &c->log.bytes_out };
	struct lane down = { c->ufd, c->cfd, &c->down, c->down_pipe, &c->down_in_pipe, &c->u_eof,
			     &c->down_full, &c->log.bytes_in };
	uint64_t before = c->log.bytes_out + c->log.bytes_in;
	uint32_t cev, uev;

	/* Only the lanes this event concerns: the other's sockets have
	 * nothing new, and epoll says so when they have. */
	if (((lanes & RELAY_UP) && pump(c, &up) < 0) ||
	    ((lanes & RELAY_DOWN) && pump(c, &down) < 0)) {
		pconn_close(c, c->px->log->capped ? "max_bytes" : NULL, now);
		return;
	}
	if (c->log.bytes_out + c->log.bytes_in != before)
		c->deadline = now + c->px->conf->idle_ms;
	if (c->c_eof && !pending(&c->up, c->up_in_pipe) && !c->u_shut) {
		shutdown(c->ufd, SHUT_WR);
		c->u_shut = true;
	}
	/* The server is done and all it said is delivered: so are we. */
	if (c->u_eof && !pending(&c->down, c->down_in_pipe)) {
		pconn_close(c, NULL, now);
		return;
	}
	cev = (wants_more(c, &up) ? EPOLLIN : 0) | (pending(&c->down, c->down_in_pipe) ? EPOLLOUT : 0);
	uev = (wants_more(c, &down) ? EPOLLIN : 0) | (pending(&c->up, c->up_in_pipe) ? EPOLLOUT : 0);
	proxy_watch(c->px, c->cfd, &c->cend, &c->cev, cev);
	proxy_watch(c->px, c->ufd, &c->uend, &c->uev, uev);
}
