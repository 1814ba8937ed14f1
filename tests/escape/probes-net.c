/* probes-net.c: the network-egress probes of tests/escape: TCP, UDP and unix sockets
 * to the harness listeners, interfaces, and AF_VSOCK (no network
 * namespace). Linked into probes (probes.c).
 */
#include "probes.h"

/* ------------------------------------------------------------------ */
/* Network egress */

static int connect_timeout(int fd, const struct sockaddr *sa, socklen_t len, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLOUT };
	int err = 0;
	socklen_t el = sizeof(err);

	fcntl(fd, F_SETFL, O_NONBLOCK);
	if (connect(fd, sa, len) == 0)
		return 0;
	if (errno != EINPROGRESS)
		return errno;
	if (poll(&p, 1, ms) <= 0)
		return ETIMEDOUT;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0)
		return errno;
	return err;
}

static int fill_addr(const char *ip, int port, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, ip, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons((uint16_t)port);
		*len = sizeof(*a4);
		return AF_INET;
	}
	if (inet_pton(AF_INET6, ip, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*a6);
		return AF_INET6;
	}
	return -1;
}

static void egress_targets(const char **t)
{
	t[0] = "127.0.0.1";
	t[1] = "::1";
	t[2] = arg("hostip");
	t[3] = arg("hostip6");
}

void p_tcp_egress(void)
{
	const char *token = need("token"), *t[4];
	int port = (int)num("port");

	egress_targets(t);
	for (int i = 0; i < 4; i++) {
		struct sockaddr_storage ss;
		socklen_t len;
		int fam, fd, r;

		if (!t[i] || !*t[i] || (fam = fill_addr(t[i], port, &ss, &len)) < 0)
			continue;
		fd = socket(fam, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			held(errno, "socket");
			continue;
		}
		r = connect_timeout(fd, (struct sockaddr *)&ss, len, 2000);
		if (r == 0) {
			char msg[256];
			int m = snprintf(msg, sizeof(msg), "%s tcp %s\n", token, t[i]);

			fcntl(fd, F_SETFL, 0);
			(void)!write(fd, msg, (size_t)m);
			esc("connected to %s:%d", t[i], port);
		} else {
			held(r, "connect %s:%d", t[i], port);
		}
		close(fd);
	}
	finish(NULL);
}

void p_udp_egress(void)
{
	const char *token = need("token"), *t[4];
	int port = (int)num("uport");

	egress_targets(t);
	for (int i = 0; i < 4; i++) {
		struct sockaddr_storage ss;
		socklen_t len;
		struct pollfd p;
		char msg[256], reply[64];
		int fam, fd, m;

		if (!t[i] || !*t[i] || (fam = fill_addr(t[i], port, &ss, &len)) < 0)
			continue;
		fd = socket(fam, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd < 0) {
			held(errno, "socket");
			continue;
		}
		m = snprintf(msg, sizeof(msg), "%s udp %s\n", token, t[i]);
		if (sendto(fd, msg, (size_t)m, 0, (struct sockaddr *)&ss, len) < 0) {
			held(errno, "sendto %s:%d", t[i], port);
			close(fd);
			continue;
		}
		p = (struct pollfd){ .fd = fd, .events = POLLIN };
		if (poll(&p, 1, 1500) == 1 && recv(fd, reply, sizeof(reply), MSG_DONTWAIT) > 0)
			esc("%s:%d answered", t[i], port);
		else
			held(ETIMEDOUT, "%s:%d (no answer)", t[i], port);
		close(fd);
	}
	finish(NULL);
}

static void unix_connect(const char *name, int abstract, const char *token)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t n = strlen(name);
	socklen_t len;
	int fd, r;

	if (n + 2 > sizeof(sa.sun_path))
		usage_error("socket name too long");
	if (abstract) {
		memcpy(sa.sun_path + 1, name, n);
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
	} else {
		memcpy(sa.sun_path, name, n + 1);
		len = sizeof(sa);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		held(errno, "socket(AF_UNIX)");
		return;
	}
	r = connect_timeout(fd, (struct sockaddr *)&sa, len, 2000);
	if (r == 0) {
		char msg[256];
		int m = snprintf(msg, sizeof(msg), "%s unix %s\n", token, abstract ? "abstract" : "path");

		fcntl(fd, F_SETFL, 0);
		(void)!write(fd, msg, (size_t)m);
		esc("connected to %s%s", abstract ? "@" : "", name);
	} else {
		held(r, "connect %s%s", abstract ? "@" : "", name);
	}
	close(fd);
}

