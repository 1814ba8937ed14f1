/* test-proxy-http.c: unit tests of the proxy's request-head parser and
 * rewriter (frontend/run/proxy-http.c): CONNECT and absolute-form
 * requests, every prefix incomplete, the cap, malformed heads refused, and
 * the head forwarded in origin form without Proxy-* and hop-by-hop
 * fields. */
#include <errno.h>
#include <string.h>

#include "run/proxy-http.h"

#include "cunit-main.h"

static int parse(const char *text, size_t cap, struct http_head *h)
{
	return http_head_parse((const uint8_t *)text, strlen(text), cap, h);
}

static void test_connect(void)
{
	struct http_head h;

	CU_ASSERT_EQUAL(parse("CONNECT PyPI.org:443 HTTP/1.1\r\nHost: pypi.org:443\r\n\r\n", 4096, &h), 0);
	CU_ASSERT_TRUE(h.is_connect);
	CU_ASSERT_STRING_EQUAL(h.host, "pypi.org");
	CU_ASSERT_EQUAL(h.port, 443);
	CU_ASSERT_EQUAL(parse("CONNECT [2001:db8::1]:8443 HTTP/1.0\r\n\r\n", 4096, &h), 0);
	CU_ASSERT_STRING_EQUAL(h.host, "2001:db8::1");
	CU_ASSERT_EQUAL(h.port, 8443);
	CU_ASSERT_EQUAL(parse("CONNECT pypi.org HTTP/1.1\r\n\r\n", 4096, &h), -EINVAL); /* no port */
	CU_ASSERT_EQUAL(parse("CONNECT u@pypi.org:443 HTTP/1.1\r\n\r\n", 4096, &h), -EINVAL);
}

static void test_absolute(void)
{
	const char *req = "GET http://Example.org:8080/a/b?c=d#frag HTTP/1.1\r\n"
			  "Host: other.example\r\nProxy-Authorization: x\r\n"
			  "Connection: keep-alive\r\nAccept: */*\r\n\r\nBODY";
	struct http_head h;
	uint8_t out[512];
	ssize_t n;

	CU_ASSERT_EQUAL_FATAL(parse(req, 4096, &h), 0);
	CU_ASSERT_FALSE(h.is_connect);
	CU_ASSERT_STRING_EQUAL(h.host, "example.org");
	CU_ASSERT_EQUAL(h.port, 8080);
	CU_ASSERT_EQUAL(h.head_len, strlen(req) - 4);
	n = http_head_rewrite((const uint8_t *)req, &h, out, sizeof(out));
	CU_ASSERT_TRUE_FATAL(n > 0);
	out[n] = '\0';
	CU_ASSERT_STRING_EQUAL((char *)out, "GET /a/b?c=d HTTP/1.1\r\nHost: example.org:8080\r\n"
					    "Accept: */*\r\nConnection: close\r\n\r\n");
	CU_ASSERT_EQUAL(http_head_rewrite((const uint8_t *)req, &h, out, 20), -ENOSPC);
}

static void test_absolute_shapes(void)
{
	struct http_head h;
	uint8_t out[256];
	ssize_t n;
	const char *q = "GET http://a.org?x HTTP/1.0\r\n\r\n";

	CU_ASSERT_EQUAL_FATAL(parse(q, 4096, &h), 0);
	CU_ASSERT_EQUAL(h.port, 80);
	n = http_head_rewrite((const uint8_t *)q, &h, out, sizeof(out));
	CU_ASSERT_TRUE_FATAL(n > 0);
	CU_ASSERT_EQUAL(memcmp(out, "GET /?x HTTP/1.0\r\nHost: a.org\r\n", 31), 0); /* its version kept */
	CU_ASSERT_EQUAL(parse("GET http://[::1]:81/ HTTP/1.1\r\n\r\n", 4096, &h), 0);
	CU_ASSERT_STRING_EQUAL(h.host, "::1");
	CU_ASSERT_EQUAL(parse("GET https://a.org/ HTTP/1.1\r\n\r\n", 4096, &h), -EPROTONOSUPPORT);
	CU_ASSERT_EQUAL(parse("GET / HTTP/1.1\r\nHost: a.org\r\n\r\n", 4096, &h), -EPROTONOSUPPORT);
	CU_ASSERT_EQUAL(parse("GET ftp://a.org/ HTTP/1.1\r\n\r\n", 4096, &h), -EPROTONOSUPPORT);
}

static void test_malformed(void)
{
	static const char *const bad[] = {
		"GET http://a.org/ HTTP/2.0\r\n\r\n",
		"GET http://a.org/ HTTP/1.1 \r\n\r\n",
		"GET  http://a.org/ HTTP/1.1\r\n\r\n",
		"G(T http://a.org/ HTTP/1.1\r\n\r\n",
		"GET http://a.org/\x01 HTTP/1.1\r\n\r\n",
		"GET http://user@a.org/ HTTP/1.1\r\n\r\n",
		"GET http://a..org/ HTTP/1.1\r\n\r\n",
		"GET http://a.org:0/ HTTP/1.1\r\n\r\n",
		"GET http://a.org:99999/ HTTP/1.1\r\n\r\n",
		"GET http://a.org/ HTTP/1.1\r\n folded: x\r\n\r\n",
		"GET http://a.org/ HTTP/1.1\r\nNoColon\r\n\r\n",
		"GET http://a.org/ HTTP/1.1\r\nA: b\nC: d\r\n\r\n",
		"GET http://a.org/ HTTP/1.1\r\nA: b\x7f\r\n\r\n",
		"POST http://a.org/ HTTP/1.1\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
		"\r\n\r\n",
		"GET\r\n\r\n",
	};
	struct http_head h;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = parse(bad[i], 4096, &h);

		if (r != -EINVAL) {
			fprintf(stderr, "\n  #%zu: %d", i, r);
			CU_FAIL("a malformed head was not refused");
		}
	}
}

static void test_every_prefix_incomplete(void)
{
	const char *req = "CONNECT a.org:443 HTTP/1.1\r\nUser-Agent: t\r\n\r\n";
	struct http_head h;

	for (size_t n = 0; n < strlen(req); n++)
		CU_ASSERT_EQUAL(http_head_parse((const uint8_t *)req, n, 4096, &h), -EAGAIN);
	CU_ASSERT_EQUAL(http_head_parse((const uint8_t *)req, strlen(req), 4096, &h), 0);
}

static void test_cap(void)
{
	const char *req = "GET http://a.org/ HTTP/1.1\r\nX: 0123456789\r\n\r\n";
	struct http_head h;

	/* The end past the cap is never looked for: too large. */
	CU_ASSERT_EQUAL(http_head_parse((const uint8_t *)req, strlen(req), 20, &h), -EMSGSIZE);
	CU_ASSERT_EQUAL(http_head_parse((const uint8_t *)req, 19, 20, &h), -EAGAIN);
	CU_ASSERT_EQUAL(http_head_parse((const uint8_t *)req, strlen(req), strlen(req), &h), 0);
}

static const struct unit_case cases[] = {
	{ "CONNECT host:port, names and IPv6", test_connect },
	{ "absolute form, rewritten to origin form", test_absolute },
	{ "absolute form's shapes; other schemes and origin form refused", test_absolute_shapes },
	{ "malformed heads refused", test_malformed },
	{ "every prefix is incomplete", test_every_prefix_incomplete },
	{ "the cap", test_cap },
	{ NULL, NULL },
};

UNIT_MAIN("proxy-http")
