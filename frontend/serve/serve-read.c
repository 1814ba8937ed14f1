/* serve-read.c: a connection's way in (see serve.h): its socket on the
 * loop, bytes read into frames (a frame being received is charged to
 * --max-buffered from its header on), each whole frame handled, a run or
 * session request parked while no jail may start (serve_ready), the
 * idle timeout, and the end of a connection. Frontend only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "serve/serve-budget.h"
#include "serve/serve.h"

static void conn_feed(struct conn *c, const uint8_t *data, size_t n);

/* The one place bytes come off a client's socket: serve_recv
 * (serve-fds.c), which ties the descriptors passed with a frame to it and
 * reads no further than the frame's end. Bytes, 0 at the end, -EAGAIN
 * when nothing waits, -EPROTO with *ret_why set, other -errno. */
static ssize_t conn_recv(struct conn *c, uint8_t *buf, size_t cap, const char **ret_why)
{
	return serve_recv(c, buf, cap, ret_why);
}

/* A frame handled and not parked again: its descriptors are closed (a
 * started jail's helper has its own); a parked one keeps them until it
 * is handled (the connection is not read meanwhile). */
static void frame_handled(struct conn *c)
{
	if (!c->parked)
		serve_fds_close(c);
}

/* cancel: every run and session call with that id is killed (a session
 * is lost: the action's outcome is unknown); ack, or no such request. */
static void cancel(struct conn *c, uint64_t id, uint64_t target)
{
	bool found = run_cancel(c, target);

	for (struct session *se = c->sessions; se; se = se->next)
		if (se->state == SESSION_INFLIGHT && se->call_id == target) {
			/* The tombstone stays: the action's outcome is unknown. */
			watch_kill(se->w, HUTCH_ERR_CANCELLED);
			conn_fail(c, se->call_id, HUTCH_ERR_CANCELLED, NULL);
			se->state = SESSION_LOST;
			found = true;
		}
	if (found)
		conn_event(c, id, "ack", NULL);
	else
		conn_fail(c, id, HUTCH_ERR_INVALID_REQUEST, "no request in flight has that id");
}

/* The frame waits, a copy charged to the budget, and the connection is
 * not read until it is handled (conn_unpark). false: no memory. */
static bool park(struct conn *c, const uint8_t *buf, size_t len, uint64_t id)
{
	c->parked = malloc(len + 1);
	if (!c->parked)
		return false;
	memcpy(c->parked, buf, len);
	c->parked_len = len;
	c->parked_id = id;
	budget_take(&c->srv->budget, len + 1);
	conn_watch_update(c);
	return true;
}

static void handle_frame(struct conn *c, const uint8_t *buf, size_t len)
{
	struct proto_msg m;
	const char *why = NULL;

	if (proto_parse(buf, len, &m, &why) < 0) {
		/* Fail closed: one failed event with id 0, then the end. */
		conn_fail(c, 0, HUTCH_ERR_PROTOCOL_ERROR, why);
		c->dead = true;
		return;
	}
	if (run_id_in_flight(c, m.id)) {
		conn_fail(c, 0, HUTCH_ERR_PROTOCOL_ERROR, "an id already in flight");
		c->dead = true;
		proto_msg_free(&m);
		return;
	}
	if ((m.kind == MSG_RUN || m.kind == MSG_SESSION) && !c->srv->draining &&
	    !serve_ready(c->srv)) {
		if (!park(c, buf, len, m.id))
			conn_fail(c, m.id, HUTCH_ERR_INTERNAL, NULL);
		proto_msg_free(&m);
		return;
	}
	serve_log_request(&c->srv->log, &c->log, m.id, m.kind);
	switch (m.kind) {
	case MSG_RUN:
		run_start(c, &m);
		break;
	case MSG_CANCEL:
		cancel(c, m.id, m.target);
		break;
	case MSG_SESSION:
		session_call(c, &m);
		break;
	case MSG_SESSION_CLOSE:
		session_close(c, m.id, m.name);
		break;
	case MSG_PING:
		conn_event(c, m.id, "pong", NULL);
		break;
	}
	proto_msg_free(&m);
}

static void frame_uncharge(struct conn *c)
{
	budget_give(&c->srv->budget, c->rd_charged);
	c->rd_charged = 0;
}

/* When the next n bytes complete a frame's header, before the reader
 * allocates its body: the budget must hold it, or the client gets one
 * failed busy event and the end (a header alone cannot make the server
 * allocate its length). false then. */
