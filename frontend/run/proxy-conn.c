/* proxy-conn.c: one client connection of the proxy, through its states
 * (proxy-conn.h): the request head, the allow-list, the lookup, the
 * address check, the connect, the relay, or a refusal sent back as an
 * HTTP answer that names what was refused. Frontend only. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "fd-util.h"
#include "run/proxy-conn.h"

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static void watch_client(struct conn *c, uint32_t want)
{
	proxy_watch(c->px, c->cfd, &c->cend, &c->cev, want);
}

static void watch_upstream(struct conn *c, uint32_t want)
{
	proxy_watch(c->px, c->ufd, &c->uend, &c->uev, want);
}

struct conn *pconn_new(struct proxy *px, int cfd, uint64_t now)
{
	struct conn *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->head.cap = px->conf->max_header_bytes;
	c->head.p = malloc(c->head.cap);
	if (!c->head.p) {
		free(c);
		return NULL;
	}
	c->px = px;
	c->cfd = cfd;
	c->ufd = -1;
	c->up_pipe[0] = c->up_pipe[1] = c->down_pipe[0] = c->down_pipe[1] = -1;
	c->cend = (struct conn_end){ c, false };
	c->uend = (struct conn_end){ c, true };
	c->start = now;
	/* The whole head within a fixed time: a client trickling a byte a
	 * second holds a slot for that long, not for ever. */
	c->deadline = now + min_u64(PROXY_HEAD_MS, px->conf->idle_ms);
	watch_client(c, EPOLLIN);
	return c;
}

void pconn_close(struct conn *c, const char *reason, uint64_t now)
{
	if (c->dead)
		return;
	if (reason && !c->log.reason)
		c->log.reason = reason;
	c->log.ms = now - c->start;
	/* A connection that never said anything is no attempt to log. */
	if (c->log.host[0] || c->head.len > 0)
		proxy_log(c->px, &c->log);
	if (c->job)
		c->job->owner = NULL; /* proxy.c still holds it until it is done */
	c->job = NULL;
	watch_client(c, 0);
	watch_upstream(c, 0);
	fd_close(&c->cfd);
	fd_close(&c->ufd);
	for (int i = 0; i < 2; i++) {
		fd_close(&c->up_pipe[i]);
		fd_close(&c->down_pipe[i]);
	}
	c->dead = true;
}

static bool buf_alloc(struct buf *b, size_t cap)
{
	if (b->p && b->cap >= cap)
		return true;
	free(b->p);
	b->p = malloc(cap);
	b->cap = b->p ? cap : 0;
	b->off = b->len = 0;
	return b->p != NULL;
}

/* A refusal: an HTTP answer naming what was refused and why, then close.
 * The jail's tool shows the status line; the body says the rest. */
static void refuse(struct conn *c, int code, const char *status, const char *reason, uint64_t now)
{
	char body[HOST_NAME_MAX_LEN + 128];
	int bn, n;

	c->log.reason = reason;
	c->log.allowed = false;
	fd_close(&c->ufd);
	c->uev = 0;
	bn = snprintf(body, sizeof(body), "hutch proxy: %s:%u refused: %s\n",
		      c->log.host[0] ? c->log.host : "?", c->log.port, reason);
	if (!buf_alloc(&c->down, 1024)) { /* the longest answer fits */
		pconn_close(c, reason, now);
		return;
	}
	n = snprintf((char *)c->down.p, c->down.cap,
		     "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n"
		     "Connection: close\r\n\r\n%s",
		     code, status, bn, body);
	c->down.off = 0;
	c->down.len = n > 0 && (size_t)n < c->down.cap ? (size_t)n : 0;
	c->st = CS_REPLY;
	c->deadline = now + PROXY_REPLY_MS;
	watch_client(c, EPOLLOUT);
}

