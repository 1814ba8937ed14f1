/* capture.c: a run's stdout and stderr (see watch.h): counted against
 * their caps, kept for the result document (with rendered caps, the cap
 * bounds the rendering) or passed through to a sink without copying when
 * splice can, and frame mode's one frame checked as it arrives.
 * Frontend only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fd-util.h"
#include "frame-codec.h"
#include "time-util.h"
#include "doc/result.h"
#include "run/memory-limit.h"
#include "run/watch.h"

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

/* Frame mode: the header is checked against the cap before anything is
 * kept past it, and a byte after the frame is an overflow. */
static void frame_check(struct jail_watch *l)
{
	struct capture *c = &l->res->out;

	if (!l->frame_known && c->len >= FRAME_HEADER_BYTES) {
		l->frame_len = frame_decode_header(c->buf);
		l->frame_known = true;
		if (l->frame_len > l->o.stdout_bytes)
			watch_request_kill(l, HUTCH_ERR_FRAME_OVERSIZED, "stdout_bytes");
	}
	if (l->frame_known && c->bytes > FRAME_HEADER_BYTES + l->frame_len)
		watch_request_kill(l, HUTCH_ERR_OUTPUT_OVERFLOW, "stdout_bytes");
}

static void output_seen(struct jail_watch *l)
{
	if (l->o.idle_ms)
		l->idle_deadline = time_add_ms(time_now_ms(), l->o.idle_ms);
}

static void output_eof(struct jail_watch *l, int *fd, struct capture *c)
{
	watch_close(l, fd);
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
		output_eof(l, fd, c);
	} else if (errno == EAGAIN) {
		s->waiting = true; /* the sink is full (POLLOUT says when not) */
	} else if (errno != EINTR) {
		s->no_splice = true; /* a terminal, an O_APPEND file, a gone reader */
		return false;
	}
	return true;
}

void capture_read(struct jail_watch *l, int *fd, struct capture *c, struct sink *s,
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
		output_eof(l, fd, c);
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
		watch_request_kill(l, HUTCH_ERR_OUTPUT_OVERFLOW, limit_name);
	if (l->o.frame_mode && c == &l->res->out)
		frame_check(l);
}

void capture_drop_stalled(struct jail_watch *l, int *fd, struct capture *c, struct sink *s)
{
	if (*fd >= 0 && sink_pending(s)) {
		s->off = s->len = 0;
		s->broken = true;
		output_eof(l, fd, c);
	}
}
