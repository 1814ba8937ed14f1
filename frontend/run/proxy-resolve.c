/* proxy-resolve.c: getaddrinfo off the loop (see proxy-resolve.h). The
 * lookup uses the host's resolver configuration, as the host would: the
 * jail has none. glibc's getaddrinfo_a would do the same on threads of
 * its own, but its completion is a signal or a thread callback, and a
 * request still running cannot be cancelled, only waited for: owning the
 * thread makes the hand-over and the release explicit. Frontend only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <pthread.h>
#include <resolv.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/proxy-resolve.h"

int resolve_open(int ret[2])
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) < 0)
		return -errno;
	if (fcntl(sv[0], F_SETFL, O_NONBLOCK) < 0) {
		int r = -errno;

		close(sv[0]);
		close(sv[1]);
		return r;
	}
	ret[0] = sv[0];
	ret[1] = sv[1];
	return 0;
}

static atomic_int threads;	/* lookup threads running, process-wide */

void resolve_release(struct resolve_job *j)
{
	if (j && atomic_fetch_sub(&j->refs, 1) == 1)
		free(j);
}

static void lookup(struct resolve_job *j)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_ADDRCONFIG };
	struct addrinfo *res = NULL;

	/* The name the allow-list checked is the name asked: none of the
	 * host's search domains appended (x.allowed.org.corp.example when
	 * x.allowed.org does not exist). The resolver state is the thread's
	 * own, and this thread is this lookup's. */
	if (res_init() == 0)
		_res.options &= ~(unsigned long)(RES_DEFNAMES | RES_DNSRCH);
	j->gai_err = getaddrinfo(j->host, NULL, &hints, &res);
	for (struct addrinfo *ai = res; ai && j->n_addr < RESOLVE_MAX_ADDRS; ai = ai->ai_next) {
		if ((ai->ai_family != AF_INET && ai->ai_family != AF_INET6) ||
		    ai->ai_addrlen > sizeof(j->addr[0]))
			continue;
		memcpy(&j->addr[j->n_addr], ai->ai_addr, ai->ai_addrlen);
		j->addr_len[j->n_addr++] = ai->ai_addrlen;
	}
	if (res)
		freeaddrinfo(res);
	if (j->gai_err == 0 && j->n_addr == 0)
		j->gai_err = EAI_NONAME;
}

static void *resolve_thread(void *arg)
{
	struct resolve_job *j = arg;
	ssize_t n;

	lookup(j);
	/* The pointer is the message; a proxy that is gone refuses it
	 * (ECONNREFUSED), and its reference was dropped with it. */
	do
		n = send(j->notify_fd, &j, sizeof(j), MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	close(j->notify_fd);
	resolve_release(j);
	atomic_fetch_sub(&threads, 1);
	return NULL;
}

int resolve_start(int notify_wr, const char *host, void *owner, struct resolve_job **ret)
{
	struct resolve_job *j = calloc(1, sizeof(*j));
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t t;
	int r;

	if (!j)
		return -ENOMEM;
	if (atomic_fetch_add(&threads, 1) >= RESOLVE_THREADS_MAX) {
		atomic_fetch_sub(&threads, 1);
		free(j);
		return -EAGAIN;
	}
	atomic_init(&j->refs, 2);
	strcpy(j->host, host); /* normalized: at most HOST_NAME_MAX_LEN */
	j->owner = owner;
	j->notify_fd = fcntl(notify_wr, F_DUPFD_CLOEXEC, 3);
	if (j->notify_fd < 0) {
		r = -errno;
		atomic_fetch_sub(&threads, 1);
		free(j);
		return r;
	}
	/* The thread takes no signal: they are the supervisor's (signalfd). */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256u << 10);
	r = -pthread_create(&t, &attr, resolve_thread, j);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r < 0) {
		atomic_fetch_sub(&threads, 1);
		close(j->notify_fd);
		free(j);
		return r; /* -EAGAIN too: the connection waits, as for the cap */
	}
	*ret = j;
	return 0;
}

struct resolve_job *resolve_take(int rd)
{
	struct resolve_job *j = NULL;
	ssize_t n = recv(rd, &j, sizeof(j), MSG_DONTWAIT);

	return n == (ssize_t)sizeof(j) ? j : NULL;
}