static bool frame_charge(struct conn *c, const uint8_t *data, size_t n)
{
	struct budget *b = &c->srv->budget;
	uint8_t hdr[FRAME_HEADER_BYTES];
	size_t have = c->rd.hdr_len, len;

	if (have >= FRAME_HEADER_BYTES || have + n < FRAME_HEADER_BYTES)
		return true;
	memcpy(hdr, c->rd.hdr, have);
	memcpy(hdr + have, data, FRAME_HEADER_BYTES - have);
	if (frame_parse_header(hdr, FRAME_HEADER_BYTES, c->rd.max, &len) < 0)
		return true;	/* over --max-frame: the reader refuses it */
	if (b->used + len + 1 > b->max) {
		conn_fail(c, 0, HUTCH_ERR_BUSY, "the server's buffer budget (--max-buffered) "
			  "cannot hold this frame now");
		c->dead = true;
		return false;
	}
	c->rd_charged = len + 1;
	budget_take(b, c->rd_charged);
	return true;
}

/* Bytes off the socket, frame by frame; what follows a parked frame is
 * kept, unread by the reader, until it is handled. */
static void conn_feed(struct conn *c, const uint8_t *data, size_t n)
{
	size_t off = 0;

	while (off < n && !c->dead && !c->parked) {
		size_t used;
		enum frame_state st;

		if (!frame_charge(c, data + off, n - off))
			return;
		st = frame_reader_feed(&c->rd, data + off, n - off, &used);
		off += used;
		if (st == FRAME_OVERSIZED) {
			enum hutch_err code;
			char words[256];

			/* Not hutch framing at all, or a frame over the limit:
			 * the failed event says which, with the numbers. */
			proto_oversized_words(c->rd.hdr, c->rd.max, &code, words, sizeof(words));
			conn_fail(c, 0, code, words);
			c->dead = true;
		} else if (st == FRAME_NOMEM) {
			conn_fail(c, 0, HUTCH_ERR_INTERNAL, NULL);
			c->dead = true;
		} else if (st == FRAME_DONE) {
			size_t len;
			uint8_t *frame = frame_reader_take(&c->rd, &len);

			/* Only a whole frame counts: a client dribbling bytes
			 * of one is as idle as a silent one. */
			c->idle_since = time_now_ms();
			handle_frame(c, frame, len);
			frame_handled(c);
			free(frame);
			frame_uncharge(c);
		}
	}
	if (c->parked && off < n && !c->dead) {
		c->held_in = malloc(n - off);
		if (!c->held_in) {
			c->dead = true;
			return;
		}
		memcpy(c->held_in, data + off, n - off);
		c->held_len = n - off;
		budget_take(&c->srv->budget, c->held_len);
	}
}

/* One read: true when bytes came (more may wait). */
static bool conn_read(struct conn *c)
{
	uint8_t buf[64 << 10];
	const char *why = NULL;
	ssize_t n = conn_recv(c, buf, sizeof(buf), &why);

	if (n == -EAGAIN || n == -EINTR)
		return false;
	if (n == -EPROTO) {
		conn_fail(c, 0, HUTCH_ERR_PROTOCOL_ERROR, why);
		c->dead = true;
		return false;
	}
	if (n <= 0) {
		c->dead = true; /* the client is gone: everything of it dies */
		return false;
	}
	conn_feed(c, buf, (size_t)n);
	return true;
}

void conn_read_pending(struct conn *c)
{
	for (int i = 0; i < 16 && c->fd >= 0 && !c->dead && !c->parked; i++)
		if (!conn_read(c))
			return;
}

static void drop_parked(struct conn *c)
{
	if (c->parked)
		budget_give(&c->srv->budget, c->parked_len + 1);
	if (c->held_in)
		budget_give(&c->srv->budget, c->held_len);
	free(c->parked);
	free(c->held_in);
	c->parked = c->held_in = NULL;
	c->parked_len = c->held_len = 0;
}

void conn_unpark(struct conn *c)
{
	uint8_t *frame = c->parked, *rest = c->held_in;
	size_t len = c->parked_len, rest_len = c->held_len;

	if (!frame)
		return;
	c->parked = c->held_in = NULL;
	c->parked_len = c->held_len = 0;
	handle_frame(c, frame, len);	/* may park it again */
	frame_handled(c);
	budget_give(&c->srv->budget, len + 1);
	free(frame);
	if (rest) {
		budget_give(&c->srv->budget, rest_len);
		conn_feed(c, rest, rest_len);
		free(rest);
	}
	conn_watch_update(c);
}

