/* fd-util.c: EINTR-safe exact reads and writes. Linked by both binaries. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fd-util.h"

long fd_read_full(int fd, void *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = read(fd, (char *)buf + got, n - got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		if (k == 0)
			break;
		got += (size_t)k;
	}
	return (long)got;
}

int fd_read_exact(int fd, void *buf, size_t n)
{
	long k = fd_read_full(fd, buf, n);

	if (k < 0)
		return (int)k;
	return (size_t)k == n ? 0 : -EPIPE;
}

int fd_write_all(int fd, const void *buf, size_t n)
{
	size_t done = 0;

	while (done < n) {
		ssize_t k = write(fd, (const char *)buf + done, n - done);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		done += (size_t)k;
	}
	return 0;
}

int fd_slurp(int fd, size_t max, char **ret_buf, size_t *ret_len)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap + 1);

	if (!buf)
		return -ENOMEM;
	for (;;) {
		ssize_t k;

		if (len == cap) {
			char *nb;

			if (cap > max) {
				free(buf);
				return -EFBIG;
			}
			cap *= 2;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
		}
		k = read(fd, buf + len, cap - len);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int r = -errno;

			free(buf);
			return r;
		}
		if (k == 0)
			break;
		len += (size_t)k;
		if (len > max) {
			free(buf);
			return -EFBIG;
		}
	}
	buf[len] = '\0';
	*ret_buf = buf;
	*ret_len = len;
	return 0;
}

void fd_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int pidfd_or_reap(pid_t child)
{
	int fd = (int)syscall(SYS_pidfd_open, child, 0), r;

	if (fd >= 0)
		return fd;
	r = -errno;
	kill(child, SIGKILL);
	while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
		;
	return r;
}
