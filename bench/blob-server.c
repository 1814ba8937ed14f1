/* blob-server.c: bench/proxy.sh's lean HTTP server: answers every
 * request on 127.0.0.1 with SIZE zero bytes, sent from one 1 MiB buffer
 * (one copy per byte, into the socket: the least a TCP sender does
 * without zero-copy), one connection at a time. The Python server beside
 * it allocates and copies each chunk again and takes a core of its own on
 * a 2-core machine; this one leaves the CPU to what is measured.
 *
 *   blob-server SIZE PORTFILE
 *
 * Writes the port it listens on to PORTFILE (by a rename) and serves
 * until killed. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static char chunk[1u << 20];

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static void serve(int s, unsigned long long size)
{
	char req[65536], head[128];
	int n;

	if (recv(s, req, sizeof(req), 0) <= 0)
		return;
	n = snprintf(head, sizeof(head), "HTTP/1.0 200 OK\r\nContent-Length: %llu\r\n\r\n", size);
	if (send(s, head, (size_t)n, MSG_NOSIGNAL) != n)
		return;
	while (size > 0) {
		size_t want = size < sizeof(chunk) ? (size_t)size : sizeof(chunk);
		ssize_t k = send(s, chunk, want, MSG_NOSIGNAL);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return;
		size -= (unsigned long long)k;
	}
}

int main(int argc, char **argv)
{
	struct sockaddr_in me = { .sin_family = AF_INET };
	socklen_t len = sizeof(me);
	unsigned long long size;
	char tmp[4096];
	FILE *f;
	int ls;

	if (argc != 3) {
		fprintf(stderr, "usage: blob-server SIZE PORTFILE\n");
		return 2;
	}
	size = strtoull(argv[1], NULL, 0);
	signal(SIGPIPE, SIG_IGN);
	me.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (ls < 0 || bind(ls, (struct sockaddr *)&me, sizeof(me)) < 0 || listen(ls, 64) < 0 ||
	    getsockname(ls, (struct sockaddr *)&me, &len) < 0)
		die("listen");
	snprintf(tmp, sizeof(tmp), "%s.tmp", argv[2]);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%u\n", ntohs(me.sin_port)) < 0 || fclose(f) != 0 ||
	    rename(tmp, argv[2]) < 0)
		die(argv[2]);
	for (;;) {
		int s = accept4(ls, NULL, NULL, SOCK_CLOEXEC);

		if (s < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			die("accept");
		}
		serve(s, size);
		close(s);
	}
}
