/* sink.c: pass-through output to our stdout and stderr, non-blocking
 * whatever the caller handed us (sink.h). Frontend only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fd-util.h"
#include "run/sink.h"

static bool may_stall(int fd, const struct stat *st)
{
	return S_ISFIFO(st->st_mode) || (S_ISCHR(st->st_mode) && isatty(fd));
}

void sink_open(struct sink *s, int fd)
{
	struct stat st;
	char path[32];
	int fl;

	s->fd = fd;
	s->own_fd = s->restore_fd = -1;
	if (fd < 0 || fstat(fd, &st) < 0)
		return;
	if (S_ISSOCK(st.st_mode)) {
		s->is_socket = s->no_splice = true;
		return;
	}
	if (!may_stall(fd, &st))
		return;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	s->own_fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (s->own_fd >= 0) {
		s->fd = s->own_fd;
		return;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0 && !(fl & O_NONBLOCK) && fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0) {
		s->restore_fd = fd;
		s->restore_flags = fl;
	}
}

void sink_close(struct sink *s)
{
	if (s->restore_fd >= 0)
		(void)fcntl(s->restore_fd, F_SETFL, s->restore_flags);
	fd_close(&s->own_fd);
	s->restore_fd = s->fd = -1;
}

bool sink_pending(const struct sink *s)
{
	return s->fd >= 0 && !s->broken && (s->waiting || s->off < s->len);
}

void sink_flush(struct sink *s)
{
	while (s->off < s->len && !s->broken) {
		size_t n = s->len - s->off;
		ssize_t k = s->is_socket ? send(s->fd, s->buf + s->off, n, MSG_DONTWAIT | MSG_NOSIGNAL)
					 : write(s->fd, s->buf + s->off, n);

		if (k < 0 && (errno == EAGAIN || errno == EINTR)) {
			s->waiting = true;
			return;
		}
		if (k <= 0)
			s->broken = true; /* EPIPE: nobody reads our output any more */
		else
			s->off += (size_t)k;
	}
	s->off = s->len = 0;
	s->waiting = false;
}
