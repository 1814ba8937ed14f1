/* proxy.h: the egress proxy of one run with network "proxy": it accepts on
 * the listening socket hutch-exec made in the jail's network namespace,
 * reads one CONNECT or absolute-form HTTP request per connection, checks
 * its host against the run's allow-list, resolves it on the host (never
 * blocking), refuses private and host addresses unless allowed, connects
 * to exactly the address it checked and relays. Every connection is
 * logged in the run's outcome (net_log).
 *
 * Its only coupling to an event loop is this: one descriptor to poll for
 * input (an epoll set of everything it waits on), the next deadline, and
 * a dispatch that does what is ready and never blocks. Frontend only. */
#ifndef HUTCH_PROXY_H
#define HUTCH_PROXY_H

#include "doc/outcome.h"
#include "doc/plan.h"

struct proxy;

/* Takes listen_fd (closed on failure too). conf (the plan's) and log
 * (the run's outcome) must outlive the proxy. NULL with errno set. */
struct proxy *proxy_new(int listen_fd, const struct plan_proxy *conf, struct net_log *log);

/* Poll this for POLLIN: something of the proxy is ready. */
int proxy_fd(const struct proxy *px);

/* Milliseconds to its next deadline (a connection's idle or header
 * limit), 0 when one is due, -1 for none. */
int proxy_timeout_ms(struct proxy *px);

/* Everything ready and everything due, without blocking. Call it each
 * turn the fd was ready or the timeout ran out (more often is harmless). */
void proxy_dispatch(struct proxy *px);

/* Close every connection (logged as cut short by the run's end) and free
 * it. NULL is fine. */
void proxy_free(struct proxy *px);

#endif
