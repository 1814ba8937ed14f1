/* proxy.c: the egress proxy of a run (see proxy.h): its epoll set, accept,
 * the resolver's answers, deadlines, the byte cap and the log; each
 * connection's states are proxy-conn.c's. Level-triggered epoll, and a
 * descriptor is in the set only while something is wanted of it, so a
 * connection that waits on its other side costs no wake-up. Frontend
 * only. */
#include "config.h"

#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fd-util.h"
#include "time-util.h"
#include "run/proxy-conn.h"
#include "run/proxy.h"

#define EVENTS_PER_TURN 64
#define ACCEPTS_PER_TURN 32
#define ACCEPT_BACKOFF_MS 100
#define LOOKUP_POLL_MS 50
/* Descriptors the proxy never takes from its process: hutch serve's other
 * clients, runs and spawns need them more than one jail's connections. */
#define FD_RESERVE 64

/* Connections of every proxy of this process: hutch serve runs many at
 * once, and each may take FDS_PER_CONN descriptors per connection later,
 * so the reserve holds only if each proxy counts them all. The loop is
 * one thread: no lock. */
static size_t conns_all;

void proxy_watch(struct proxy *px, int fd, void *tag, uint32_t *cur, uint32_t want)
{
	struct epoll_event ev = { .events = want, .data.ptr = tag };
	int op = *cur == 0 ? EPOLL_CTL_ADD : want == 0 ? EPOLL_CTL_DEL : EPOLL_CTL_MOD;

	if (want == *cur || fd < 0)
		return;
	if (epoll_ctl(px->epfd, op, fd, &ev) == 0 || op == EPOLL_CTL_DEL)
		*cur = want;
}

void proxy_log(struct proxy *px, const struct net_conn *entry)
{
	struct net_log *log = px->log;

	if (!log->conns && !(log->conns = calloc(NET_LOG_MAX, sizeof(*log->conns)))) {
		log->left_out++;
		return;
	}
	if (log->n < NET_LOG_MAX)
		log->conns[log->n++] = *entry;
	else
		log->left_out++;
}

/* The host's own addresses: a service bound to one of them is the host's,
 * whatever range the address is in. */
static void read_own(struct proxy_own *own)
{
	struct ifaddrs *ifa = NULL;

	if (getifaddrs(&ifa) < 0)
		return;
	for (struct ifaddrs *i = ifa; i && own->n < PROXY_OWN_MAX; i = i->ifa_next) {
		if (!i->ifa_addr)
			continue;
		if (i->ifa_addr->sa_family == AF_INET)
			memcpy(&own->addr[own->n++], i->ifa_addr, sizeof(struct sockaddr_in));
		else if (i->ifa_addr->sa_family == AF_INET6)
			memcpy(&own->addr[own->n++], i->ifa_addr, sizeof(struct sockaddr_in6));
	}
	freeifaddrs(ifa);
}

struct proxy *proxy_new(int listen_fd, const struct plan_proxy *conf, struct net_log *log)
{
	struct proxy *px = calloc(1, sizeof(*px));
	int sv[2] = { -1, -1 }, r;

	if (!px) {
		close(listen_fd);
		errno = ENOMEM;
		return NULL;
	}
	px->listen_fd = listen_fd;
	px->res_rd = px->res_wr = -1;
	px->conf = conf;
	px->log = log;
	log->proxy = true;
	log->max_bytes = conf->max_bytes;
	px->epfd = epoll_create1(EPOLL_CLOEXEC);
	r = px->epfd < 0 ? -errno : resolve_open(sv);
	if (r < 0) {
		proxy_free(px);
		errno = -r;
		return NULL;
	}
	px->res_rd = sv[0];
	px->res_wr = sv[1];
	read_own(&px->own);
	{
		struct rlimit rl;

		px->nofile = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
				     ? (uint64_t)rl.rlim_cur
				     : UINT64_MAX / 2;
	}
	{
		uint32_t cur = 0;

		proxy_watch(px, px->res_rd, &px->res_rd, &cur, EPOLLIN);
	}
	proxy_watch(px, px->listen_fd, &px->listen_fd, &px->listen_ev, EPOLLIN);
	return px;
}

int proxy_fd(const struct proxy *px)
{
	return px->epfd;
}

static void unlink_conn(struct proxy *px, struct conn *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		px->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
}

static void free_conn(struct conn *c)
{
	free(c->head.p);
	free(c->up.p);
	free(c->down.p);
	free(c);
}

/* Dead connections go after the turn: an event later in the same batch
 * may still point at one. */
static void reap_dead(struct proxy *px)
{
	for (struct conn *c = px->conns, *next; c; c = next) {
		next = c->next;
		if (!c->dead)
			continue;
		unlink_conn(px, c);
		px->n_conns--;
		conns_all--;
		free_conn(c);
	}
}

bool proxy_count(struct proxy *px, uint64_t n)
{
	uint64_t now;

	px->log->bytes += n;
	if (px->log->bytes < px->conf->max_bytes || px->log->capped)
		return !px->log->capped;
	/* The run's cap: every connection ends, and no other starts. */
	px->log->capped = true;
	now = time_now_ms();
	for (struct conn *c = px->conns; c; c = c->next)
		if (!c->dead)
			pconn_close(c, "max_bytes", now);
	return false;
}

int proxy_job_start(struct proxy *px, struct conn *c)
{
	int r;

	if (px->n_jobs == PROXY_RESOLVING_MAX)
		return -EAGAIN;
	r = resolve_start(px->res_wr, c->h.host, c, &c->job);
	if (r == 0)
		px->jobs[px->n_jobs++] = c->job;
	return r;
}

