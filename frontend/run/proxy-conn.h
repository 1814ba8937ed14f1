/* proxy-conn.h: inside the proxy (proxy.c, proxy-conn.c only): one
 * client connection and its way through the states, and the proxy object
 * they share. Frontend only. */
#ifndef HUTCH_PROXY_CONN_H
#define HUTCH_PROXY_CONN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "doc/outcome.h"
#include "doc/plan.h"
#include "run/proxy-addr.h"
#include "run/proxy-http.h"
#include "run/proxy-resolve.h"

#define PROXY_RESOLVING_MAX 8		/* lookups at once per run */
#define PROXY_HEAD_MS 10000u		/* a whole request head, from accept */
#define PROXY_STEP_MS 10000u		/* a lookup, a connect */
#define PROXY_REPLY_MS 5000u		/* our refusal, to a client that reads it */
#define PROXY_RELAY_BYTES (64u << 10)

enum conn_state { CS_HEAD, CS_RESOLVE, CS_CONNECT, CS_RELAY, CS_REPLY };

struct buf {
	uint8_t *p;
	size_t off, len, cap;
};

struct conn;

/* What an epoll event points at: one side of a connection. */
struct conn_end {
	struct conn *c;
	bool upstream;
};

struct conn {
	struct proxy *px;
	struct conn *next, *prev;
	enum conn_state st;
	bool dead;			/* closed; freed after this dispatch */
	int cfd, ufd;
	struct conn_end cend, uend;
	uint32_t cev, uev;		/* what epoll has for each; 0: not in it */
	struct buf head;		/* the request head as it arrives */
	struct buf up, down;		/* to the upstream, to the client */
	/* Once relaying, bytes move socket to socket through these pipes
	 * (splice), never through our memory; -1 when none could be made
	 * (then through up and down). */
	int up_pipe[2], down_pipe[2];
	size_t up_in_pipe, down_in_pipe, pipe_cap;
	bool up_full, down_full;	/* its last send was short: waits for room */
	bool c_eof, u_eof, u_shut;
	struct http_head h;
	struct resolve_job *job;	/* CS_RESOLVE: ours, or NULL while waiting */
	struct sockaddr_storage addr[RESOLVE_MAX_ADDRS];	/* checked, to try */
	socklen_t addr_len[RESOLVE_MAX_ADDRS];
	size_t n_addr, next_addr;
	uint64_t start, deadline;
	struct net_conn log;
};

struct proxy {
	int epfd, listen_fd, res_rd, res_wr;
	uint32_t listen_ev;		/* in epoll: EPOLLIN or 0 */
	uint64_t accept_after;		/* backing off an accept failure */
	uint64_t nofile;		/* our RLIMIT_NOFILE, for the reserve */
	const struct plan_proxy *conf;
	struct net_log *log;
	struct proxy_own own;
	struct conn *conns;
	size_t n_conns;
	struct resolve_job *jobs[PROXY_RESOLVING_MAX];	/* started, not yet taken */
	size_t n_jobs;
	bool lookup_waiting;		/* a connection waits for a lookup slot */
};

/* proxy-conn.c */
struct conn *pconn_new(struct proxy *px, int cfd, uint64_t now);
void pconn_event(struct conn *c, bool upstream, uint32_t events, uint64_t now);
void pconn_resolved(struct conn *c, struct resolve_job *j, uint64_t now);
void pconn_start_resolve(struct conn *c, uint64_t now);	/* a slot came free */
void pconn_expire(struct conn *c, uint64_t now);
void pconn_close(struct conn *c, const char *reason, uint64_t now);

/* proxy-relay.c */
void pconn_relay_start(struct conn *c);		/* the pipes, once connected */
#define RELAY_UP 1u				/* client to upstream */
#define RELAY_DOWN 2u				/* upstream to client */
unsigned pconn_relay_lanes(bool upstream, uint32_t events);	/* what an event concerns */
void pconn_relay(struct conn *c, unsigned lanes, uint64_t now);	/* move what is ready */

/* proxy.c, for proxy-conn.c */
void proxy_watch(struct proxy *px, int fd, void *tag, uint32_t *cur, uint32_t want);
bool proxy_count(struct proxy *px, uint64_t n);	/* false: the run's cap is crossed */
void proxy_log(struct proxy *px, const struct net_conn *entry);
int proxy_job_start(struct proxy *px, struct conn *c);	/* -EAGAIN: no slot */

#endif
