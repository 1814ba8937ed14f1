/* sink.h: where the supervisor's pass-through output goes, written so
 * that a reader who stops reading never stops the supervisor. */
#ifndef HUTCH_RUN_SINK_H
#define HUTCH_RUN_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SINK_CHUNK (64u << 10)

/* Where pass-through output goes. A reader that stops reading must not
 * stop this loop, or no deadline fires while it stalls (issue 9, finding
 * 7): every write to a sink is non-blocking; while it is full we stop
 * reading the target, which then blocks on its own pipe, and poll the
 * sink for POLLOUT instead. Our fds 1 and 2 may share their description
 * with other processes (a shell, a pipeline), so O_NONBLOCK is set on it
 * only as the last resort, and put back:
 *  - a pipe, a FIFO or a terminal is reopened through /proc/self/fd: a
 *    description of our own, non-blocking, that nobody else sees;
 *  - a socket (cannot be reopened) gets send(MSG_DONTWAIT) per call;
 *  - a regular file, a block device or another device is written as
 *    before: it does not wait for a reader;
 *  - a pipe or terminal we may not reopen (another user's) is made
 *    non-blocking for the run and its flags restored by sink_close. */
struct sink {
	int fd;			/* where we write; -1: no pass-through */
	int own_fd;		/* our reopened description, or -1 */
	int restore_fd;		/* shared description made non-blocking, or -1 */
	int restore_flags;
	bool is_socket, no_splice;
	bool waiting;		/* full: wait for POLLOUT before reading more */
	bool broken;		/* the reader is gone: output is counted, dropped */
	size_t off, len;	/* undelivered bytes in buf */
	uint8_t buf[SINK_CHUNK];
};

/* Take fd (our stdout or stderr; -1: no pass-through) as the sink. */
void sink_open(struct sink *s, int fd);

/* Put back what sink_open changed; the sink is closed after. */
void sink_close(struct sink *s);

/* Whether undelivered bytes wait for the reader (poll for POLLOUT). */
bool sink_pending(const struct sink *s);

/* Deliver what is buffered, as far as the reader takes it now. */
void sink_flush(struct sink *s);

#endif
