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
	uint64_t *count;
};

static bool again(ssize_t n)
{
	return n < 0 && (errno == EAGAIN || errno == EINTR);
}

/* One step of the buffer: send what is in it. -1: over. */
static int step_buffer(const struct lane *l, bool *moved)
{
	ssize_t n = send(l->dst, l->b->p + l->b->off, l->b->len, MSG_NOSIGNAL | MSG_DONTWAIT);

	if (n < 0 && !again(n))
		return -1;
	if (n > 0) {
		l->b->off += (size_t)n;
		l->b->len -= (size_t)n;
		*moved = true;
	}
	return 0;
}

/* One step of the pipe: fill it from src, drain it to dst. */
static int step_splice(struct conn *c, const struct lane *l, bool *moved)
{
	const unsigned fl = SPLICE_F_MOVE | SPLICE_F_NONBLOCK;

	if (*l->in_pipe < c->pipe_cap && !*l->eof) {
		ssize_t n = splice(l->src, NULL, l->pipe[1], NULL, c->pipe_cap - *l->in_pipe, fl);

		if (n == 0)
			*l->eof = true;
		else if (n < 0 && !again(n))
			return -1;
		else if (n > 0) {
			*l->in_pipe += (size_t)n;
			*l->count += (uint64_t)n;
			*moved = true;
			if (!proxy_count(c->px, (uint64_t)n))
				return -1;
		}
	}
	if (*l->in_pipe > 0) {
		ssize_t n = splice(l->pipe[0], NULL, l->dst, NULL, *l->in_pipe, fl);

		if (n < 0 && !again(n))
			return -1;
		if (n > 0) {
			*l->in_pipe -= (size_t)n;
			*moved = true;
		}
	}
	return 0;
}

/* Without pipes: read into the buffer when it is empty. */
static int step_read(struct conn *c, const struct lane *l, bool *moved)
{
	ssize_t n = read(l->src, l->b->p, l->b->cap);

	if (n == 0)
		*l->eof = true;
	else if (n < 0 && !again(n))
		return -1;
	else if (n > 0) {
		l->b->off = 0;
		l->b->len = (size_t)n;
		*l->count += (uint64_t)n;
		*moved = true;
		if (!proxy_count(c->px, (uint64_t)n))
			return -1;
	}
	return 0;
}

static int pump(struct conn *c, const struct lane *l)
{
	for (int turn = 0; turn < TURNS; turn++) {
		bool moved = false;
		int r;

		if (l->b->len > 0)
			r = step_buffer(l, &moved);
		else if (l->pipe[0] >= 0)
			r = step_splice(c, l, &moved);
		else if (!*l->eof)
			r = step_read(c, l, &moved);
		else
			r = 0;
		if (r < 0)
			return -1;
		if (!moved)
			break;
	}
	return 0;
}

static bool pending(const struct buf *b, size_t in_pipe)
{
	return b->len > 0 || in_pipe > 0;
}

/* Read interest: its source is open and there is room for more. */
static bool wants_more(const struct conn *c, const struct buf *b, const int *pipe,
		       size_t in_pipe, bool eof)
{
	if (eof || b->len > 0)
		return false;
	return pipe[0] >= 0 ? in_pipe < c->pipe_cap : true;
}

void pconn_relay(struct conn *c, uint64_t now)
{
	struct lane up = { c->cfd, c->ufd, &c->up, c->up_pipe, &c->up_in_pipe, &c->c_eof,
			   &c->log.bytes_out };
	struct lane down = { c->ufd, c->cfd, &c->down, c->down_pipe, &c->down_in_pipe, &c->u_eof,
			     &c->log.bytes_in };
	uint64_t before = c->log.bytes_out + c->log.bytes_in;
	uint32_t cev, uev;

	if (pump(c, &up) < 0 || pump(c, &down) < 0) {
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
	cev = (wants_more(c, &c->up, c->up_pipe, c->up_in_pipe, c->c_eof) ? EPOLLIN : 0) |
	      (pending(&c->down, c->down_in_pipe) ? EPOLLOUT : 0);
	uev = (wants_more(c, &c->down, c->down_pipe, c->down_in_pipe, c->u_eof) ? EPOLLIN : 0) |
	      (pending(&c->up, c->up_in_pipe) ? EPOLLOUT : 0);
	proxy_watch(c->px, c->cfd, &c->cend, &c->cev, cev);
	proxy_watch(c->px, c->ufd, &c->uend, &c->uev, uev);
}
