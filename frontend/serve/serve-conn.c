/* serve-conn.c: a connection's way out (see serve.h): frames queued
 * against the output budget and sent without blocking, and the events and
 * failures every part of serve sends through them. Frontend only. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "serve/serve-budget.h"
#include "serve/serve.h"

/* Readable unless a request of it is parked or it is closing; writable
 * while frames are queued. */
void conn_watch_update(struct conn *c)
{
	uint32_t ev = 0;

	if (!c->ev)
		return;
	if (!c->parked && !c->dead)
		ev |= EPOLLIN;
	if (c->out_off < c->out_len)
		ev |= EPOLLOUT;
	if (evwatch_set_events(c->ev, ev) < 0)
		c->dead = true;	/* unwatched, it would never be served */
}

/* Queued frames count against the output budget until they are sent. */
void conn_drop_queue(struct conn *c)
{
	budget_give(&c->srv->budget, c->out_len - c->out_off);
	free(c->out);
	c->out = NULL;
	c->out_off = c->out_len = 0;
}

void conn_flush(struct conn *c)
{
	while (c->fd >= 0 && c->out_off < c->out_len) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;	/* EPOLLOUT says when it takes more */
		if (n < 0) {
			c->dead = true;
			conn_drop_queue(c);
			break;
		}
		c->out_off += (size_t)n;
		budget_give(&c->srv->budget, (uint64_t)n);
	}
	/* All sent: a large result's buffer goes now, not with the next one. */
	if (c->out_off == c->out_len)
		conn_drop_queue(c);
	conn_watch_update(c);
}

void conn_send(struct conn *c, uint8_t *frame, size_t len)
{
	size_t pending = c->out_len - c->out_off;
	uint8_t *nb;

	if (!frame)
		return;
	if (c->fd < 0) {
		free(frame);
		return;
	}
	/* A client that lets output pile up is cut off, not buffered for:
	 * one event may exceed the bound only when nothing else waits. */
	if (pending && pending + len > c->srv->max_out) {
		free(frame);
		c->dead = true;
		return;
	}
	budget_take(&c->srv->budget, len);
	if (!pending) {
		/* Nothing waits: the frame becomes the queue, no second copy. */
		free(c->out);
		c->out = frame;
		c->out_off = 0;
		c->out_len = len;
		conn_flush(c);
		return;
	}
	if (c->out_off) {
		memmove(c->out, c->out + c->out_off, pending);
		c->out_off = 0;
		c->out_len = pending;
	}
	nb = realloc(c->out, c->out_len + len);
	if (!nb) {
		free(frame);
		budget_give(&c->srv->budget, len);
		c->dead = true;
		return;
	}
	c->out = nb;
	memcpy(c->out + c->out_len, frame, len);
	c->out_len += len;
	free(frame);
	conn_flush(c);
}

void conn_fail_at(struct conn *c, uint64_t id, enum hutch_err code, const char *reason,
		  const char *pointer)
{
	size_t len = 0;
	uint8_t *frame = proto_failed_at(id, code, reason, pointer, &len);

	serve_log_failed(&c->srv->log, &c->log, id, code);
	/* Every request gets its final event: without one, the end. */
	if (!frame) {
		c->dead = true;
		return;
	}
	conn_send(c, frame, len);
}

void conn_fail(struct conn *c, uint64_t id, enum hutch_err code, const char *reason)
{
	conn_fail_at(c, id, code, reason, NULL);
}

void conn_event(struct conn *c, uint64_t id, const char *kind, struct json_object *payload)
{
	size_t len = 0;
	uint8_t *frame = NULL;
	int r;

	serve_log_event(&c->srv->log, &c->log, id, kind, payload);
	r = proto_render(id, kind, payload, &frame, &len);

	if (r == -EMSGSIZE)
		conn_fail(c, id, HUTCH_ERR_OUTPUT_OVERFLOW, "the event is too large to send");
	else if (r < 0)
		conn_fail(c, id, HUTCH_ERR_INTERNAL, "the event could not be built");
	else
		conn_send(c, frame, len);
}
