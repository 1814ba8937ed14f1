/* proxy-addr.c: which destinations the proxy refuses (see proxy-addr.h).
 * Pure. Frontend only. */
#include "config.h"

#include <netinet/in.h>
#include <stdint.h>
#include <string.h>

#include "run/proxy-addr.h"

struct v4_range {
	uint32_t net;
	unsigned bits;
	const char *why;
	bool is_private;	/* lifted by allow_private */
};

static const struct v4_range v4_ranges[] = {
	{ 0x00000000, 8, "address_unspecified", false },	/* "this network" */
	{ 0x7f000000, 8, "address_loopback", true },
	{ 0x0a000000, 8, "address_private", true },
	{ 0xac100000, 12, "address_private", true },
	{ 0xc0a80000, 16, "address_private", true },
	{ 0x64400000, 10, "address_shared", true },		/* CGNAT */
	{ 0xa9fe0000, 16, "address_link_local", true },
	{ 0xc0000000, 24, "address_reserved", false },		/* IETF protocol assignments */
	{ 0xe0000000, 4, "address_multicast", false },
	{ 0xf0000000, 4, "address_reserved", false },		/* and 255.255.255.255 */
};

static const char *v4_class(uint32_t a)
{
	for (size_t i = 0; i < sizeof(v4_ranges) / sizeof(v4_ranges[0]); i++) {
		uint32_t mask = ~0u << (32 - v4_ranges[i].bits);

		if ((a & mask) == v4_ranges[i].net)
			return v4_ranges[i].why;
	}
	return NULL;
}

bool proxy_addr_reason_private(const char *reason)
{
	static const char *const lifted[] = { "address_loopback",   "address_private",
					      "address_shared",	    "address_link_local",
					      "address_unique_local", "address_host", NULL };

	for (size_t i = 0; reason && lifted[i]; i++)
		if (strcmp(reason, lifted[i]) == 0)
			return true;
	return false;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* The IPv4 address an IPv6 one carries, if it is one of the forms that
 * reach an IPv4 host: mapped ::ffff:0:0/96, NAT64 64:ff9b::/96, 6to4
 * 2002::/16, compatible ::/96. */
static bool v6_embedded_v4(const uint8_t *a, uint32_t *ret)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	static const uint8_t nat64[12] = { 0, 0x64, 0xff, 0x9b };

	if (memcmp(a, mapped, 12) == 0 || memcmp(a, nat64, 12) == 0 ||
	    (all_zero(a, 12) && !all_zero(a + 12, 3))) {
		*ret = be32(a + 12);
		return true;
	}
	if (a[0] == 0x20 && a[1] == 0x02) {
		*ret = be32(a + 2);
		return true;
	}
	return false;
}

static const char *v6_class(const uint8_t *a)
{
	uint32_t v4;

	if (all_zero(a, 16))
		return "address_unspecified";
	if (all_zero(a, 15) && a[15] == 1)
		return "address_loopback";
	if (v6_embedded_v4(a, &v4))
		return v4_class(v4);
	if (a[0] == 0xff)
		return "address_multicast";
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0x80)
		return "address_link_local";
	if (a[0] == 0xfe && (a[1] & 0xc0) == 0xc0)
		return "address_link_local";	/* deprecated site-local */
	if ((a[0] & 0xfe) == 0xfc)
		return "address_unique_local";
	return NULL;
}

/* Is a the host's address b? An IPv6 address carrying an IPv4 one is
 * that IPv4 address here too: ::ffff:HOST-IP reaches the host's IPv4
 * address through a dual-stack socket as HOST-IP does. */
static bool same_ip(const struct sockaddr *a, const struct sockaddr_storage *b)
{
	uint32_t v4;

	if (a->sa_family == AF_INET6 && b->ss_family == AF_INET &&
	    v6_embedded_v4(((const struct sockaddr_in6 *)a)->sin6_addr.s6_addr, &v4))
		return v4 == be32((const uint8_t *)&((const struct sockaddr_in *)b)->sin_addr);
	if (a->sa_family != b->ss_family)
		return false;
	if (a->sa_family == AF_INET)
		return ((const struct sockaddr_in *)a)->sin_addr.s_addr ==
		       ((const struct sockaddr_in *)b)->sin_addr.s_addr;
	return memcmp(&((const struct sockaddr_in6 *)a)->sin6_addr,
		      &((const struct sockaddr_in6 *)b)->sin6_addr, 16) == 0;
}

const char *proxy_addr_refusal(const struct sockaddr *sa, const struct proxy_own *own,
			       bool allow_private)
{
	const char *why;

	if (sa->sa_family == AF_INET)
		why = v4_class(be32((const uint8_t *)&((const struct sockaddr_in *)sa)->sin_addr));
	else if (sa->sa_family == AF_INET6)
		why = v6_class(((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr);
	else
		return "address_reserved";
	for (size_t i = 0; !why && own && i < own->n; i++)
		if (same_ip(sa, &own->addr[i]))
			why = "address_host";
	if (why && allow_private && proxy_addr_reason_private(why))
		return NULL;
	return why;
}
