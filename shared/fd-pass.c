/* fd-pass.c: see fd-pass.h. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fd-pass.h"

union fd_cmsg {
	struct cmsghdr h;
	char buf[CMSG_SPACE(sizeof(int))];
};

int fdpass_send(int sock, char tag, int fd)
{
	struct iovec iov = { .iov_base = &tag, .iov_len = 1 };
	union fd_cmsg u;
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			      .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c;

	memset(&u, 0, sizeof(u));
	c = CMSG_FIRSTHDR(&msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	errno = 0;
	if (sendmsg(sock, &msg, MSG_NOSIGNAL) != 1)
		return errno ? -errno : -EPIPE;
	return 0;
}

int fdpass_recv(int sock, char *ret_tag, int *ret_fd)
{
	char tag;
	struct iovec iov = { .iov_base = &tag, .iov_len = 1 };
	union fd_cmsg u;
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			      .msg_controllen = sizeof(u.buf) };
	struct cmsghdr *c;
	ssize_t n = recvmsg(sock, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return -EAGAIN;
	c = n == 1 ? CMSG_FIRSTHDR(&msg) : NULL;
	if (!c || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS ||
	    c->cmsg_len != CMSG_LEN(sizeof(int)) || (msg.msg_flags & MSG_CTRUNC))
		return -EPIPE;
	memcpy(ret_fd, CMSG_DATA(c), sizeof(int));
	*ret_tag = tag;
	return 0;
}

/* Room for FDPASS_MAX descriptors in one message. */
union fd_cmsg_many {
	struct cmsghdr h;
	char buf[CMSG_SPACE(sizeof(int) * FDPASS_MAX)];
};

int fdpass_send_msg(int sock, const void *data, size_t len, const int *fds, size_t n_fds)
{
	struct iovec iov = { .iov_base = (void *)data, .iov_len = len };
	union fd_cmsg_many u;
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (n_fds > FDPASS_MAX)
		return -EINVAL;
	memset(&u, 0, sizeof(u));
	if (n_fds) {
		msg.msg_control = u.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * n_fds);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * n_fds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * n_fds);
	}
	for (;;) {
		ssize_t r = sendmsg(sock, &msg, MSG_NOSIGNAL);

		if (r == (ssize_t)len)
			return 0;
		if (r < 0 && errno == EINTR)
			continue;
		return r < 0 ? -errno : -EPIPE;
	}
}

ssize_t fdpass_recv_msg(int sock, void *data, size_t len, int *ret_fds, size_t *io_n_fds)
{
	struct iovec iov = { .iov_base = data, .iov_len = len };
	union fd_cmsg_many u;
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf,
			      .msg_controllen = sizeof(u.buf) };
	size_t max = *io_n_fds, n_fds = 0;
	ssize_t n;

	*io_n_fds = 0;
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		size_t k;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (n_fds < max && n_fds < FDPASS_MAX)
				ret_fds[n_fds++] = fd;
			else
				close(fd);	/* more than asked for: not ours to keep */
		}
	}
	*io_n_fds = n_fds;
	if ((msg.msg_flags & (MSG_CTRUNC | MSG_TRUNC)) && n >= 0) {
		for (size_t i = 0; i < n_fds; i++)
			close(ret_fds[i]);
		*io_n_fds = 0;
		return -EMSGSIZE;
	}
	return n;
}
