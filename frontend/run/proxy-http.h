/* proxy-http.h: the one request head a client of the proxy sends: CONNECT
 * host:port, or a plain-HTTP request in absolute form (http://host/...),
 * strictly parsed; and the head forwarded for the latter, in origin form,
 * without Proxy-* and hop-by-hop fields, with "Connection: close" (one
 * request per connection). Pure: fuzzed and unit-tested. Frontend only. */
#ifndef HUTCH_PROXY_HTTP_H
#define HUTCH_PROXY_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "doc/host-pattern.h"

struct http_head {
	bool is_connect;
	char host[HOST_NAME_MAX_LEN + 1];	/* normalized (host_normalize) */
	uint16_t port;
	size_t method_len;		/* the method is buf[0..method_len) */
	char minor;			/* '0' or '1': HTTP/1.0 or HTTP/1.1, kept */
	size_t path_off, path_len;	/* origin form in buf; may be empty or "?..." */
	size_t lines_off;		/* the header lines, after the request line */
	size_t head_len;		/* through the blank line */
};

/* Parse buf[0..len) (what arrived so far; the head may not exceed cap).
 * 0 with *ret filled; -EAGAIN: incomplete; -EMSGSIZE: no end within cap;
 * -EPROTONOSUPPORT: a scheme other than http in absolute form (https
 * goes through CONNECT), or origin form (not a proxy request); -EINVAL:
 * anything malformed. */
int http_head_parse(const uint8_t *buf, size_t len, size_t cap, struct http_head *ret);

/* The head to send upstream for a plain-HTTP request, into out (cap
 * bytes). Returns its length, or -ENOSPC. */
ssize_t http_head_rewrite(const uint8_t *buf, const struct http_head *h, uint8_t *out,
			  size_t cap);

#endif