void p_unix_abstract(void)
{
	unix_connect(need("abstract"), 1, need("token"));
	finish(NULL);
}

void p_unix_path(void)
{
	unix_connect(need("sock"), 0, need("token"));
	finish(NULL);
}

void p_net_ifaces(void)
{
	int port = (int)num("port");
	char buf[65536], hex[16];
	ssize_t n = slurp("/proc/net/dev", buf, sizeof(buf));
	const char *tables[] = { "/proc/net/tcp", "/proc/net/tcp6" };

	if (n < 0) {
		held((int)-n, "read /proc/net/dev");
	} else {
		char *save = NULL, *line = strtok_r(buf, "\n", &save);
		int others = 0;

		for (; line; line = strtok_r(NULL, "\n", &save)) {
			char *colon = strchr(line, ':'), *name = line;

			if (!colon)
				continue;
			*colon = '\0';
			while (*name == ' ')
				name++;
			if (strcmp(name, "lo") != 0) {
				esc("interface %s", name);
				others++;
			}
		}
		if (!others)
			miss("only lo in /proc/net/dev");
	}
	snprintf(hex, sizeof(hex), ":%04X ", port);
	for (int i = 0; i < 2; i++) {
		n = slurp(tables[i], buf, sizeof(buf));
		if (n < 0)
			held((int)-n, "read %s", tables[i]);
		else if (contains(buf, (size_t)n, hex))
			esc("the host listener's port %d is in %s", port, tables[i]);
		else
			miss("port %d not in %s", port, tables[i]);
	}
	finish(NULL);
}

/* AF_VSOCK is not covered by network namespaces: a jail that can create
 * one shares the host's vsock port space and reaches whatever answers on
 * vsock (the hypervisor's CID 2 in a VM, guests of this host, local
 * listeners with the loopback transport). The harness holds port vport
 * outside; a bind() of the same port that fails with EADDRINUSE proves
 * the jail sees the host's ports. Nothing is ever connected to. */
static unsigned vsock_port;

/* bind() to the port the harness holds: EADDRINUSE means the host's port
 * space. Closes fd. */
static void vsock_shared(int fd, const char *how)
{
	struct sockaddr_vm sa = { .svm_family = AF_VSOCK,
				  .svm_cid = VMADDR_CID_ANY,
				  .svm_port = vsock_port };

	if (!vsock_port) {
		note("%s: ok", how);
		miss("no host vsock port to compare with");
	} else if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 && errno == EADDRINUSE) {
		esc("%s: ok; bind port %u: EADDRINUSE, the port the harness holds outside: the "
		    "host's vsock port space",
		    how, vsock_port);
	} else {
		miss("%s: ok; bind port %u: %s (a port space of its own)", how, vsock_port,
		     en(errno));
	}
	close(fd);
}

/* The 32-bit entry points: socket() and socketcall(SYS_SOCKET), whose
 * arguments sit in memory that a seccomp filter cannot read. */
static int c_vsock_i386(void *a)
{
	int *args32;
	long r;

	(void)a;
	r = int80(359 /* i386 socket */, AF_VSOCK, SOCK_STREAM, 0);
	if (r >= 0)
		vsock_shared((int)r, "i386 socket(AF_VSOCK)");
	else
		held((int)-r, "i386 socket(AF_VSOCK)");
	args32 = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT,
		      -1, 0);
	if (args32 == MAP_FAILED)
		return 0;
	args32[0] = AF_VSOCK;
	args32[1] = SOCK_STREAM;
	args32[2] = 0;
	r = int80(102 /* i386 socketcall */, 1 /* SYS_SOCKET */, (long)args32, 0);
	if (r >= 0)
		vsock_shared((int)r, "i386 socketcall(SOCKET, AF_VSOCK)");
	else
		held((int)-r, "i386 socketcall(SOCKET, AF_VSOCK)");
	return 0;
}

