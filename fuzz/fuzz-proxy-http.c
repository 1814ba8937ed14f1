/* fuzz-proxy-http.c: libFuzzer harness for the proxy's request-head parser
 * and rewriter (frontend/run/proxy-http.c), whose input is whatever a
 * jailed client sends: every cap from the input's first byte, every
 * prefix that parses must parse the same way again, and what parses must
 * rewrite within a bounded buffer (or say it does not fit). Built by
 * `make fuzz` only. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "run/proxy-http.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct http_head h, again;
	static uint8_t out[4 * 65536 + 1024];
	size_t cap;
	int r;

	if (size < 1)
		return 0;
	cap = 16 + (size_t)data[0] * 64; /* 16 to 16336 */
	data++;
	size--;
	r = http_head_parse(data, size, cap, &h);
	if (r != 0 && r != -EAGAIN && r != -EMSGSIZE && r != -EINVAL && r != -EPROTONOSUPPORT)
		abort();
	if (r != 0)
		return 0;
	if (h.head_len > size || h.head_len > cap || h.lines_off > h.head_len ||
	    h.path_off + h.path_len > h.head_len || h.port == 0 || !h.host[0])
		abort();
	/* The same head alone parses the same. */
	if (http_head_parse(data, h.head_len, cap, &again) != 0 || again.is_connect != h.is_connect ||
	    strcmp(again.host, h.host) != 0 || again.port != h.port || again.minor != h.minor ||
	    again.method_len != h.method_len || again.path_off != h.path_off ||
	    again.path_len != h.path_len || again.lines_off != h.lines_off ||
	    again.head_len != h.head_len)
		abort();
	if (!h.is_connect) {
		ssize_t n = http_head_rewrite(data, &h, out, sizeof(out));

		if (n < 0 || (size_t)n > sizeof(out) || memcmp(out + n - 4, "\r\n\r\n", 4) != 0)
			abort();
		if (http_head_rewrite(data, &h, out, (size_t)n - 1) != -ENOSPC)
			abort();
	}
	return 0;
}
