/* proxy-addr.h: may the proxy connect to this address? Loopback, private
 * (RFC 1918), shared (RFC 6598), link-local, unique-local and the host's
 * own addresses only when the run may reach private destinations;
 * unspecified, multicast, broadcast and reserved ranges never. IPv4
 * embedded in IPv6 (mapped, NAT64, 6to4, compatible) is judged as the
 * IPv4 address it carries. Pure. Frontend only. */
#ifndef HUTCH_PROXY_ADDR_H
#define HUTCH_PROXY_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#define PROXY_OWN_MAX 64

/* The host's own addresses (getifaddrs, by proxy.c): a jail must not reach
 * a service of the host through an address that is not loopback. */
struct proxy_own {
	struct sockaddr_storage addr[PROXY_OWN_MAX];
	size_t n;
};

/* NULL when sa (AF_INET or AF_INET6) may be reached, else why not:
 * "address_loopback", "address_private", "address_shared",
 * "address_link_local", "address_unique_local", "address_host",
 * "address_unspecified", "address_multicast", "address_reserved". */
const char *proxy_addr_refusal(const struct sockaddr *sa, const struct proxy_own *own,
			       bool allow_private);

/* Is reason one that allow_private lifts? */
bool proxy_addr_reason_private(const char *reason);

#endif
