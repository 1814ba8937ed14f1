/* proxy-http.c: a proxy client's request head (see proxy-http.h). The
 * client is the jail, so every byte is hostile: lengths are checked before
 * each copy, the head is bounded by the caller's cap, nothing is
 * allocated. Pure. Frontend only. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "run/proxy-http.h"

static bool tchar(uint8_t c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

/* Where "\r\n\r\n" ends in buf[0..len), or 0. */
static size_t head_end(const uint8_t *buf, size_t len)
{
	for (size_t i = 3; i < len; i++)
		if (buf[i] == '\n' && buf[i - 1] == '\r' && buf[i - 2] == '\n' && buf[i - 3] == '\r')
			return i + 1;
	return 0;
}

static bool parse_port(const uint8_t *p, size_t n, uint16_t *ret)
{
	unsigned long v = 0;

	if (n == 0 || n > 5)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (p[i] < '0' || p[i] > '9')
			return false;
		v = v * 10 + (unsigned long)(p[i] - '0');
	}
	if (v == 0 || v > 65535)
		return false;
	*ret = (uint16_t)v;
	return true;
}

/* "host[:port]" or "[v6][:port]"; no userinfo. */
static int parse_authority(const uint8_t *p, size_t n, bool need_port, struct http_head *h)
{
	size_t host_end = n, port_at = n;

	if (n > 0 && p[0] == '[') {
		const uint8_t *rb = memchr(p, ']', n);

		if (!rb)
			return -EINVAL;
		host_end = (size_t)(rb - p) + 1;
		if (host_end < n && p[host_end] != ':')
			return -EINVAL;
		port_at = host_end;
	} else {
		const uint8_t *colon = memchr(p, ':', n);

		if (colon)
			host_end = port_at = (size_t)(colon - p);
	}
	if (memchr(p, '@', n))
		return -EINVAL;
	if (port_at < n) {
		if (!parse_port(p + port_at + 1, n - port_at - 1, &h->port))
			return -EINVAL;
	} else if (need_port) {
		return -EINVAL;
	} else {
		h->port = 80;
	}
	if (!host_normalize((const char *)p, host_end, h->host))
		return -EINVAL;
	return 0;
}

static int parse_target(const uint8_t *buf, size_t off, size_t n, struct http_head *h)
{
	const uint8_t *t = buf + off;
	size_t auth = 0;

	if (h->is_connect)
		return parse_authority(t, n, true, h);
	if (n >= 7 && strncasecmp((const char *)t, "http://", 7) == 0)
		auth = 7;
	else
		return -EPROTONOSUPPORT; /* https://, ftp://, or origin form */
	{
		size_t end = auth;

		while (end < n && t[end] != '/' && t[end] != '?' && t[end] != '#')
			end++;
		if (parse_authority(t + auth, end - auth, false, h) < 0)
			return -EINVAL;
		h->path_off = off + end;
		h->path_len = n - end;
		/* A fragment is the client's business: never sent. */
		const uint8_t *hash = memchr(t + end, '#', n - end);

		if (hash)
			h->path_len = (size_t)(hash - (t + end));
	}
	return 0;
}

/* "METHOD SP target SP HTTP/1.x" ending at eol. */
static int parse_request_line(const uint8_t *buf, size_t eol, struct http_head *h)
{
	size_t m = 0, sp2;

	while (m < eol && tchar(buf[m]))
		m++;
	if (m == 0 || m > 16 || m >= eol || buf[m] != ' ')
		return -EINVAL;
	h->method_len = m;
	h->is_connect = m == 7 && memcmp(buf, "CONNECT", 7) == 0;
	for (sp2 = m + 1; sp2 < eol && buf[sp2] > ' ' && buf[sp2] < 0x7f; sp2++)
		;
	if (sp2 == m + 1 || sp2 + 9 != eol || buf[sp2] != ' ')
		return -EINVAL;
	if (memcmp(buf + sp2 + 1, "HTTP/1.", 7) != 0 || (buf[sp2 + 8] != '0' && buf[sp2 + 8] != '1'))
		return -EINVAL;
	h->minor = (char)buf[sp2 + 8];
	return parse_target(buf, m + 1, sp2 - m - 1, h);
}

/* Every header line "name: value": a token name, no folding, no control
 * bytes but tab, no CR but the line's end. */
