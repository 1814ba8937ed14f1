/* control-recv.c: see control-recv.h. A descriptor comes as one tag byte
 * with SCM_RIGHTS (shared/fd-pass.c sends it); the timings record as its
 * fixed-size bytes alone. SOCK_SEQPACKET keeps each message whole, and a
 * longer one shows as MSG_TRUNC. Frontend only. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "run/control-recv.h"

union one_fd {
	struct cmsghdr h;
	char buf[CMSG_SPACE(sizeof(int))];
};

/* The descriptor a message carried, or -1. */
static int take_fd(struct msghdr *msg)
{
	struct cmsghdr *c = CMSG_FIRSTHDR(msg);
	int fd;

	if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
	    c->cmsg_len != CMSG_LEN(sizeof(int)))
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

int control_recv(int sock, char *ret_tag, int *ret_fd, struct jail_timings *t)
{
	unsigned char buf[sizeof(struct hutch_timings)];
	struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
	union one_fd u;
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			      .msg_controllen = sizeof(u.buf) };
	ssize_t n;
	int fd;

	memset(&u, 0, sizeof(u));
	n = recvmsg(sock, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return -EAGAIN;
	if (n <= 0)
		return -EPIPE;
	fd = take_fd(&msg);
	if (n == 1 && fd >= 0 && !(msg.msg_flags & (MSG_CTRUNC | MSG_TRUNC))) {
		*ret_tag = (char)buf[0];
		*ret_fd = fd;
		return 0;
	}
	if (fd >= 0)
		close(fd);
	if (fd < 0 && !(msg.msg_flags & (MSG_CTRUNC | MSG_TRUNC)) &&
	    timings_take_record(t, buf, (size_t)n) == 0) {
		*ret_fd = -1;
		return 0;
	}
	return -EPIPE;
}
