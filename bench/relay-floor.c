/* relay-floor.c: the kernel's floor for what hutch's proxy does with a
 * download (bench/proxy.sh's reference row): accept on the loopback,
 * connect to the one server, splice both ways socket -> pipe -> socket,
 * one epoll loop. No request parsing, no allow-list, no lookup, no
 * limits, no counting: whatever a relay of this shape costs on this
 * kernel, hutch's proxy cannot go below it.
 *
 *   relay-floor PORTFILE HOST PORT [PIPE_BYTES]
 *
 * Listens on 127.0.0.1 (an ephemeral port, written to PORTFILE once it
 * listens, by a rename), relays every connection to HOST:PORT (an IPv4
 * literal) until killed. PIPE_BYTES: each direction's pipe (default
 * 1 MiB, hutch's size; the kernel rounds it to pages). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

struct lane {
	int src, dst, pipe[2];
	size_t in_pipe;
	int eof;
};

struct pair {
	int fd[2];		/* client, server */
	struct lane lane[2];	/* client -> server, server -> client */
	struct pair *next_dead;	/* freed after the batch that ended it */
	int dead;
};

static struct pair *graveyard;

static size_t pipe_bytes = 1u << 20;

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* Fill the pipe from src, drain it to dst, until neither moves. -1: over. */
static int pump(struct lane *l)
{
	for (;;) {
		ssize_t in = 0, out = 0;

		if (!l->eof && l->in_pipe < pipe_bytes) {
			in = splice(l->src, NULL, l->pipe[1], NULL, pipe_bytes - l->in_pipe,
				    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (in == 0)
				l->eof = 1;
			else if (in < 0 && errno != EAGAIN)
				return -1;
			else if (in > 0)
				l->in_pipe += (size_t)in;
		}
		if (l->in_pipe > 0) {
			out = splice(l->pipe[0], NULL, l->dst, NULL, l->in_pipe,
				     SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (out < 0 && errno != EAGAIN)
				return -1;
			if (out > 0)
				l->in_pipe -= (size_t)out;
		}
		if (in <= 0 && out <= 0)
			return 0;
	}
}

static void watch(int ep, int fd, struct pair *p, uint32_t ev, int op)
{
	struct epoll_event e = { .events = ev, .data.ptr = p };

	if (epoll_ctl(ep, op, fd, &e) < 0)
		die("epoll_ctl");
}

static void finish(struct pair *p)
{
	for (int i = 0; i < 2; i++) {
		close(p->fd[i]);
		close(p->lane[i].pipe[0]);
		close(p->lane[i].pipe[1]);
	}
	p->dead = 1;
	p->next_dead = graveyard;
	graveyard = p;
}

/* Level-triggered: each side is watched for input while its pipe has
 * room, for output while the other direction's pipe holds bytes. */
static void turn(int ep, struct pair *p)
{
	for (int i = 0; i < 2; i++)
		if (pump(&p->lane[i]) < 0)
			goto over;
	if (p->lane[0].eof && !p->lane[0].in_pipe)
		shutdown(p->fd[1], SHUT_WR);
	if (p->lane[1].eof && !p->lane[1].in_pipe)
		goto over;
	for (int i = 0; i < 2; i++) {
		struct lane *in = &p->lane[i], *out = &p->lane[!i];
		uint32_t ev = (!in->eof && in->in_pipe < pipe_bytes ? EPOLLIN : 0) |
			      (out->in_pipe ? EPOLLOUT : 0);

		watch(ep, p->fd[i], p, ev, EPOLL_CTL_MOD);
	}
	return;
over:
	finish(p);
}

static void accept_one(int ep, int ls, const struct sockaddr_in *to)
{
	struct pair *p = calloc(1, sizeof(*p));
	int c = accept4(ls, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (!p || c < 0 || s < 0)
		die("accept");
	/* A blocking connect: on the loopback it is done at once, and the
	 * floor serves one download at a time. */
	if (connect(s, (const struct sockaddr *)to, sizeof(*to)) < 0)
		die("connect");
	fcntl(s, F_SETFL, O_NONBLOCK);
	p->fd[0] = c;
	p->fd[1] = s;
	for (int i = 0; i < 2; i++) {
		struct lane *l = &p->lane[i];

		if (pipe2(l->pipe, O_NONBLOCK | O_CLOEXEC) < 0)
			die("pipe2");
		fcntl(l->pipe[1], F_SETPIPE_SZ, (int)pipe_bytes);
		pipe_bytes = (size_t)fcntl(l->pipe[1], F_GETPIPE_SZ);
		l->src = p->fd[i];
		l->dst = p->fd[!i];
	}
	watch(ep, c, p, EPOLLIN, EPOLL_CTL_ADD);
	watch(ep, s, p, EPOLLIN, EPOLL_CTL_ADD);
}

int main(int argc, char **argv)
{
	struct sockaddr_in me = { .sin_family = AF_INET }, to = { .sin_family = AF_INET };
	socklen_t len = sizeof(me);
	char tmp[4096];
	FILE *f;
	int ls, ep;

	if (argc < 4 || inet_pton(AF_INET, argv[2], &to.sin_addr) != 1) {
		fprintf(stderr, "usage: relay-floor PORTFILE HOST PORT [PIPE_BYTES]\n");
		return 2;
	}
	to.sin_port = htons((uint16_t)atoi(argv[3]));
	if (argc > 4)
		pipe_bytes = strtoul(argv[4], NULL, 0);
	signal(SIGPIPE, SIG_IGN);
	me.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ls = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (ls < 0 || bind(ls, (struct sockaddr *)&me, sizeof(me)) < 0 || listen(ls, 64) < 0 ||
	    getsockname(ls, (struct sockaddr *)&me, &len) < 0)
		die("listen");
	snprintf(tmp, sizeof(tmp), "%s.tmp", argv[1]);
	f = fopen(tmp, "w");
	if (!f || fprintf(f, "%u\n", ntohs(me.sin_port)) < 0 || fclose(f) != 0 ||
	    rename(tmp, argv[1]) < 0)
		die(argv[1]);
	ep = epoll_create1(EPOLL_CLOEXEC);
	if (ep < 0)
		die("epoll_create1");
	watch(ep, ls, NULL, EPOLLIN, EPOLL_CTL_ADD);
	for (;;) {
		struct epoll_event ev[16];
		int n = epoll_wait(ep, ev, 16, -1);

		if (n < 0 && errno != EINTR)
			die("epoll_wait");
		for (int i = 0; i < n; i++) {
			struct pair *p = ev[i].data.ptr;

			if (!p)
				accept_one(ep, ls, &to);
			else if (!p->dead)
				turn(ep, p);
		}
		while (graveyard) {
			struct pair *p = graveyard;

			graveyard = p->next_dead;
			free(p);
		}
	}
}