void p_vsock(void)
{
	const char *vp = arg("vport");
	struct sockaddr_vm sa = { .svm_family = AF_VSOCK, .svm_cid = VMADDR_CID_ANY };
	int fd;

	vsock_port = vp ? (unsigned)strtoul(vp, NULL, 0) : 0;
	fd = socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		held(errno, "socket(AF_VSOCK)");
	else
		vsock_shared(fd, "socket(AF_VSOCK)");
	if (in_child(c_vsock_i386, NULL, 10) == 254)
		held(EINTR, "i386 socket calls: killed");
	/* a listener of our own, which the host side could connect to */
	fd = socket(AF_VSOCK, SOCK_STREAM | SOCK_CLOEXEC, 0);
	sa.svm_port = VMADDR_PORT_ANY;
	if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0 && listen(fd, 1) == 0) {
		socklen_t len = sizeof(sa);

		getsockname(fd, (struct sockaddr *)&sa, &len);
		note("listen on vsock port %u: ok", sa.svm_port);
	} else if (fd >= 0) {
		note("listen on a vsock port: %s", en(errno));
	}
	if (fd >= 0)
		close(fd);
	finish(NULL);
}

/* An echo request to one of the host's addresses, and its reply. Ping
 * sockets first (what an unprivileged host user may have, per
 * net.ipv4.ping_group_range), raw ICMP sockets next. The jail's own
 * loopback is not a target: it answers itself, by design. */
static void icmp_echo(const char *ip)
{
	static const int types[] = { SOCK_DGRAM, SOCK_RAW };
	struct sockaddr_storage ss;
	socklen_t len;
	int fam = fill_addr(ip, 0, &ss, &len);

	if (fam < 0)
		return;
	for (size_t k = 0; k < 2; k++) {
		int proto = fam == AF_INET ? IPPROTO_ICMP : IPPROTO_ICMPV6;
		uint8_t req[16] = { fam == AF_INET ? 8 : 128, 0 }, reply[256];
		struct pollfd p;
		int fd = socket(fam, types[k] | SOCK_CLOEXEC, proto);

		if (fd < 0) {
			held(errno, "socket(%s, %s)", fam == AF_INET ? "ICMP" : "ICMPv6",
			     k ? "raw" : "ping");
			continue;
		}
		if (fam == AF_INET && types[k] == SOCK_RAW) {
			uint32_t sum = 0; /* the kernel fills it only for ping and v6 sockets */

			for (size_t i = 0; i < sizeof(req); i += 2)
				sum += (uint32_t)(req[i] << 8 | req[i + 1]);
			sum = (sum >> 16) + (sum & 0xffff);
			req[2] = (uint8_t)(~sum >> 8);
			req[3] = (uint8_t)~sum;
		}
		if (sendto(fd, req, sizeof(req), 0, (struct sockaddr *)&ss, len) < 0) {
			held(errno, "echo to %s", ip);
			close(fd);
			continue;
		}
		p = (struct pollfd){ .fd = fd, .events = POLLIN };
		if (poll(&p, 1, 1500) == 1 && recv(fd, reply, sizeof(reply), MSG_DONTWAIT) > 0)
			esc("%s answered an echo request (%s socket)", ip, k ? "raw" : "ping");
		else
			held(ETIMEDOUT, "%s (no echo reply)", ip);
		close(fd);
		return;
	}
}

void p_icmp_egress(void)
{
	const char *v4 = arg("hostip"), *v6 = arg("hostip6");

	if ((!v4 || !*v4) && (!v6 || !*v6))
		finish("the host has no address beyond loopback");
	if (v4 && *v4)
		icmp_echo(v4);
	if (v6 && *v6)
		icmp_echo(v6);
	finish(NULL);
}
