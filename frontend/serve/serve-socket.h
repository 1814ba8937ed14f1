/* serve-socket.h: the listening socket of `hutch serve --socket PATH`,
 * made only where no other user can take or swap it (hutch-protocol(7),
 * "The socket"). Frontend only. */
#ifndef HUTCH_SERVE_SOCKET_H
#define HUTCH_SERVE_SOCKET_H

#include <sys/types.h>
#include <sys/un.h>

struct serve_socket {
	int fd;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];	/* resolved */
	dev_t dev;
	ino_t ino;
};

/* Listen at path with mode. Returns 0 and fills *ret, or -errno with
 * *ret_why a fixed text saying what is wrong and what to do (the caller
 * adds the flag and the path). */
int serve_socket_open(const char *path, mode_t mode, struct serve_socket *ret,
		      const char **ret_why);
/* Close it and unlink the path, only while it is still our socket. */
void serve_socket_close(struct serve_socket *s);

#endif