/* Finished lookups: to their connection if it still waits, then ours
 * let go (the slot is start_waiting's to fill). */
static void take_jobs(struct proxy *px, uint64_t now)
{
	struct resolve_job *j;

	while ((j = resolve_take(px->res_rd))) {
		size_t i;

		for (i = 0; i < px->n_jobs && px->jobs[i] != j; i++)
			;
		if (i == px->n_jobs)
			continue; /* not one of ours: ignore it */
		px->jobs[i] = px->jobs[--px->n_jobs];
		if (j->owner) {
			struct conn *c = j->owner;

			c->job = NULL;
			pconn_resolved(c, j, now);
		}
		resolve_release(j);
	}
}

/* Connections waiting for a lookup slot: ours (a job of this run ended)
 * or the process's (RESOLVE_THREADS_MAX, freed by any run's thread, so
 * polled: proxy_timeout_ms). */
static void start_waiting(struct proxy *px, uint64_t now)
{
	px->lookup_waiting = false;
	for (struct conn *c = px->conns; c; c = c->next) {
		if (c->dead || c->st != CS_RESOLVE || c->job)
			continue;
		if (px->n_jobs < PROXY_RESOLVING_MAX)
			pconn_start_resolve(c, now);
		px->lookup_waiting |= !c->dead && c->st == CS_RESOLVE && !c->job;
	}
}

/* Room for one more connection above the reserve? The lowest free
 * descriptor says how many are taken (they are handed out lowest first),
 * and each connection of any proxy here may still take FDS_PER_CONN more
 * (its upstream's socket, two pipes): counted for all of them, as those
 * that hold theirs already cannot be told apart cheaply. */
#define FDS_PER_CONN 6
static bool fd_headroom(const struct proxy *px)
{
	int probe = fcntl(px->listen_fd, F_DUPFD_CLOEXEC, 0);
	bool ok = probe >= 0 &&
		  (uint64_t)probe + FD_RESERVE + FDS_PER_CONN * (conns_all + 1) < px->nofile;

	if (probe >= 0)
		close(probe);
	return ok;
}

static void accept_some(struct proxy *px, uint64_t now)
{
	for (int i = 0; i < ACCEPTS_PER_TURN && px->n_conns < px->conf->max_connections; i++) {
		int fd;
		struct conn *c;

		if (!fd_headroom(px)) {
			px->accept_after = now + ACCEPT_BACKOFF_MS; /* they wait in the backlog */
			return;
		}
		fd = accept4(px->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
				px->accept_after = now + ACCEPT_BACKOFF_MS; /* EMFILE, ENOBUFS */
			return;
		}
		if (px->log->capped) {
			struct net_conn e = { .reason = "max_bytes" };

			proxy_log(px, &e);
			close(fd);
			continue;
		}
		c = pconn_new(px, fd, now);
		if (!c) {
			close(fd);
			px->accept_after = now + ACCEPT_BACKOFF_MS;
			return;
		}
		c->next = px->conns;
		if (px->conns)
			px->conns->prev = c;
		px->conns = c;
		px->n_conns++;
		conns_all++;
	}
}

/* The listener is in the set only while a connection may be taken: the
 * rest wait in its backlog, in the kernel, at no cost to us. */
static void update_listen(struct proxy *px, uint64_t now)
{
	bool want = px->n_conns < px->conf->max_connections && now >= px->accept_after;

	proxy_watch(px, px->listen_fd, &px->listen_fd, &px->listen_ev, want ? EPOLLIN : 0);
}

static void expire(struct proxy *px, uint64_t now)
{
	for (struct conn *c = px->conns; c; c = c->next)
		if (!c->dead && c->deadline && now >= c->deadline)
			pconn_expire(c, now);
}

void proxy_dispatch(struct proxy *px)
{
	struct epoll_event ev[EVENTS_PER_TURN];
	uint64_t now = time_now_ms();
	int n = epoll_wait(px->epfd, ev, EVENTS_PER_TURN, 0);

	for (int i = 0; i < n; i++) {
		void *tag = ev[i].data.ptr;

		if (tag == &px->listen_fd) {
			accept_some(px, now);
		} else if (tag == &px->res_rd) {
			take_jobs(px, now);
		} else {
			struct conn_end *end = tag;

			if (!end->c->dead)
				pconn_event(end->c, end->upstream, ev[i].events, now);
		}
	}
	expire(px, now);
	start_waiting(px, now);
	reap_dead(px);
	update_listen(px, now);
}

int proxy_timeout_ms(struct proxy *px)
{
	uint64_t now = time_now_ms(), next = UINT64_MAX;

	for (struct conn *c = px->conns; c; c = c->next)
		if (!c->dead && c->deadline && c->deadline < next)
			next = c->deadline;
	if (px->accept_after > now && px->accept_after < next)
		next = px->accept_after;
	if (px->lookup_waiting && now + LOOKUP_POLL_MS < next)
		next = now + LOOKUP_POLL_MS;
	if (next == UINT64_MAX)
		return -1;
	return next <= now ? 0 : (int)(next - now > 60000 ? 60000 : next - now);
}

void proxy_free(struct proxy *px)
{
	uint64_t now = time_now_ms();

	if (!px)
		return;
	for (struct conn *c = px->conns; c; c = c->next)
		if (!c->dead)
			pconn_close(c, "run_ended", now);
	reap_dead(px);
	/* Lookups still running: their thread frees them when done. */
	for (size_t i = 0; i < px->n_jobs; i++) {
		px->jobs[i]->owner = NULL;
		resolve_release(px->jobs[i]);
	}
	fd_close(&px->listen_fd);
	fd_close(&px->res_rd);
	fd_close(&px->res_wr);
	fd_close(&px->epfd);
	free(px);
}