static int check_fields(const uint8_t *buf, size_t from, size_t end)
{
	bool te = false, cl = false;

	for (size_t p = from; p + 2 < end;) {
		const uint8_t *nl = memchr(buf + p, '\n', end - p);
		size_t eol = (size_t)(nl - buf) - 1, k = p; /* at the '\r' */

		if (buf[eol] != '\r')
			return -EINVAL;
		while (k < eol && tchar(buf[k]))
			k++;
		if (k == p || buf[k] != ':')
			return -EINVAL;
		for (size_t i = k + 1; i < eol; i++)
			if ((buf[i] < ' ' && buf[i] != '\t') || buf[i] == 0x7f)
				return -EINVAL;
		te |= k - p == 17 && strncasecmp((const char *)buf + p, "Transfer-Encoding", 17) == 0;
		cl |= k - p == 14 && strncasecmp((const char *)buf + p, "Content-Length", 14) == 0;
		p = eol + 2;
	}
	/* Both framings at once is how requests are smuggled. */
	return te && cl ? -EINVAL : 0;
}

int http_head_parse(const uint8_t *buf, size_t len, size_t cap, struct http_head *ret)
{
	struct http_head h;
	size_t end = head_end(buf, len < cap ? len : cap);
	const uint8_t *nl;
	int r;

	if (end == 0)
		return len >= cap ? -EMSGSIZE : -EAGAIN;
	memset(&h, 0, sizeof(h));
	nl = memchr(buf, '\n', end);
	if (!nl || nl == buf || nl[-1] != '\r')
		return -EINVAL;
	if ((r = parse_request_line(buf, (size_t)(nl - buf) - 1, &h)) < 0)
		return r;
	h.lines_off = (size_t)(nl - buf) + 1;
	h.head_len = end;
	if ((r = check_fields(buf, h.lines_off, end)) < 0)
		return r;
	*ret = h;
	return 0;
}

/* Fields the proxy drops: its own (Proxy-*), the hop-by-hop ones, and
 * Host, which it writes from the request's target (RFC 9112 3.2.2). */
static bool dropped(const uint8_t *name, size_t n)
{
	static const char *const names[] = { "host", "connection", "keep-alive", "te", "trailer",
					     "upgrade", NULL };

	if (n >= 6 && strncasecmp((const char *)name, "proxy-", 6) == 0)
		return true;
	for (size_t i = 0; names[i]; i++)
		if (strlen(names[i]) == n && strncasecmp((const char *)name, names[i], n) == 0)
			return true;
	return false;
}

struct out {
	uint8_t *p;
	size_t len, cap;
	bool full;
};

static void put(struct out *o, const void *s, size_t n)
{
	if (o->full || o->cap - o->len < n) {
		o->full = true;
		return;
	}
	memcpy(o->p + o->len, s, n);
	o->len += n;
}

static void put_host(struct out *o, const struct http_head *h)
{
	char port[8];
	bool v6 = strchr(h->host, ':') != NULL;
	int n = 0;

	put(o, "Host: ", 6);
	if (v6)
		put(o, "[", 1);
	put(o, h->host, strlen(h->host));
	if (v6)
		put(o, "]", 1);
	if (h->port != 80) {
		n = snprintf(port, sizeof(port), ":%u", h->port);
		put(o, port, (size_t)n);
	}
	put(o, "\r\n", 2);
}

ssize_t http_head_rewrite(const uint8_t *buf, const struct http_head *h, uint8_t *out,
			  size_t cap)
{
	struct out o = { .p = out, .cap = cap };

	put(&o, buf, h->method_len);
	put(&o, " ", 1);
	if (h->path_len == 0 || buf[h->path_off] != '/')
		put(&o, "/", 1);
	put(&o, buf + h->path_off, h->path_len);
	/* The client's version: a server may answer 1.1 in chunks a 1.0
	 * client cannot read. */
	put(&o, " HTTP/1.", 8);
	put(&o, &h->minor, 1);
	put(&o, "\r\n", 2);
	put_host(&o, h);
	for (size_t p = h->lines_off; p + 2 < h->head_len;) {
		const uint8_t *nl = memchr(buf + p, '\n', h->head_len - p);
		size_t next = (size_t)(nl - buf) + 1;
		const uint8_t *colon = memchr(buf + p, ':', next - p);

		if (!dropped(buf + p, (size_t)(colon - (buf + p))))
			put(&o, buf + p, next - p);
		p = next;
	}
	put(&o, "Connection: close\r\n\r\n", 21);
	return o.full ? -ENOSPC : (ssize_t)o.len;
}
