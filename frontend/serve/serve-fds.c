/* serve-fds.c: descriptors passed with request frames (see serve.h). A
 * stream socket merges writes, so which byte a descriptor came with is
 * known only by reading no further than
 * the kernel keeps them apart: the first byte of a frame is read alone
 * (the descriptors sent with it come with that one byte, even when its
 * sendmsg carried more), the rest of the header next, then the body up
 * to the frame's end; descriptors on any of those later reads were sent
 * with a later byte. Frontend only. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "frame-codec.h"
#include "serve/serve.h"

/* Received descriptors held at once, server-wide: a quarter of our open
 * file limit, so clients that send them and stall cannot take the
 * descriptors runs need. */
static size_t fds_budget(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return 1024;
	return rl.rlim_cur / 4 > SERVE_FDS_MAX ? (size_t)(rl.rlim_cur / 4) : SERVE_FDS_MAX;
}

/* How many bytes of the current frame come next as one piece: its first
 * byte alone, the rest of its header, or the rest of its body. */
static size_t next_piece(size_t hdr_len, size_t body_left)
{
	if (hdr_len == 0)
		return 1;
	if (hdr_len < FRAME_HEADER_BYTES)
		return FRAME_HEADER_BYTES - hdr_len;
	return body_left;
}

/* Take the descriptors of one recvmsg: they are c's frame's when this
 * read began the frame; else, or beyond the bound or the budget, -EPROTO. */
static int take_fds(struct conn *c, struct msghdr *msg, bool first_byte, const char **ret_why)
{
	struct srv *s = c->srv;
	int r = 0;

	for (struct cmsghdr *cm = CMSG_FIRSTHDR(msg); cm; cm = CMSG_NXTHDR(msg, cm)) {
		size_t k;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			if (r == 0 && !first_byte) {
				*ret_why = "descriptors came with a byte other than a frame's first";
				r = -EPROTO;
			} else if (r == 0 && (c->fds.n >= SERVE_FDS_MAX ||
					      s->passed_fds >= fds_budget())) {
				*ret_why = c->fds.n >= SERVE_FDS_MAX
						   ? "more than 16 descriptors with one frame"
						   : "the server holds too many passed descriptors";
				r = -EPROTO;
			}
			if (r < 0) {
				close(fd);
				continue;
			}
			c->fds.fd[c->fds.n++] = fd;
			s->passed_fds++;
		}
	}
	if (r == 0 && (msg->msg_flags & MSG_CTRUNC)) {
		*ret_why = "more than 16 descriptors with one frame";
		r = -EPROTO;
	}
	return r;
}

/* One recvmsg of at most want bytes, descriptors taken. */
static ssize_t recv_piece(struct conn *c, uint8_t *buf, size_t want, bool first_byte,
			  const char **ret_why)
{
	union {
		struct cmsghdr h;
		/* room for one more than allowed, so that one more shows */
		char buf[CMSG_SPACE(sizeof(int) * (SERVE_FDS_MAX + 1))];
	} u;
	struct iovec iov = { .iov_base = buf, .iov_len = want };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			      .msg_controllen = sizeof(u.buf) };
	ssize_t n;
	int r;

	do
		n = recvmsg(c->fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	r = take_fds(c, &msg, first_byte, ret_why);
	return r < 0 ? r : n;
}

ssize_t serve_recv(struct conn *c, uint8_t *buf, size_t cap, const char **ret_why)
{
	uint8_t hdr[FRAME_HEADER_BYTES];
	size_t hdr_len = c->rd.hdr_len, body_left = 0, total = 0;

	memcpy(hdr, c->rd.hdr, hdr_len);
	if (c->rd.buf)
		body_left = c->rd.want - c->rd.have;
	while (total < cap) {
		size_t want = next_piece(hdr_len, body_left);
		ssize_t n;

		if (want > cap - total)
			want = cap - total;
		n = recv_piece(c, buf + total, want, hdr_len == 0, ret_why);
		if (n == -EPROTO || (n <= 0 && total == 0))
			return n;
		if (n <= 0)
			break;
		total += (size_t)n;
		if (hdr_len < FRAME_HEADER_BYTES) {
			size_t len;

			memcpy(hdr + hdr_len, buf + total - (size_t)n, (size_t)n);
			hdr_len += (size_t)n;
			if (hdr_len < FRAME_HEADER_BYTES)
				continue;
			/* Oversized: the frame reader says so on these bytes. */
			if (frame_parse_header(hdr, hdr_len, c->rd.max, &len) < 0 || len == 0)
				break;
			body_left = len;
		} else {
			body_left -= (size_t)n;
			if (body_left == 0)
				break; /* the frame's end: the next one's bytes wait */
		}
	}
	return (ssize_t)total;
}

const struct req_origin *serve_origin(struct conn *c)
{
	struct ucred cr;
	socklen_t l = sizeof(cr);

	/* Asked now, not taken from accept: a --fd peer has a uid too, and a
	 * descriptor's owner rule must never mistake it for root. */
	if (getsockopt(c->fd, SOL_SOCKET, SO_PEERCRED, &cr, &l) < 0 || l != sizeof(cr))
		cr.uid = (uid_t)-1;
	c->origin = (struct req_origin){ .fds = c->fds.fd, .n_fds = c->fds.n,
					 .path_binds_refused = !c->srv->allow_path_binds,
					 .peer_uid = cr.uid };
	return &c->origin;
}

void serve_fds_close(struct conn *c)
{
	for (size_t i = 0; i < c->fds.n; i++) {
		close(c->fds.fd[i]);
		c->srv->passed_fds--;
	}
	c->fds.n = 0;
}

void serve_discard_input(int fd)
{
	uint8_t buf[16 << 10];

	/* recv without a control buffer: the kernel closes any descriptor
	 * that came along (MSG_CTRUNC), none reaches us. */
	for (int i = 0; i < 16; i++)
		if (recv(fd, buf, sizeof(buf), MSG_DONTWAIT) <= 0)
			break;
}
