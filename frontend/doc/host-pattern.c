/* host-pattern.c: allow-list patterns of the proxy (see host-pattern.h).
 * Pure. Frontend only. */
#include "config.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "doc/host-pattern.h"

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

/* Labels of 1-63 name characters joined by single dots, none starting
 * or ending with '-'. */
static bool dns_shaped(const char *s)
{
	size_t label = 0;

	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s == '-' && (label == 0 || s[1] == '.' || s[1] == '\0'))
			return false;
		if (*s == '.') {
			if (label == 0)
				return false;
			label = 0;
		} else if (name_char(*s) && ++label <= 63) {
			continue;
		} else {
			return false;
		}
	}
	return label > 0;
}

bool host_normalize(const char *in, size_t len, char *out)
{
	char buf[HOST_NAME_MAX_LEN + 2];
	unsigned char a6[16];

	if (memchr(in, '\0', len))
		return false;
	if (len >= 2 && in[0] == '[' && in[len - 1] == ']') {
		if (len - 2 > 45)
			return false;
		memcpy(buf, in + 1, len - 2);
		buf[len - 2] = '\0';
		for (char *p = buf; *p; p++)
			if (*p >= 'A' && *p <= 'F')
				*p = (char)(*p - 'A' + 'a');
		if (inet_pton(AF_INET6, buf, a6) != 1)
			return false;
		strcpy(out, buf);
		return true;
	}
	if (len > 0 && in[len - 1] == '.')
		len--;
	if (len == 0 || len > HOST_NAME_MAX_LEN)
		return false;
	for (size_t i = 0; i < len; i++)
		buf[i] = in[i] >= 'A' && in[i] <= 'Z' ? (char)(in[i] - 'A' + 'a') : in[i];
	buf[len] = '\0';
	if (!dns_shaped(buf))
		return false;
	strcpy(out, buf);
	return true;
}

static bool parse_port(const char *s, uint16_t *ret)
{
	unsigned long v = 0;

	if (!*s || strlen(s) > 5 || *s == '0')
		return false;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		v = v * 10 + (unsigned long)(*p - '0');
	}
	if (v == 0 || v > 65535)
		return false;
	*ret = (uint16_t)v;
	return true;
}

bool host_pattern_parse(const char *pat, char ret_host[HOST_NAME_MAX_LEN + 1],
			uint16_t *ret_port)
{
	char host[HOST_NAME_MAX_LEN + 1];
	const char *colon, *end;
	uint16_t port = 0;

	if (strlen(pat) > HOST_PATTERN_MAX_LEN)
		return false;
	/* "[v6]:port", "[v6]", "name:port", "name": the port follows the
	 * last colon outside brackets. */
	end = pat[0] == '[' ? strchr(pat, ']') : NULL;
	if (pat[0] == '[' && !end)
		return false;
	colon = strchr(end ? end : pat, ':');
	if (colon && !parse_port(colon + 1, &port))
		return false;
	{
		size_t len = colon ? (size_t)(colon - pat) : strlen(pat);

		if (len == 1 && pat[0] == '*')
			strcpy(host, "*");
		else if (len > 2 && pat[0] == '*' && pat[1] == '.') {
			host[0] = '*';
			host[1] = '.';
			if (!host_normalize(pat + 2, len - 2, host + 2) ||
			    strlen(host) > HOST_NAME_MAX_LEN)
				return false;
		} else if (!host_normalize(pat, len, host))
			return false;
	}
	if (ret_host)
		strcpy(ret_host, host);
	if (ret_port)
		*ret_port = port;
	return true;
}

/* Is name strictly below suffix ("a.b.c" below "b.c")? */
static bool below(const char *name, const char *suffix)
{
	size_t n = strlen(name), s = strlen(suffix);

	return n > s + 1 && name[n - s - 1] == '.' && strcmp(name + n - s, suffix) == 0;
}

static bool host_match(const char *ph, const char *host)
{
	if (strcmp(ph, "*") == 0)
		return true;
	if (ph[0] == '*' && ph[1] == '.')
		return below(host, ph + 2);
	return strcmp(ph, host) == 0;
}

bool host_pattern_match(const char *pat, const char *host, uint16_t port)
{
	char ph[HOST_NAME_MAX_LEN + 1];
	uint16_t pp;

	if (!host_pattern_parse(pat, ph, &pp))
		return false;
	return (pp == 0 || pp == port) && host_match(ph, host);
}

bool host_pattern_covers(const char *outer, const char *inner)
{
	char oh[HOST_NAME_MAX_LEN + 1], ih[HOST_NAME_MAX_LEN + 1];
	uint16_t op, ip;

	if (!host_pattern_parse(outer, oh, &op) || !host_pattern_parse(inner, ih, &ip))
		return false;
	if (op != 0 && op != ip)
		return false;
	if (strcmp(oh, "*") == 0)
		return true;
	if (strcmp(ih, "*") == 0)
		return false;
	if (ih[0] == '*') /* "*.x.s" under "*.s", "*.s" under "*.s" */
		return oh[0] == '*' && (strcmp(ih + 2, oh + 2) == 0 || below(ih + 2, oh + 2));
	return host_match(oh, ih);
}

int host_patterns_match(char *const *pats, size_t n, const char *host, uint16_t port)
{
	for (size_t i = 0; i < n; i++)
		if (host_pattern_match(pats[i], host, port))
			return (int)i;
	return -1;
}
