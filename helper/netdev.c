/* netdev.c: phase 2, pid 1, in the jail's own UTS and network namespaces:
 * the hostname and, when the spec asks, the loopback interface and the
 * proxy's listening socket on it. */
#include "config.h"

#include <errno.h>
#include <net/if.h>
#include <stdbool.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "helper.h"
#include "hutch-abi.h"

/* Also a pooled jail's, from its shape, before its job. */
void set_hostname(uint32_t spec_flags, const char *hostname)
{
	if (!(spec_flags & HUTCH_SPEC_NS_UTS) || hostname[0] == '\0')
		return;
	if (sethostname(hostname, strlen(hostname)) < 0)
		fail(STAGE_HOSTNAME, SITE_HOSTNAME_SET, errno);
}

/* Also a pooled jail's shape (pool.c), which brings lo up before its
 * job: the same test on the same flags, so that the two agree. */
bool loopback_wanted(uint32_t spec_flags)
{
	return (spec_flags & HUTCH_SPEC_NET_LOOPBACK) && (spec_flags & HUTCH_SPEC_NS_NET);
}

void bring_up_loopback(void)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		fail(STAGE_LOOPBACK, SITE_LOOPBACK_SOCKET, errno);
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, "lo", 3);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
		fail(STAGE_LOOPBACK, SITE_LOOPBACK_GET_FLAGS, errno);
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(fd, SIOCSIFFLAGS, &ifr) < 0)
		fail(STAGE_LOOPBACK, SITE_LOOPBACK_UP, errno);
	close(fd);
}

/* Network "proxy": a TCP socket listening on the jail's loopback, made
 * here because only a socket of the jail's network namespace is reachable
 * from it, and handed to hutch, whose supervisor accepts and proxies: no
 * process of ours stays in the jail for it. Non-blocking, so that the
 * supervisor's accept never waits. */
void proxy_listen(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(HUTCH_PROXY_PORT),
				   .sin_addr = { .s_addr = htonl(HUTCH_PROXY_ADDR_BE) } };
	int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		fail(STAGE_LOOPBACK, SITE_LOOPBACK_PROXY_SOCKET, errno);
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0)
		fail(STAGE_LOOPBACK, SITE_LOOPBACK_PROXY_BIND, errno);
	if (listen(fd, HUTCH_PROXY_BACKLOG) < 0)
		fail(STAGE_LOOPBACK, SITE_LOOPBACK_PROXY_LISTEN, errno);
	control_send_fd(fd, HUTCH_CONTROL_PROXY, STAGE_LOOPBACK, SITE_LOOPBACK_PROXY_SEND);
	close(fd); /* the jail keeps none: the target could accept on it */
}
