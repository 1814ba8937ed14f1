/* fd-pass.h: one descriptor with a one-byte tag over a unix socket
 * (SCM_RIGHTS): how pid 1 hands the frontend the work dir's tmpfs and the
 * seccomp listener on the control socket. Linked by both binaries. */
#ifndef HUTCH_FD_PASS_H
#define HUTCH_FD_PASS_H

/* Send fd tagged with tag. 0 or -errno. */
int fdpass_send(int sock, char tag, int fd); /* as-safe */

/* Receive one, without blocking; the fd arrives close-on-exec. 0 and both
 * outputs; -EAGAIN when nothing is there yet; -EPIPE at the end of the
 * stream or on anything that is not exactly one tagged descriptor. */
int fdpass_recv(int sock, char *ret_tag, int *ret_fd);

/* Several descriptors (up to FDPASS_MAX) with one message of len bytes:
 * the forkserver's requests and replies. 0 or -errno. */
#include <stddef.h>
#include <sys/types.h>
#define FDPASS_MAX 25	/* a forkserver request: 9 slots, 16 bind sources */
int fdpass_send_msg(int sock, const void *data, size_t len, const int *fds,
		    size_t n_fds); /* as-safe */

/* Blocking receive of one message: its length (0 at EOF) and up to
 * *io_n_fds descriptors (close-on-exec; any beyond are closed), their
 * count in *io_n_fds. -EMSGSIZE (nothing kept) when the message or its
 * descriptors were cut short; -errno. */
ssize_t fdpass_recv_msg(int sock, void *data, size_t len, int *ret_fds,
			size_t *io_n_fds); /* as-safe */

#endif
