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
