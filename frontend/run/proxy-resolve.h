/* proxy-resolve.h: name resolution for the proxy that never blocks its
 * loop: each lookup is getaddrinfo on a detached thread of its own, which
 * posts the finished job's pointer on a datagram socket the loop polls.
 * A job is shared by two owners (the thread and the proxy) and freed by
 * the last to let go, so a run may end while a lookup still waits on a
 * slow DNS server. Frontend only. */
#ifndef HUTCH_PROXY_RESOLVE_H
#define HUTCH_PROXY_RESOLVE_H

#include <stdatomic.h>
#include <stddef.h>
#include <sys/socket.h>

#include "doc/host-pattern.h"

#define RESOLVE_MAX_ADDRS 8
/* Lookup threads of the whole process at once: those of runs that ended
 * live on until their lookup does (as long as the host's resolver waits
 * on a server that never answers), and hutch serve starts runs without
 * end. */
#define RESOLVE_THREADS_MAX 64

struct resolve_job {
	atomic_int refs;
	int notify_fd;		/* the thread's own copy of the write end */
	char host[HOST_NAME_MAX_LEN + 1];
	int gai_err;		/* 0, or the EAI_* code */
	struct sockaddr_storage addr[RESOLVE_MAX_ADDRS];
	socklen_t addr_len[RESOLVE_MAX_ADDRS];
	size_t n_addr;
	void *owner;		/* the proxy's, NULL once it lost interest */
};

/* The socket pair a proxy polls: ret[0] to read (non-blocking), ret[1]
 * the write end the threads copy. -errno on failure. */
int resolve_open(int ret[2]);

/* Start looking host up; *ret is the proxy's reference. -EAGAIN when
 * RESOLVE_THREADS_MAX run already, another -errno when no thread could be
 * made (nothing to release then). */
int resolve_start(int notify_wr, const char *host, void *owner, struct resolve_job **ret);

/* A finished job from rd, or NULL when none is waiting. */
struct resolve_job *resolve_take(int rd);

/* Drop one reference; the last frees. */
void resolve_release(struct resolve_job *j);

#endif
