/* test-proxy-addr.c: unit tests of the proxy's address checks
 * (frontend/run/proxy-addr.c): every private, host and never-reachable
 * range refused, IPv4 inside IPv6 judged as IPv4, allow_private lifting
 * only what it should. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "run/proxy-addr.h"

#include "cunit-main.h"

static const char *judge(const char *text, const struct proxy_own *own, bool allow_private)
{
	struct sockaddr_storage ss = { 0 };

	if (strchr(text, ':')) {
		ss.ss_family = AF_INET6;
		CU_ASSERT_EQUAL_FATAL(inet_pton(AF_INET6, text, &((struct sockaddr_in6 *)&ss)->sin6_addr), 1);
	} else {
		ss.ss_family = AF_INET;
		CU_ASSERT_EQUAL_FATAL(inet_pton(AF_INET, text, &((struct sockaddr_in *)&ss)->sin_addr), 1);
	}
	return proxy_addr_refusal((struct sockaddr *)&ss, own, allow_private);
}

static void expect(const char *addr, const char *why, bool lifted)
{
	const char *got = judge(addr, NULL, false);

	if (!got || !why || strcmp(got, why) != 0) {
		if (got != why) {
			fprintf(stderr, "\n  %s: want %s, got %s", addr, why ? why : "NULL",
				got ? got : "NULL");
			CU_FAIL("wrong verdict");
		}
	}
	got = judge(addr, NULL, true);
	if (lifted ? got != NULL : (why && !got)) {
		fprintf(stderr, "\n  %s with allow_private: got %s", addr, got ? got : "NULL");
		CU_FAIL("allow_private lifted the wrong thing");
	}
}

static void test_ranges(void)
{
	expect("8.8.8.8", NULL, true);
	expect("151.101.0.223", NULL, true);
	expect("2a04:4e42::223", NULL, true);
	expect("127.0.0.1", "address_loopback", true);
	expect("127.255.255.254", "address_loopback", true);
	expect("10.1.2.3", "address_private", true);
	expect("172.16.0.1", "address_private", true);
	expect("172.31.255.255", "address_private", true);
	expect("172.32.0.1", NULL, true);
	expect("192.168.0.1", "address_private", true);
	expect("100.64.0.1", "address_shared", true);
	expect("100.127.255.255", "address_shared", true);
	expect("100.128.0.1", NULL, true);
	expect("169.254.169.254", "address_link_local", true);
	expect("0.0.0.0", "address_unspecified", false);
	expect("0.1.2.3", "address_unspecified", false);
	expect("224.0.0.1", "address_multicast", false);
	expect("239.255.255.250", "address_multicast", false);
	expect("255.255.255.255", "address_reserved", false);
	expect("240.0.0.1", "address_reserved", false);
	expect("::", "address_unspecified", false);
	expect("::1", "address_loopback", true);
	expect("fe80::1", "address_link_local", true);
	expect("fc00::1", "address_unique_local", true);
	expect("fd12:3456::1", "address_unique_local", true);
	expect("ff02::1", "address_multicast", false);
}

static void test_embedded_v4(void)
{
	expect("::ffff:127.0.0.1", "address_loopback", true);
	expect("::ffff:10.0.0.1", "address_private", true);
	expect("::ffff:8.8.8.8", NULL, true);
	expect("64:ff9b::a00:1", "address_private", true);	/* NAT64 of 10.0.0.1 */
	expect("2002:a9fe:a9fe::1", "address_link_local", true);	/* 6to4 of 169.254.169.254 */
	expect("::127.0.0.1", "address_loopback", true);	/* compatible */
}

static void test_host_addresses(void)
{
	struct proxy_own own = { .n = 2 };
	struct sockaddr_in *a = (struct sockaddr_in *)&own.addr[0];
	struct sockaddr_in6 *b = (struct sockaddr_in6 *)&own.addr[1];

	a->sin_family = AF_INET;
	inet_pton(AF_INET, "203.0.113.7", &a->sin_addr);
	b->sin6_family = AF_INET6;
	inet_pton(AF_INET6, "2001:db8::7", &b->sin6_addr);
	CU_ASSERT_STRING_EQUAL(judge("203.0.113.7", &own, false), "address_host");
	CU_ASSERT_STRING_EQUAL(judge("2001:db8::7", &own, false), "address_host");
	CU_ASSERT_PTR_NULL(judge("203.0.113.8", &own, false));
	/* The host's IPv4 address inside IPv6: a dual-stack socket reaches
	 * it all the same. */
	CU_ASSERT_STRING_EQUAL(judge("::ffff:203.0.113.7", &own, false), "address_host");
	CU_ASSERT_STRING_EQUAL(judge("::ffff:cb00:7107", &own, false), "address_host");
	CU_ASSERT_STRING_EQUAL(judge("64:ff9b::203.0.113.7", &own, false), "address_host");
	CU_ASSERT_PTR_NULL(judge("::ffff:203.0.113.8", &own, false));
	CU_ASSERT_PTR_NULL(judge("::ffff:203.0.113.7", &own, true));
	CU_ASSERT_PTR_NULL(judge("203.0.113.7", &own, true));
	CU_ASSERT_TRUE(proxy_addr_reason_private("address_host"));
	CU_ASSERT_FALSE(proxy_addr_reason_private("address_multicast"));
}

static const struct unit_case cases[] = {
	{ "ranges: private, host-local and never-reachable", test_ranges },
	{ "IPv4 inside IPv6 is judged as IPv4", test_embedded_v4 },
	{ "the host's own addresses", test_host_addresses },
	{ NULL, NULL },
};

UNIT_MAIN("proxy-addr")
