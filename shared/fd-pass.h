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

#endif
