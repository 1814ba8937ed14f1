/* probes-dev.c: the terminal, kernel-interface and device probes of tests/escape:
 * TIOCSTI and TIOCLINUX, /proc/sys, sysrq and cgroup files opened for
 * writing, device nodes opened. Linked into probes (probes.c).
 */
#include "probes.h"

/* ------------------------------------------------------------------ */
/* Terminals */

static void tty_attempt(int fd, const char *name, unsigned long cmd, const char *cname, int is_linux)
{
	long r;

	if (is_linux) {
		char sub = TIOCL_GETFGCONSOLE;

		r = syscall(SYS_ioctl, fd, cmd, &sub);
	} else {
		char c = 'Q';

		r = syscall(SYS_ioctl, fd, cmd, &c);
	}
	if (r >= 0)
		esc("%s on %s: ok%s", cname, name, is_linux ? " (the console answered)" : " (injected)");
	else
		held(errno, "%s on %s", cname, name);
}

static void tty_probe(unsigned long cmd, const char *cname, int is_linux)
{
	const char *devs[] = { "/dev/tty", "/dev/tty0", "/dev/console", "/dev/tty1" };
	char name[32];

	for (int fd = 0; fd <= 2; fd++) {
		snprintf(name, sizeof(name), "fd %d", fd);
		tty_attempt(fd, name, cmd, cname, is_linux);
	}
	for (size_t i = 0; i < (is_linux ? 4u : 1u); i++) {
		int fd = open(devs[i], O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);

		if (fd < 0) {
			held(errno, "open %s", devs[i]);
			continue;
		}
		tty_attempt(fd, devs[i], cmd, cname, is_linux);
		close(fd);
	}
}

void p_tiocsti(void)
{
	tty_probe(TIOCSTI, "TIOCSTI", 0);
	finish(NULL);
}

void p_tiocsti_highbit(void)
{
	tty_probe((1UL << 32) | TIOCSTI, "TIOCSTI|1<<32", 0);
	finish(NULL);
}

void p_tioclinux(void)
{
	tty_probe(TIOCLINUX, "TIOCLINUX", 1);
	finish("no virtual console is reachable for this user on the host");
}

void p_tioclinux_highbit(void)
{
	tty_probe((1UL << 32) | TIOCLINUX, "TIOCLINUX|1<<32", 1);
	finish("no virtual console is reachable for this user on the host");
}

/* ------------------------------------------------------------------ */
/* Kernel interfaces under /proc and /sys */

void p_proc_sys(void)
{
	const char *files[] = { "/proc/sys/kernel/core_pattern", "/proc/sys/kernel/modprobe",
				"/proc/sys/vm/drop_caches", "/proc/sys/kernel/hostname",
				"/proc/sys/kernel/sysrq" };

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		open_for_write(files[i]);
	finish(NULL);
}

void p_sysrq(void)
{
	open_for_write("/proc/sysrq-trigger");
	finish(NULL);
}

void p_cgroup(void)
{
	const char *roots[] = { "/sys/fs/cgroup", "/sys/fs/cgroup/unified" };
	const char *files[] = { "cgroup.procs", "cgroup.subtree_control", "release_agent",
				"notify_on_release", "tasks" };
	char path[4096], buf[8192];
	DIR *d;
	ssize_t n;

	for (size_t r = 0; r < 2; r++)
		for (size_t f = 0; f < 2; f++) {
			snprintf(path, sizeof(path), "%s/%s", roots[r], files[f]);
			open_for_write(path);
		}
	/* cgroup v1 hierarchies: release_agent is the classic escape */
	d = opendir("/sys/fs/cgroup");
	if (!d) {
		held(errno, "opendir /sys/fs/cgroup");
	} else {
		struct dirent *e;

		while ((e = readdir(d))) {
			if (e->d_name[0] == '.' || e->d_type != DT_DIR)
				continue;
			for (size_t f = 2; f < 4; f++) {
				snprintf(path, sizeof(path), "/sys/fs/cgroup/%s/%s", e->d_name,
					 files[f]);
				if (access(path, F_OK) == 0)
					open_for_write(path);
			}
		}
		closedir(d);
	}
	/* our own cgroup, as /proc/self/cgroup names it */
	n = slurp("/proc/self/cgroup", buf, sizeof(buf));
	if (n > 0) {
		char *save = NULL, *line = strtok_r(buf, "\n", &save);

		for (; line; line = strtok_r(NULL, "\n", &save)) {
			char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;

			if (!c2)
				continue;
			*c2 = '\0';
			if (c1[1] == '\0')
				snprintf(path, sizeof(path), "/sys/fs/cgroup/unified%s/cgroup.procs",
					 c2 + 1);
			else
				snprintf(path, sizeof(path), "/sys/fs/cgroup/%s%s/cgroup.procs",
					 strncmp(c1 + 1, "name=", 5) == 0 ? c1 + 6 : c1 + 1,
					 c2 + 1);
			if (access(path, F_OK) == 0)
				open_for_write(path);
		}
	}
	finish(NULL);
}

/* ------------------------------------------------------------------ */
/* Devices */

void p_dev_block(void)
{
	const char *known[] = { "/dev/vda", "/dev/sda", "/dev/nvme0n1", "/dev/xvda",
				"/dev/loop0", "/dev/dm-0", "/dev/mmcblk0", "/dev/sr0" };
	DIR *d = opendir("/dev");
	int blocks = 0;

	if (d) {
		struct dirent *e;
		char path[300];
		struct stat sb;

		while ((e = readdir(d))) {
			snprintf(path, sizeof(path), "/dev/%s", e->d_name);
			if (lstat(path, &sb) == 0 && S_ISBLK(sb.st_mode) && blocks++ < 64) {
				int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

				if (fd >= 0) {
					esc("opened %s", path);
					close(fd);
				} else {
					held(errno, "open %s", path);
				}
			}
		}
		closedir(d);
	}
	if (!blocks) {
		for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
			int fd = open(known[i], O_RDONLY | O_NONBLOCK | O_CLOEXEC);

			if (fd >= 0) {
				esc("opened %s", known[i]);
				close(fd);
			} else {
				held(errno, "open %s", known[i]);
			}
		}
	}
	finish(NULL);
}

void p_dev_mem(void)
{
	const char *f[] = { "/dev/mem", "/dev/kmem", "/dev/port", "/proc/kcore" };

	for (size_t i = 0; i < 4; i++)
		open_for_read(f[i]);
	finish(NULL);
}

void p_kmsg(void)
{
	char rec[1024];
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0) {
		held(errno, "open /dev/kmsg");
	} else {
		ssize_t n = read(fd, rec, sizeof(rec) - 1);

		esc("read /dev/kmsg (%s)", n > 0 ? "a record" : en(errno));
		close(fd);
	}
	open_for_write("/dev/kmsg");
	REACH("syslog(SIZE_BUFFER)", klogctl(10, NULL, 0));
	finish(NULL);
}

void p_dev_other(void)
{
	const char *f[] = { "/dev/kvm", "/dev/fuse", "/dev/net/tun", "/dev/loop-control",
			    "/dev/btrfs-control", "/dev/uinput", "/dev/vhost-net",
			    "/dev/autofs", "/dev/hwrng", "/dev/cpu/0/msr", "/dev/vsock" };

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		open_for_read(f[i]);
	finish(NULL);
}