static void addr_text(const struct sockaddr_storage *ss, char *out)
{
	const void *a = ss->ss_family == AF_INET
				? (const void *)&((const struct sockaddr_in *)ss)->sin_addr
				: (const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr;

	if (!inet_ntop(ss->ss_family, a, out, NET_ADDRESS_MAX))
		out[0] = '\0';
}

static void set_port(struct sockaddr_storage *ss, uint16_t port)
{
	if (ss->ss_family == AF_INET)
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	else
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
}

/* Try the next checked address; the answer is the client's once none is
 * left. */
static void connect_next(struct conn *c, uint64_t now)
{
	while (c->next_addr < c->n_addr) {
		size_t i = c->next_addr++;
		int fd = socket(c->addr[i].ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

		fd_close(&c->ufd);
		c->uev = 0;
		addr_text(&c->addr[i], c->log.address);
		if (fd < 0)
			continue;
		c->ufd = fd;
		if (connect(fd, (struct sockaddr *)&c->addr[i], c->addr_len[i]) < 0 &&
		    errno != EINPROGRESS)
			continue;
		c->st = CS_CONNECT;
		c->deadline = now + min_u64(PROXY_STEP_MS, c->px->conf->idle_ms);
		watch_client(c, 0);
		watch_upstream(c, EPOLLOUT);
		return;
	}
	refuse(c, 502, "Bad Gateway", "connect_failed", now);
}

/* The addresses a lookup (or the literal) gave, each checked: only those
 * that pass are tried, and exactly those. */
static void check_addresses(struct conn *c, const struct sockaddr_storage *addr,
			    const socklen_t *len, size_t n, uint64_t now)
{
	const char *first = NULL;

	c->n_addr = c->next_addr = 0;
	for (size_t i = 0; i < n; i++) {
		const char *why = proxy_addr_refusal((const struct sockaddr *)&addr[i],
						     &c->px->own, c->px->conf->allow_private);

		if (why) {
			if (!first) {
				first = why;
				addr_text(&addr[i], c->log.address);
			}
			continue;
		}
		c->addr[c->n_addr] = addr[i];
		c->addr_len[c->n_addr] = len[i];
		set_port(&c->addr[c->n_addr], c->h.port);
		c->n_addr++;
	}
	if (c->n_addr == 0) {
		refuse(c, 403, "Forbidden", first ? first : "resolve_failed", now);
		return;
	}
	connect_next(c, now);
}

void pconn_resolved(struct conn *c, struct resolve_job *j, uint64_t now)
{
	if (c->dead || c->st != CS_RESOLVE)
		return;
	if (j->gai_err) {
		refuse(c, 502, "Bad Gateway", "resolve_failed", now);
		return;
	}
	check_addresses(c, j->addr, j->addr_len, j->n_addr, now);
}

void pconn_start_resolve(struct conn *c, uint64_t now)
{
	int r = proxy_job_start(c->px, c);

	if (r == -EAGAIN)
		return; /* waits for a slot (proxy.c's start_waiting) */
	if (r < 0)
		refuse(c, 502, "Bad Gateway", "resolve_failed", now);
}

/* An IP literal needs no lookup, and is checked the same way. */
static bool literal(struct conn *c, uint64_t now)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t len;

	if (inet_pton(AF_INET, c->h.host, &((struct sockaddr_in *)&ss)->sin_addr) == 1) {
		ss.ss_family = AF_INET;
		len = sizeof(struct sockaddr_in);
	} else if (inet_pton(AF_INET6, c->h.host, &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1) {
		ss.ss_family = AF_INET6;
		len = sizeof(struct sockaddr_in6);
	} else {
		return false;
	}
	check_addresses(c, &ss, &len, 1, now);
	return true;
}

/* What goes upstream first: the rewritten head (plain HTTP) or nothing
 * (CONNECT), then what the client sent after its head. */
static int prepare_relay(struct conn *c)
{
	size_t rest = c->head.len - c->h.head_len;
	size_t cap = PROXY_RELAY_BYTES > c->head.cap * 2 + 512 ? PROXY_RELAY_BYTES
							      : c->head.cap * 2 + 512;
	ssize_t n = 0;

	if (!buf_alloc(&c->up, cap) || !buf_alloc(&c->down, PROXY_RELAY_BYTES))
		return -ENOMEM;
	if (!c->h.is_connect) {
		n = http_head_rewrite(c->head.p, &c->h, c->up.p, c->up.cap - rest);
		if (n < 0)
			return (int)n;
	} else {
		static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";

		memcpy(c->down.p, ok, sizeof(ok) - 1);
		c->down.len = sizeof(ok) - 1;
	}
	memcpy(c->up.p + n, c->head.p + c->h.head_len, rest);
	c->up.len = (size_t)n + rest;
	return 0;
}

static void head_parsed(struct conn *c, uint64_t now)
{
	const struct plan_proxy *conf = c->px->conf;

	snprintf(c->log.host, sizeof(c->log.host), "%s", c->h.host);
	c->log.port = c->h.port;
	if (host_patterns_match(conf->allow, conf->n_allow, c->h.host, c->h.port) < 0) {
		refuse(c, 403, "Forbidden", "not_allowed", now);
		return;
	}
	if (prepare_relay(c) < 0) {
		refuse(c, 431, "Request Header Fields Too Large", "header_too_large", now);
		return;
	}
	watch_client(c, 0); /* what it sends next waits in its socket */
	if (literal(c, now))
		return;
	c->st = CS_RESOLVE;
	c->deadline = now + PROXY_STEP_MS;
	pconn_start_resolve(c, now);
}

static void read_head(struct conn *c, uint64_t now)
{
	ssize_t n = read(c->cfd, c->head.p + c->head.len, c->head.cap - c->head.len);
	int r;

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		pconn_close(c, c->head.len ? "bad_request" : NULL, now);
		return;
	}
	c->head.len += (size_t)n;
	r = http_head_parse(c->head.p, c->head.len, c->head.cap, &c->h);
	if (r == -EAGAIN)
		return;
	if (r == -EMSGSIZE)
		refuse(c, 431, "Request Header Fields Too Large", "header_too_large", now);
	else if (r == -EPROTONOSUPPORT)
		refuse(c, 400, "Bad Request", "not_http_or_connect", now);
	else if (r < 0)
		refuse(c, 400, "Bad Request", "bad_request", now);
	else
		head_parsed(c, now);
}

static void connected(struct conn *c, uint64_t now)
{
	int err = 0;
	socklen_t len = sizeof(err);

	if (getsockopt(c->ufd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
		err = errno;
	if (err == EINPROGRESS || err == EALREADY)
		return;
	if (err) {
		connect_next(c, now);
		return;
	}
	c->log.allowed = true;
	c->st = CS_RELAY;
	c->deadline = now + c->px->conf->idle_ms;
	if (c->up.len && !proxy_count(c->px, c->up.len))
		return;
	c->log.bytes_out += c->up.len;
	pconn_relay_start(c);
}

/* Our answer, then a lingering close: what the client sent past its head
 * is read and dropped until it closes, for a close with unread data is a
 * reset, and a reset may reach the client before the answer does. */
#define LINGER_MS 1000u
#define LINGER_BYTES (256u << 10)

static void send_reply(struct conn *c, uint64_t now)
{
	uint8_t sink[4096];
	ssize_t n;

	if (c->down.len == 0) { /* lingering */
		n = read(c->cfd, sink, sizeof(sink));
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		c->head.off += n > 0 ? (size_t)n : 0;
		if (n <= 0 || c->head.off > LINGER_BYTES)
			pconn_close(c, NULL, now);
		return;
	}
	n = send(c->cfd, c->down.p + c->down.off, c->down.len, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		pconn_close(c, NULL, now);
		return;
	}
	c->down.off += (size_t)n;
	c->down.len -= (size_t)n;
	if (c->down.len > 0)
		return;
	shutdown(c->cfd, SHUT_WR);
	c->head.off = 0; /* counts what is dropped */
	c->deadline = now + LINGER_MS;
	watch_client(c, EPOLLIN);
}

void pconn_event(struct conn *c, bool upstream, uint32_t events, uint64_t now)
{
	if ((events & EPOLLERR) && !(c->st == CS_CONNECT && upstream)) {
		pconn_close(c, c->st == CS_RELAY ? NULL : "client_error", now);
		return;
	}
	switch (c->st) {
	case CS_HEAD:
		read_head(c, now);
		return;
	case CS_RESOLVE:
		return;
	case CS_CONNECT:
		if (upstream)
			connected(c, now);
		if (c->dead || c->st != CS_RELAY)
			return;
		/* what waits: the CONNECT answer, the head */
		pconn_relay(c, RELAY_UP | RELAY_DOWN, now);
		return;
	case CS_RELAY:
		pconn_relay(c, pconn_relay_lanes(upstream, events), now);
		return;
	case CS_REPLY:
		send_reply(c, now);
		return;
	}
}

void pconn_expire(struct conn *c, uint64_t now)
{
	switch (c->st) {
	case CS_HEAD:
		refuse(c, 408, "Request Timeout", "header_timeout", now);
		return;
	case CS_RESOLVE:
		refuse(c, 504, "Gateway Timeout", "resolve_timeout", now);
		return;
	case CS_CONNECT:
		if (c->next_addr < c->n_addr)
			connect_next(c, now);
		else
			refuse(c, 504, "Gateway Timeout", "connect_timeout", now);
		return;
	case CS_RELAY:
		pconn_close(c, "idle_timeout", now);
		return;
	case CS_REPLY:
		pconn_close(c, NULL, now);
		return;
	}
}
