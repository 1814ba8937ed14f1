/* control.c: pid 1 hands descriptors to the frontend over the control
 * socket (HUTCH_CONTROL_FD): the work dir's tmpfs (files are collected
 * from it after the jail is gone) and the seccomp listener (denied calls
 * are reported by name). One tagged byte with one fd each.
 * Phase 2: async-signal-safe. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "helper.h"
#include "hutch-abi.h"

void control_send_fd(int fd, char tag, enum hutch_stage stage, uint32_t item)
{
	struct iovec iov = { .iov_base = &tag, .iov_len = 1 };
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} u;
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
	if (sendmsg(HUTCH_CONTROL_FD, &msg, MSG_NOSIGNAL) != 1)
		fail(stage, item, errno ? errno : EPIPE);
}
