/* host-pattern.h: the proxy's allow-list entries, "HOST[:PORT]" where HOST
 * is a name, "*.suffix" (any name below suffix, not suffix itself), "*"
 * (any host), an IPv4 literal or a bracketed IPv6 literal; no PORT means
 * any port. Parsing, matching a destination, and whether one pattern
 * covers another (how a request narrows its policy). Pure. Frontend only. */
#ifndef HUTCH_HOST_PATTERN_H
#define HUTCH_HOST_PATTERN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HOST_NAME_MAX_LEN 253u
#define HOST_PATTERN_MAX_LEN (HOST_NAME_MAX_LEN + 8)	/* "[...]:65535" */

/* Normalise a host as a destination names it: lower case, one trailing
 * dot dropped, brackets of an IPv6 literal dropped. Returns false (and
 * writes nothing) unless it is a DNS-shaped name or an IP literal of at
 * most HOST_NAME_MAX_LEN bytes. out holds HOST_NAME_MAX_LEN + 1. */
bool host_normalize(const char *in, size_t len, char *out);

/* Is "HOST[:PORT]" a valid pattern? Fills host (normalized, or "*" or
 * "*.suffix") and port (0: any) when ret_host is not NULL. */
bool host_pattern_parse(const char *pat, char ret_host[HOST_NAME_MAX_LEN + 1],
			uint16_t *ret_port);

/* Does pattern pat (valid) allow host (normalized) on port? */
bool host_pattern_match(const char *pat, const char *host, uint16_t port);

/* Does policy pattern outer allow everything inner (both valid) does? */
bool host_pattern_covers(const char *outer, const char *inner);

/* The first of pats[0..n) matching host:port, or -1. */
int host_patterns_match(char *const *pats, size_t n, const char *host, uint16_t port);

#endif
