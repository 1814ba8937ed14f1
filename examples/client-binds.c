/* client-binds.c: hutch-client's binds by descriptor (client-binds.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>

#include "client-binds.h"
#include "fd-util.h"
#include "frame-codec.h"

int client_binds_add(struct client_binds *cb, const char *opt, const char *arg)
{
	const char *colon = strchr(arg, ':');
	char host[4096];
	struct stat st;
	bool rw = strcmp(opt, "--bind-rw") == 0, overlay = strcmp(opt, "--overlay") == 0;
	int fd;

	if (!colon || colon == arg || colon[1] != '/' || (size_t)(colon - arg) >= sizeof(host)) {
		fprintf(stderr, "hutch-client: %s: %s: give HOST:JAIL (JAIL absolute)\n", opt, arg);
		return -1;
	}
	if (cb->n >= CLIENT_BINDS_MAX) {
		fprintf(stderr, "hutch-client: %s: more than %d binds; at most %d\n", opt,
			CLIENT_BINDS_MAX, CLIENT_BINDS_MAX);
		return -1;
	}
	memcpy(host, arg, (size_t)(colon - arg));
	host[colon - arg] = '\0';
	fd = open(host, (rw && stat(host, &st) == 0 && !S_ISDIR(st.st_mode) ? O_RDWR : O_RDONLY) |
				(overlay ? O_DIRECTORY : 0) | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		fprintf(stderr, "hutch-client: %s: %s: %s\n", opt, host, strerror(errno));
		return -1;
	}
	cb->b[cb->n].jail = colon + 1;
	cb->b[cb->n].mode = overlay ? "overlay" : rw ? "rw" : "ro";
	cb->b[cb->n].fd = fd;
	cb->n++;
	return 0;
}

int client_binds_json(struct buf *b, const struct client_binds *cb)
{
	char idx[48];

	if (cb->n == 0)
		return 0;
	buf_puts(b, ",\"mounts\":[");
	for (int k = 0; k < cb->n; k++) {
		snprintf(idx, sizeof(idx), "%s{\"source_fd\":%d,\"target\":", k ? "," : "", k);
		buf_puts(b, idx);
		if (buf_json_string(b, cb->b[k].jail) < 0)
			return -EILSEQ;
		buf_puts(b, ",\"mode\":\"");
		buf_puts(b, cb->b[k].mode);
		buf_puts(b, "\"}");
	}
	buf_puts(b, "]");
	return 0;
}

/* The descriptors as SCM_RIGHTS on msg, in u's room. */
static void attach_fds(struct msghdr *msg, char *room, const struct client_binds *cb)
{
	struct cmsghdr *c;

	msg->msg_control = room;
	msg->msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)cb->n);
	c = CMSG_FIRSTHDR(msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)cb->n);
	for (int k = 0; k < cb->n; k++)
		memcpy(CMSG_DATA(c) + k * sizeof(int), &cb->b[k].fd, sizeof(int));
}

int client_send_frame(int fd, const struct client_binds *cb, const char *body, size_t len)
{
	uint8_t hdr[FRAME_HEADER_BYTES];
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int) * CLIENT_BINDS_MAX)];
	} u;
	struct iovec iov[2] = { { hdr, sizeof(hdr) }, { (void *)body, len } };
	struct msghdr msg = { .msg_iov = iov, .msg_iovlen = 2 };
	ssize_t n;

	frame_put_header(hdr, (uint32_t)len);
	memset(&u, 0, sizeof(u));
	if (cb && cb->n)
		attach_fds(&msg, u.buf, cb);
	do
		n = sendmsg(fd, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if ((size_t)n < sizeof(hdr))
		return fd_write_all(fd, hdr + n, sizeof(hdr) - (size_t)n) < 0
			       ? -EPIPE
			       : fd_write_all(fd, body, len);
	n -= (ssize_t)sizeof(hdr);
	return fd_write_all(fd, body + n, len - (size_t)n);
}