static void conn_ready(struct evwatch *w, uint32_t events, void *data)
{
	struct conn *c = data;

	(void)w;
	if (events & EPOLLOUT)
		conn_flush(c);
	if (c->fd >= 0 && !c->parked && (events & (EPOLLIN | EPOLLHUP | EPOLLERR)))
		conn_read(c);
	conn_watch_update(c);
}

/* timed: a client of a listening socket, which the idle timeout and the
 * per-user bound apply to (a --fd peer is the daemon that started us).
 * NULL when out of memory (fd closed). */
struct conn *conn_new(struct srv *s, int fd, bool timed, uid_t uid)
{
	struct conn *c = calloc(1, sizeof(*c));

	if (c)
		c->ev = evwatch_add(s->loop, fd, EPOLLIN, conn_ready, NULL, c);
	if (!c || !c->ev) {
		free(c);
		close(fd);
		return NULL;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	c->fd = fd;
	c->srv = s;
	c->timed = timed;
	c->uid = uid;
	c->idle_since = time_now_ms();
	c->rd.max = s->max_frame;
	c->next = s->conns;
	s->conns = c;
	s->n_conns++;
	serve_log_conn_open(&s->log, &c->log, fd);
	return c;
}

/* Everything this connection started dies; the jails get the grace
 * period (their watches escalate to SIGKILL), then are reaped. */
static void conn_kill_all(struct conn *c)
{
	runs_kill(c, HUTCH_ERR_CANCELLED);
	while (c->sessions) {
		struct session *se = c->sessions;

		c->sessions = se->next;
		session_destroy(se);
		c->n_sessions--;
	}
}

/* A dead connection is freed once its jails are reaped; its socket is
 * closed at once (after a last flush of what is queued). */
void conn_sweep(struct srv *s)
{
	struct conn **pp = &s->conns;

	while (*pp) {
		struct conn *c = *pp;

		if (c->dead && c->fd >= 0) {
			conn_kill_all(c);
			conn_flush(c);
			evwatch_del(c->ev);	/* before close: the number is reused */
			c->ev = NULL;
			/* Unread input would reset the peer before it read
			 * its failed event (serve_discard_input). */
			serve_discard_input(c->fd);
			close(c->fd);
			c->fd = -1;
			drop_parked(c);
			serve_fds_close(c); /* a frame's that will never be handled */
			s->n_conns--;
		}
		if (c->fd < 0 && !c->runs && !c->sessions) {
			*pp = c->next;
			serve_log_conn_close(&s->log, &c->log);
			frame_reader_reset(&c->rd);
			frame_uncharge(c);
			conn_drop_queue(c);
			free(c);
			continue;
		}
		pp = &c->next;
	}
}

bool conn_hung_up(struct conn *c)
{
	uint8_t b;

	return recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

/* The peer's uid, or (uid_t)-1 when the kernel cannot say: such a peer
 * shares one bound with every other unknown one. */
uid_t conn_peer_uid(int fd)
{
	struct ucred cr;
	socklen_t l = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &l) < 0 || l != sizeof(cr))
		return (uid_t)-1;
	return cr.uid;
}

/* A socket client with nothing in flight and no whole frame in for
 * --idle-timeout is closed (a half-sent frame does not count), with one
 * failed timeout event. Adds the next idle deadline to *next. */
void conn_idle_check(struct srv *s, uint64_t now, uint64_t *next)
{
	for (struct conn *c = s->conns; c && s->idle_ms; c = c->next) {
		bool waiting = c->runs != NULL || c->parked != NULL;

		for (struct session *se = c->sessions; se; se = se->next)
			waiting |= se->state == SESSION_INFLIGHT;
		if (!c->timed || c->dead || c->fd < 0)
			continue;
		if (waiting) {
			c->idle_since = now; /* the clock starts when the last answer is out */
			continue;
		}
		if (now - c->idle_since >= s->idle_ms) {
			conn_fail(c, 0, HUTCH_ERR_TIMEOUT, "the connection was idle (--idle-timeout)");
			c->dead = true;
		} else if (time_add_ms(c->idle_since, s->idle_ms) < *next) {
			*next = time_add_ms(c->idle_since, s->idle_ms);
		}
	}
}
