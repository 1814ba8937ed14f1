/* netdev.c: phase 2, pid 1, in the jail's own UTS and network namespaces:
 * the hostname and, when the spec asks, the loopback interface. */
#include "config.h"

#include <errno.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "helper.h"

void set_hostname(const struct spec *sp)
{
	if (!(sp->flags & HUTCH_SPEC_NS_UTS) || sp->hostname[0] == '\0')
		return;
	if (sethostname(sp->hostname, strlen(sp->hostname)) < 0)
		fail(STAGE_HOSTNAME, SITE_HOSTNAME_SET, errno);
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
