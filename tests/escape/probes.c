/* probes.c: the attack probes of tests/escape (see README there).
 *
 * One program, one subcommand per probe: `probes [--control] NAME KEY=VALUE...`.
 * Each probe makes the real attempt and prints exactly one line,
 *   CONTAINED <evidence>     every attempt failed (errno names say how)
 *   ESCAPED <evidence>       at least one attempt got through
 *   NOTAPPLICABLE <why>      only with --control: the attack does not exist
 *                            on this host for this user (see below)
 * and exits 0 (2 on a usage error). The harness (escape.py) runs every probe
 * inside `hutch run` under each shipped policy, then once directly on the
 * host with --control, where it must say ESCAPED (or NOTAPPLICABLE with a
 * reason): a probe that cannot see the attack succeed where it can succeed
 * proves nothing in the jail. --control never changes what is attempted;
 * it only lets a CONTAINED outcome be explained as "not on this host":
 * every failure ENOSYS (kernel lacks it), every failure ENOENT/ENODEV/ENXIO
 * (no such file or device here), or, for a caller other than root, every
 * failure EPERM/EACCES (the host refuses it to this user anyway).
 *
 * The harness hands over knowledge, never access: paths of canaries planted
 * where the jail binds nothing, a sentinel's pid, ports, a secret to look
 * for. Some probes only plant something or start something; the harness
 * checks the outcome outside (a listener's log, a lingering process, a
 * collected file, the sentinel's signal log) and may turn a CONTAINED into
 * ESCAPED, never the reverse.
 *
 * Privileged calls use arguments that fail harmlessly even where the call is
 * permitted, so the host control is safe as root: the kernel checks the
 * capability first and the argument after, so EINVAL/ENOENT/EBADF means
 * "got past the permission check" and counts as ESCAPED, EPERM/EACCES
 * (seccomp's answer or the capability check's) as CONTAINED.
 *
 *  probe            attempt                                   host control (why safe)
 *  ---------------  ----------------------------------------  ---------------------------------
 *  host-read        read canaries in host /tmp, /var/tmp,     reads them
 *                   /dev/shm (paths the jail does not bind)
 *  host-write       append to a 0666 host canary, create      writes the canary; harness restores
 *                   files in 0777 canary dirs
 *  host-traverse    chdir("..") x64, /.., /proc/self/root,    reaches host / (dev:ino compared)
 *                   /proc/1/root, /proc/self/cwd: host / ?
 *  cwd-leak         harness starts hutch with cwd = canary    cwd is the canary dir
 *                   dir; is the inherited cwd reachable?
 *                   (runc CVE-2024-21626)
 *  fd-leak          any descriptor beyond 0-2 (harness opens  sees fds 5, 6
 *                   5 = secret file, 6 = canary dir)
 *  proc-root        /proc/SENTINEL/root/<canary>, .../cwd     reads through the sentinel
 *  proc-see         sentinel's marker in any /proc/N/cmdline  finds it
 *  proc-signal      kill() and pidfd_send_signal() SIGUSR1     sentinel logs SIGUSR1 (handled)
 *  ptrace           PTRACE_SEIZE sentinel and parent;          seize (no stop), process exits;
 *                   process_vm_readv/writev of the sentinel    writes its own bytes back
 *                   secret
 *  proc-mem         /proc/SENTINEL/mem at the secret,          reads them
 *                   /proc/SENTINEL/environ
 *  tcp-egress       connect to the harness listener on         connects
 *                   127.0.0.1, ::1 and the host's address
 *  udp-egress       datagram to the UDP listener, wait reply   gets the reply
 *  unix-abstract    connect to the listener's abstract socket  connects
 *  unix-path        connect to a pathname socket in the        connects
 *                   canary dir
 *  net-ifaces       interfaces other than lo, the listener's   sees eth0 and the port
 *                   port in /proc/net/tcp
 *  sysv-ipc         msgget() of the sentinel's queue key       finds it
 *  vsock            AF_VSOCK socket (native, i386 socket and   EADDRINUSE too; never connects
 *                   socketcall); bind() of the port the
 *                   harness holds outside (vsock has no netns)
 *  tiocsti          TIOCSTI on fds 0-2 and /dev/tty (harness   injects one byte into the pty
 *                   runs hutch on a pty as its ctty)           the harness owns
 *  tiocsti-highbit  same, cmd | 1 << 32 (CVE-2019-10063)       same
 *  tioclinux        TIOCLINUX TIOCL_GETFGCONSOLE on fds 0-2,   read-only subcode on tty0
 *                   /dev/tty, /dev/tty0, /dev/console
 *  tioclinux-highbit same, cmd | 1 << 32                       same
 *  outlive          setsid + double fork, SIGTERM/HUP         lingerer sleeps <= 30 s, harness
 *                   ignored; harness looks for it after        kills it by pid
 *                   hutch returned
 *  outlive-timeout  same, and the probe itself ignores         under `timeout -s KILL`; same
 *                   SIGTERM and outlasts --timeout
 *  outlive-kill     same; the harness SIGKILLs the hutch        same, the probe is SIGKILLed
 *                   frontend once the lingerers exist
 *  fork-bomb        fork until refused (cap 4x processes)     not run on the host
 *  mem-bomb         mmap+touch until refused (cap 2x memory)  not run on the host
 *  mem-bomb-multi   4 processes, 3/4 of memory each            not run on the host
 *  disk-fill        fill /work, /tmp, /dev/shm (cap 2x size)   not run on the host
 *  helper-exe       /proc/{1,ppid,SENTINEL}/exe: O_PATH,       opens, never writes
 *                   O_RDONLY, reopen O_WRONLY (CVE-2019-5736)
 *  helper-fds       /proc/{1,ppid,SENTINEL}/fd/N, pidfd_getfd, opens, never writes
 *                   environ, mem: a jail's pid 1 holds the
 *                   status pipe
 *  noexec           copy ourselves into cwd (/work), /tmp,      execs from the host's /tmp; the
 *                   /dev/shm; execve, mmap PROT_EXEC           copies are removed
 *  setuid           exec setuid-root binaries (passwd, su...)  as a user: gains euid 0 (and is
 *                   with stdin a pipe; read its Uid: line      killed); as root: n/a
 *  mount            tmpfs mount, after unshare(NEWNS) and      in a private mount namespace
 *                   in a new user namespace; umount2           (or a new user namespace)
 *  userns           unshare/clone/clone3 CLONE_NEWUSER         children only
 *  chroot           chroot + the classic ".." escape           in a child only
 *  pivot-root       pivot_root of a missing path               ENOENT after the check
 *  mknod            char 1:1 and block 7:0 in a scratch dir    unlinked at once
 *  sethostname      sethostname/setdomainname, 65 bytes        EINVAL after the check
 *  keyctl           keyctl GET_KEYRING_ID, add_key of an       read-only / no such type
 *                   unknown type, request_key of nothing
 *  bpf              BPF_MAP_CREATE (1-entry array), bad cmd    map closed at once
 *  perf             perf_event_open task-clock on self         closed at once
 *  userfaultfd      userfaultfd(UFFD_USER_MODE_ONLY)           closed at once
 *  io-uring         io_uring_setup(2)                          closed at once
 *  kexec            kexec_load 17 segments foreign arch,       EINVAL after the check
 *                   kexec_file_load bad flags
 *  modules          init_module len 0, finit_module(-1),       ENOEXEC/EBADF/ENOENT after check
 *                   delete_module of nothing
 *  shocker          open_by_handle_at(host root inode 2)       reads the canary by handle
 *  new-mount-api    fsopen, fspick, open_tree(CLONE),          detached objects, closed
 *                   mount_setattr on the clone, move_mount     (CVE-2021-41133)
 *  personality      READ_IMPLIES_EXEC|ADDR_NO_RANDOMIZE        process-local, restored
 *  clock            adjtimex bad tick, settimeofday(0,0),      EINVAL / no-op
 *                   clock_settime(MONOTONIC)
 *  reboot           reboot() with a bad magic2                 EINVAL after the check
 *  ioperm           iopl(3), ioperm(0x80) in a child            no port is touched; child exits
 *  obscure-calls    acct/uselib of missing files, ustat(0),    ENOENT/EINVAL after the check;
 *                   sysfs(3), fanotify_init(REPORT_FID)        the group fd is closed
 *  swap             swapon/swapoff of a missing file           ENOENT after the check
 *  nice             setpriority -5, SCHED_FIFO (in a child)    the child exits
 *  rlimit           raise hard NPROC/NOFILE/AS/CPU/FSIZE,      in a child
 *                   oom_score_adj -1000
 *  proc-sys         open core_pattern, modprobe, drop_caches,  open O_WRONLY, never written
 *                   hostname under /proc/sys for writing
 *  sysrq            open /proc/sysrq-trigger for writing       never written
 *  cgroup           open cgroup.procs, release_agent... for    never written
 *                   writing
 *  dev-block        open any block device                      read-only open
 *  dev-mem          /dev/mem, /dev/kmem, /dev/port, kcore      read-only open
 *  kmsg             /dev/kmsg read and open for writing,       one record read; never written
 *                   syslog(SIZE_BUFFER)
 *  dev-other        /dev/kvm, fuse, net/tun, loop-control...   read-only open
 *  env-leak         the harness's canary variable in environ   sees it
 *  collect-symlink  plant symlinks to host canaries, collected harness reads them naively
 *  collect-fifo     plant a FIFO, collected                    a naive reader blocks
 *  seccomp-abi      int 0x80 unshare/clone/keyctl/reboot,      i386 calls in children
 *                   x32 unshare
 *  ro-write         create in /usr, mkdir in /, open           created and removed at once
 *                   /etc/ld.so.cache for writing
 *  uid-root         our uid maps to 0 outside                  root: yes; a user: n/a
 *  caps             any capability, bounding set included      the host has a bounding set
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <linux/vm_sockets.h>
#include <linux/reboot.h>
#include <linux/sched.h>
#include <linux/tiocl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/msg.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/timex.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

/* Kept here rather than from <linux/mount.h>, which clashes with
 * <sys/mount.h> on glibc 2.36. */
#define HX_OPEN_TREE_CLONE 1
#define HX_OPEN_TREE_CLOEXEC O_CLOEXEC
#define HX_FSOPEN_CLOEXEC 1
#define HX_FSPICK_CLOEXEC 1
#define HX_MOUNT_ATTR_RDONLY 0x1
#define HX_AT_RECURSIVE 0x8000
struct hx_mount_attr {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};

/* ------------------------------------------------------------------ */
/* Verdict and evidence, in a shared mapping so that children can add to
 * them (children run one at a time; the parent waits). */

struct state {
	int escaped;
	unsigned n_fail, n_nosys, n_absent, n_denied, n_other;
	size_t len;
	char ev[6144];
};
static struct state *st;
static int control;
static int g_argc;
static char **g_argv;

static const char *en(int e)
{
	const char *s = strerrorname_np(e);
	static char buf[16];

	if (s)
		return s;
	snprintf(buf, sizeof(buf), "errno%d", e);
	return buf;
}

static void vnote(const char *fmt, va_list ap)
{
	size_t room = sizeof(st->ev) - st->len;
	int n;

	if (room < 8)
		return;
	if (st->len) {
		memcpy(st->ev + st->len, "; ", 2);
		st->len += 2;
		room -= 2;
	}
	n = vsnprintf(st->ev + st->len, room, fmt, ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= room)
		n = (int)room - 1;
	st->len += (size_t)n;
	/* one line, printable */
	for (size_t i = 0; i < st->len; i++)
		if (!isprint((unsigned char)st->ev[i]))
			st->ev[i] = '?';
}

static void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnote(fmt, ap);
	va_end(ap);
}

/* An attempt that got through. */
static void esc(const char *fmt, ...)
{
	va_list ap;

	st->escaped = 1;
	va_start(ap, fmt);
	vnote(fmt, ap);
	va_end(ap);
}

/* An attempt that failed with err. */
static void held(int err, const char *fmt, ...);

/* An attempt that failed in a way no errno names (nothing found, no gain);
 * never explained away as "not on this host". */
static void miss(const char *fmt, ...)
{
	va_list ap;

	st->n_fail++;
	st->n_other++;
	va_start(ap, fmt);
	vnote(fmt, ap);
	va_end(ap);
}

static void held(int err, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	st->n_fail++;
	if (err == ENOSYS)
		st->n_nosys++;
	else if (err == ENOENT || err == ENODEV || err == ENXIO || err == EAFNOSUPPORT)
		st->n_absent++;
	else if (err == EPERM || err == EACCES)
		st->n_denied++;
	else
		st->n_other++;
	note("%s: %s", what, en(err));
}

/* A call whose success or whose getting past the permission check is the
 * escape: see the header. */
static void reach(const char *what, long r, int err)
{
	if (r >= 0)
		esc("%s: ok", what);
	else if (err == EPERM || err == EACCES || err == ENOSYS)
		held(err, "%s", what);
	else
		esc("%s: %s (past the permission check)", what, en(err));
}

/* reach() of a call, errno read after it */
#define REACH(what, call)                                                                  \
	do {                                                                               \
		long r_ = (long)(call);                                                    \
		int e_ = errno;                                                            \
		reach(what, r_, e_);                                                       \
	} while (0)

static _Noreturn void finish(const char *na_reason)
{
	const char *v;

	if (st->escaped) {
		v = "ESCAPED";
	} else if (control && na_reason) {
		printf("NOTAPPLICABLE %s (%s)\n", na_reason, st->ev);
		exit(0);
	} else if (control && st->n_fail && st->n_fail == st->n_nosys) {
		printf("NOTAPPLICABLE the host kernel lacks it (%s)\n", st->ev);
		exit(0);
	} else if (control && st->n_fail && st->n_fail == st->n_absent + st->n_nosys) {
		printf("NOTAPPLICABLE not present on this host (%s)\n", st->ev);
		exit(0);
	} else if (control && geteuid() != 0 && st->n_fail &&
		   st->n_fail == st->n_absent + st->n_nosys + st->n_denied) {
		printf("NOTAPPLICABLE the host refuses it to uid %u without any jail (%s)\n",
		       (unsigned)geteuid(), st->ev);
		exit(0);
	} else {
		v = "CONTAINED";
	}
	printf("%s %s\n", v, st->len ? st->ev : "(no evidence)");
	exit(0);
}

static _Noreturn void usage_error(const char *msg)
{
	printf("ERROR %s\n", msg);
	exit(2);
}

static const char *arg(const char *key)
{
	size_t n = strlen(key);

	for (int i = 0; i < g_argc; i++)
		if (strncmp(g_argv[i], key, n) == 0 && g_argv[i][n] == '=')
			return g_argv[i] + n + 1;
	return NULL;
}

static const char *need(const char *key)
{
	const char *v = arg(key);
	static char msg[128];

	if (!v || !*v) {
		snprintf(msg, sizeof(msg), "missing argument %s=", key);
		usage_error(msg);
	}
	return v;
}

static long num(const char *key)
{
	return strtol(need(key), NULL, 0);
}

/* Run fn in a child with a deadline; returns its exit code (0..255), 254
 * when it died on a signal. */
static int in_child(int (*fn)(void *), void *a, unsigned seconds)
{
	pid_t p = fork();
	int status;

	if (p < 0)
		return errno;
	if (p == 0) {
		alarm(seconds);
		_exit(fn(a) & 0xff);
	}
	while (waitpid(p, &status, 0) < 0)
		if (errno != EINTR)
			return 254;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 254;
}

/* Read up to cap bytes of a file; -errno on failure. */
static ssize_t slurp(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	ssize_t n = 0, got = 0;

	if (fd < 0)
		return -errno;
	while ((size_t)got < cap - 1 && (n = read(fd, buf + got, cap - 1 - (size_t)got)) > 0)
		got += n;
	if (got == 0 && n < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	buf[got] = '\0';
	close(fd);
	return got;
}

static int contains(const char *buf, size_t len, const char *needle)
{
	return memmem(buf, len, needle, strlen(needle)) != NULL;
}

/* "dev:ino" of a path or descriptor */
static void devino_fd(int fd, char *out, size_t n)
{
	struct stat sb;

	if (fstat(fd, &sb) < 0)
		snprintf(out, n, "?");
	else
		snprintf(out, n, "%lu:%lu", (unsigned long)sb.st_dev, (unsigned long)sb.st_ino);
}

static void devino_path(const char *p, char *out, size_t n)
{
	struct stat sb;

	if (stat(p, &sb) < 0)
		snprintf(out, n, "?");
	else
		snprintf(out, n, "%lu:%lu", (unsigned long)sb.st_dev, (unsigned long)sb.st_ino);
}

/* A scratch directory in /tmp (the jail's own tmpfs; on the host, /tmp). */
static char scratch[64];

static void make_scratch(void)
{
	snprintf(scratch, sizeof(scratch), "/tmp/hx-scratch-XXXXXX");
	if (!mkdtemp(scratch)) {
		/* /tmp may be refused; the working directory then */
		snprintf(scratch, sizeof(scratch), "hx-scratch-XXXXXX");
		if (!mkdtemp(scratch))
			usage_error("no scratch directory");
	}
}

static void drop_scratch(void)
{
	rmdir(scratch);
}

/* unshare(CLONE_NEWUSER | extra) in the calling child; notes the outcome. */
static int enter_userns(int extra)
{
	if (unshare(CLONE_NEWUSER | extra) < 0) {
		int e = errno;

		held(e, "unshare(NEWUSER)");
		return e;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Files outside the jail */

static void p_host_read(void)
{
	const char *secret = need("secret");
	const char *dirs[] = { arg("canary"), arg("canary2"), arg("canary3") };
	char path[4096], buf[4096];

	for (size_t i = 0; i < 3; i++) {
		ssize_t n;

		if (!dirs[i])
			continue;
		snprintf(path, sizeof(path), "%s/secret", dirs[i]);
		n = slurp(path, buf, sizeof(buf));
		if (n < 0)
			held((int)-n, "read %s", path);
		else if (contains(buf, (size_t)n, secret))
			esc("read %s: the secret", path);
		else
			note("read %s: %zd bytes, not the secret", path, n);
	}
	finish(NULL);
}

static void p_host_write(void)
{
	const char *file = need("writable");
	const char *dirs[] = { arg("canary"), arg("canary2"), arg("canary3") };
	char path[4096];
	int fd = open(file, O_WRONLY | O_APPEND | O_CLOEXEC);

	if (fd < 0) {
		held(errno, "open %s for append", file);
	} else {
		ssize_t n = write(fd, "hx-escape-write\n", 16);

		if (n == 16)
			esc("appended to %s", file);
		else
			esc("opened %s for writing (write: %s)", file, n < 0 ? en(errno) : "short");
		close(fd);
	}
	for (size_t i = 0; i < 3; i++) {
		if (!dirs[i])
			continue;
		snprintf(path, sizeof(path), "%s/created-%d", dirs[i], (int)getpid());
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd < 0) {
			held(errno, "create %s", path);
		} else {
			esc("created %s", path);
			close(fd);
		}
	}
	finish(NULL);
}

/* Is this directory fd the host root? Read the canary through it. */
static void check_dir(int dfd, const char *how, const char *hostroot, const char *relsecret,
		      const char *secret)
{
	char di[64], buf[4096];
	int fd;

	devino_fd(dfd, di, sizeof(di));
	if (strcmp(di, hostroot) == 0)
		esc("%s is the host root (%s)", how, di);
	fd = openat(dfd, relsecret, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t n = read(fd, buf, sizeof(buf) - 1);

		if (n > 0 && contains(buf, (size_t)n, secret))
			esc("%s: read the canary", how);
		close(fd);
	} else if (strcmp(di, hostroot) != 0) {
		held(errno, "%s (%s): canary", how, di);
	}
}

static void p_host_traverse(void)
{
	const char *hostroot = need("hostroot"), *rel = need("relsecret"), *secret = need("secret");
	const char *paths[] = { "/..", "/../../../../..", "/proc/self/root/..", "/proc/1/root/..",
				"/proc/self/cwd/../../../../../../..", "/proc/1/cwd/../../../../../.." };
	char here[4096];
	int fd;

	if (!getcwd(here, sizeof(here)))
		snprintf(here, sizeof(here), "(%s)", en(errno));
	for (int i = 0; i < 64; i++)
		if (chdir("..") < 0)
			break;
	fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		check_dir(fd, "cwd after chdir(\"..\") x64", hostroot, rel, secret);
		close(fd);
	}
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		fd = open(paths[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0) {
			held(errno, "open %s", paths[i]);
			continue;
		}
		check_dir(fd, paths[i], hostroot, rel, secret);
		close(fd);
	}
	note("started in %s", here);
	finish(NULL);
}

static void p_cwd_leak(void)
{
	const char *canarydev = need("canarydev"), *secret = need("secret");
	char cwd[4096], di[64], buf[4096], link[4096];
	ssize_t n;

	if (getcwd(cwd, sizeof(cwd)))
		note("getcwd %s", cwd);
	else
		note("getcwd: %s", en(errno));
	devino_path(".", di, sizeof(di));
	if (strcmp(di, canarydev) == 0)
		esc("cwd is the caller's directory (%s)", di);
	else
		miss("cwd %s is not the caller's directory", di);
	n = slurp("secret", buf, sizeof(buf));
	if (n >= 0 && contains(buf, (size_t)n, secret))
		esc("read ./secret: the canary");
	else if (n < 0)
		held((int)-n, "read ./secret");
	n = readlink("/proc/self/cwd", link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = '\0';
		note("/proc/self/cwd -> %s", link);
	}
	finish(NULL);
}

static void p_fd_leak(void)
{
	const char *secret = need("secret");
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int self, seen = 0;

	if (!d) {
		/* without /proc: probe the numbers */
		held(errno, "opendir /proc/self/fd");
		for (int fd = 3; fd < 1024; fd++)
			if (fcntl(fd, F_GETFD) >= 0)
				esc("fd %d is open", fd);
		finish(NULL);
	}
	self = dirfd(d);
	while ((e = readdir(d))) {
		char path[64], link[4096], buf[4096];
		int fd = atoi(e->d_name);
		ssize_t n;

		if (e->d_name[0] == '.' || fd == self)
			continue;
		seen++;
		if (fd <= 2)
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n = readlink(path, link, sizeof(link) - 1);
		link[n > 0 ? n : 0] = '\0';
		n = pread(fd, buf, sizeof(buf) - 1, 0);
		esc("fd %d -> %s%s", fd, link,
		    n > 0 && contains(buf, (size_t)n, secret) ? " (holds the secret)" : "");
	}
	closedir(d);
	if (!st->escaped)
		miss("%d descriptors, none beyond 0-2", seen);
	finish(NULL);
}

/* ------------------------------------------------------------------ */
/* Host processes */

static void p_proc_root(void)
{
	long pid = num("sentinel");
	const char *rel = need("relsecret"), *secret = need("secret");
	char path[4096], buf[4096];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%ld/root/%s", pid, rel);
	n = slurp(path, buf, sizeof(buf));
	if (n >= 0 && contains(buf, (size_t)n, secret))
		esc("read %s: the canary", path);
	else
		held(n < 0 ? (int)-n : EBADMSG, "read %s", path);
	snprintf(path, sizeof(path), "/proc/%ld/cwd/secret", pid);
	n = slurp(path, buf, sizeof(buf));
	if (n >= 0 && contains(buf, (size_t)n, secret))
		esc("read %s: the canary", path);
	else
		held(n < 0 ? (int)-n : EBADMSG, "read %s", path);
	finish(NULL);
}

static int cmdline_has(const char *pid, const char *marker)
{
	char path[64], buf[8192];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%s/cmdline", pid);
	n = slurp(path, buf, sizeof(buf));
	return n > 0 && contains(buf, (size_t)n, marker);
}

static void p_proc_see(void)
{
	long pid = num("sentinel");
	const char *marker = need("marker");
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;
	char pidstr[32];

	if (!d) {
		held(errno, "opendir /proc");
	} else {
		while ((e = readdir(d))) {
			if (!isdigit((unsigned char)e->d_name[0]) || atoi(e->d_name) == getpid())
				continue; /* our own argv names the marker */
			n++;
			if (cmdline_has(e->d_name, marker))
				esc("pid %s carries the sentinel's marker", e->d_name);
		}
		closedir(d);
		if (!st->escaped)
			miss("marker in none of %d visible processes", n);
	}
	snprintf(pidstr, sizeof(pidstr), "%ld", pid);
	if (kill((pid_t)pid, 0) == 0 || errno == EPERM) {
		int e2 = errno;

		if (cmdline_has(pidstr, marker))
			esc("kill(%ld, 0) finds the sentinel", pid);
		else
			note("pid %ld exists here but is not the sentinel (%s)", pid, en(e2));
	} else {
		held(errno, "kill(%ld, 0)", pid);
	}
	finish(NULL);
}

static void p_proc_signal(void)
{
	long pid = num("sentinel");
	int pfd;

	if (kill((pid_t)pid, SIGUSR1) == 0)
		esc("kill(%ld, SIGUSR1) delivered", pid);
	else
		held(errno, "kill(%ld, SIGUSR1)", pid);
	pfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0);
	if (pfd < 0) {
		held(errno, "pidfd_open(%ld)", pid);
	} else {
		if (syscall(SYS_pidfd_send_signal, pfd, SIGUSR1, NULL, 0) == 0)
			esc("pidfd_send_signal(%ld, SIGUSR1) delivered", pid);
		else
			held(errno, "pidfd_send_signal(%ld)", pid);
		close(pfd);
	}
	finish(NULL);
}

static void p_ptrace(void)
{
	long pid = num("sentinel");
	const char *secret = need("secret");
	unsigned long addr = strtoul(need("addr"), NULL, 0);
	pid_t targets[2] = { (pid_t)pid, getppid() };
	char buf[256] = "";
	struct iovec local = { buf, strlen(secret) }, remote = { (void *)addr, strlen(secret) };
	ssize_t n;

	for (int i = 0; i < 2; i++) {
		if (targets[i] <= 0 || targets[i] == getpid() || (i == 1 && targets[1] == targets[0]))
			continue;
		if (ptrace(PTRACE_SEIZE, targets[i], 0, 0) == 0)
			esc("PTRACE_SEIZE pid %d", (int)targets[i]);
		else
			held(errno, "PTRACE_SEIZE pid %d", (int)targets[i]);
	}
	if (strlen(secret) < sizeof(buf)) {
		n = process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0);
		if (n > 0 && memcmp(buf, secret, strlen(secret)) == 0)
			esc("process_vm_readv read the sentinel's secret");
		else
			held(n < 0 ? errno : EBADMSG, "process_vm_readv(%ld)", pid);
		/* the same bytes written back where they were: no change */
		memcpy(buf, secret, strlen(secret));
		n = process_vm_writev((pid_t)pid, &local, 1, &remote, 1, 0);
		if (n > 0)
			esc("process_vm_writev wrote into the sentinel (its own bytes back)");
		else
			held(errno, "process_vm_writev(%ld)", pid);
	}
	finish(NULL);
}

static void p_proc_mem(void)
{
	long pid = num("sentinel");
	const char *secret = need("secret");
	unsigned long addr = strtoul(need("addr"), NULL, 0);
	char path[64], buf[8192];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/mem", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		held(errno, "open %s", path);
	} else {
		n = pread(fd, buf, strlen(secret), (off_t)addr);
		if (n > 0 && contains(buf, (size_t)n, secret))
			esc("read the sentinel's secret from %s", path);
		else
			held(n < 0 ? errno : EBADMSG, "pread %s", path);
		close(fd);
	}
	snprintf(path, sizeof(path), "/proc/%ld/environ", pid);
	n = slurp(path, buf, sizeof(buf));
	if (n > 0 && contains(buf, (size_t)n, secret))
		esc("read the sentinel's secret from %s", path);
	else
		held(n < 0 ? (int)-n : EBADMSG, "read %s", path);
	finish(NULL);
}

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

static void p_tcp_egress(void)
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

static void p_udp_egress(void)
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

static void p_unix_abstract(void)
{
	unix_connect(need("abstract"), 1, need("token"));
	finish(NULL);
}

static void p_unix_path(void)
{
	unix_connect(need("sock"), 0, need("token"));
	finish(NULL);
}

static void p_net_ifaces(void)
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

static void p_sysv_ipc(void)
{
	key_t key = (key_t)num("ipckey");
	int id = msgget(key, 0);

	if (id >= 0)
		esc("msgget(0x%x) found the sentinel's queue (id %d)", (unsigned)key, id);
	else
		held(errno, "msgget(0x%x)", (unsigned)key);
	finish(NULL);
}

/* AF_VSOCK is not covered by network namespaces: a jail that can create
 * one shares the host's vsock port space and reaches whatever answers on
 * vsock (the hypervisor's CID 2 in a VM, guests of this host, local
 * listeners with the loopback transport). The harness holds port vport
 * outside; a bind() of the same port that fails with EADDRINUSE proves
 * the jail sees the host's ports. Nothing is ever connected to. */
static long int80(long nr, long a, long b, long c);
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

static void p_vsock(void)
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

static void p_tiocsti(void)
{
	tty_probe(TIOCSTI, "TIOCSTI", 0);
	finish(NULL);
}

static void p_tiocsti_highbit(void)
{
	tty_probe((1UL << 32) | TIOCSTI, "TIOCSTI|1<<32", 0);
	finish(NULL);
}

static void p_tioclinux(void)
{
	tty_probe(TIOCLINUX, "TIOCLINUX", 1);
	finish("no virtual console is reachable for this user on the host");
}

static void p_tioclinux_highbit(void)
{
	tty_probe((1UL << 32) | TIOCLINUX, "TIOCLINUX|1<<32", 1);
	finish("no virtual console is reachable for this user on the host");
}

/* ------------------------------------------------------------------ */
/* Lifetime and bombs */

static void name_self(const char *marker)
{
	prctl(PR_SET_NAME, marker, 0, 0, 0);
}

/* A lingerer: new session, SIGTERM/HUP/INT ignored, named marker; sleeps at
 * most 30 s so that a failure never leaves it around for long. keep_stdout
 * keeps the output pipe open (a hutch that waits for EOF would hang). */
static void spawn_lingerer(const char *marker, int keep_stdout)
{
	pid_t p = fork();

	if (p == 0) {
		setsid();
		if (fork() == 0) {
			int null = open("/dev/null", O_RDWR);

			signal(SIGTERM, SIG_IGN);
			signal(SIGHUP, SIG_IGN);
			signal(SIGINT, SIG_IGN);
			signal(SIGPIPE, SIG_IGN);
			name_self(marker);
			if (null >= 0) {
				dup2(null, 0);
				if (!keep_stdout)
					dup2(null, 1);
				dup2(null, 2);
			}
			for (int i = 0; i < 30; i++)
				sleep(1);
			_exit(0);
		}
		_exit(0);
	}
	if (p > 0)
		waitpid(p, NULL, 0);
}

static void p_outlive(void)
{
	const char *marker = need("lmarker");

	spawn_lingerer(marker, 0);
	spawn_lingerer(marker, 1);
	note("two lingerers named %s started (setsid, double fork, SIGTERM ignored); the harness looks for them",
	     marker);
	finish(NULL);
}

static void p_outlive_timeout(void)
{
	const char *marker = need("lmarker");

	spawn_lingerer(marker, 0);
	spawn_lingerer(marker, 1);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	printf("CONTAINED lingerers named %s started; probe ignores SIGTERM and outstays the timeout\n",
	       marker);
	fflush(stdout);
	for (int i = 0; i < 60; i++)
		sleep(1);
	exit(0);
}

static void p_fork_bomb(void)
{
	const char *marker = need("lmarker");
	long cap = 4 * num("procs");
	long n = 0;
	int err = 0;

	signal(SIGCHLD, SIG_DFL);
	for (; n < cap; n++) {
		pid_t p = fork();

		if (p == 0) {
			name_self(marker);
			alarm(60); /* bounded even if nothing else kills it */
			for (;;)
				pause();
		}
		if (p < 0) {
			err = errno;
			break;
		}
	}
	if (n >= cap)
		esc("forked %ld processes, 4x the policy's %ld, without refusal", n, cap / 4);
	else
		held(err, "fork #%ld refused", n + 1);
	note("children named %s left running for the harness to look for", marker);
	finish(NULL);
}

/* Allocate and touch up to cap MiB in 16 MiB steps; returns MiB held. */
static long touch_mib(long cap, int *err)
{
	long got = 0;

	*err = 0;
	while (got < cap) {
		char *p = mmap(NULL, 16 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			       -1, 0);

		if (p == MAP_FAILED) {
			*err = errno;
			break;
		}
		for (size_t i = 0; i < (16u << 20); i += 4096)
			p[i] = 1;
		got += 16;
	}
	return got;
}

static void p_mem_bomb(void)
{
	long limit = num("mem"), got;
	int err;

	got = touch_mib(2 * limit, &err);
	if (got >= 2 * limit)
		esc("touched %ld MiB, twice the policy's %ld MiB", got, limit);
	else
		held(err, "mmap refused after %ld MiB (limit %ld MiB)", got, limit);
	finish(NULL);
}

static void p_mem_bomb_multi(void)
{
	long limit = num("mem"), each = limit * 3 / 4, total = 0, max1 = 0;
	long *got = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int go[2], done[2];
	pid_t kids[4];
	int n = 0;

	if (got == MAP_FAILED || pipe(go) < 0 || pipe(done) < 0)
		usage_error("no shared page");
	for (int i = 0; i < 4; i++) {
		pid_t p = fork();

		if (p == 0) {
			int err;
			char c;

			close(go[1]);
			got[i] = touch_mib(each, &err);
			(void)!write(done[1], "x", 1);
			(void)!read(go[0], &c, 1); /* hold it until the parent has summed */
			_exit(0);
		}
		if (p < 0) {
			held(errno, "fork #%d", i + 1);
			break;
		}
		kids[n++] = p;
	}
	close(done[1]); /* a child killed before it reports ends the wait */
	for (int i = 0; i < n; i++) {
		char c;

		if (read(done[0], &c, 1) != 1)
			break;
	}
	for (int i = 0; i < n; i++) {
		total += got[i];
		if (got[i] > max1)
			max1 = got[i];
	}
	close(go[1]);
	for (int i = 0; i < n; i++)
		waitpid(kids[i], NULL, 0);
	if (max1 > limit)
		esc("one process held %ld MiB > %ld MiB", max1, limit);
	note("%d processes held %ld MiB together (largest %ld MiB; memory limit %ld MiB per process)",
	     n, total, max1, limit);
	if (!st->escaped)
		miss("per-process bound held");
	printf("%s %s aggregate_mib=%ld\n", st->escaped ? "ESCAPED" : "CONTAINED", st->ev, total);
	exit(0);
}

static void p_disk_fill(void)
{
	long limit = num("disk");
	const char *files[] = { "/work/hx-fill", "/tmp/hx-fill", "/dev/shm/hx-fill" };
	static char chunk[1 << 20];

	signal(SIGXFSZ, SIG_IGN);
	memset(chunk, 'x', sizeof(chunk));
	for (size_t i = 0; i < 3; i++) {
		int fd = open(files[i], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		long mib = 0;
		int err = 0;

		if (fd < 0) {
			held(errno, "create %s", files[i]);
			continue;
		}
		while (mib < 2 * limit) {
			ssize_t w = write(fd, chunk, sizeof(chunk));

			if (w != (ssize_t)sizeof(chunk)) {
				err = w < 0 ? errno : ENOSPC;
				break;
			}
			mib++;
		}
		if (mib >= 2 * limit)
			esc("%s took %ld MiB, twice the policy's %ld MiB", files[i], mib, limit);
		else
			held(err, "%s stopped at %ld MiB", files[i], mib);
		close(fd);
		unlink(files[i]); /* the next file gets the room back */
	}
	finish(NULL);
}

/* ------------------------------------------------------------------ */
/* The helper and frontend through /proc */

static int pid_targets(pid_t *t)
{
	const char *s = arg("sentinel");
	pid_t cand[3] = { 1, getppid(), s ? (pid_t)atol(s) : 0 };
	int n = 0;

	for (int i = 0; i < 3; i++) {
		int dup = 0;

		if (cand[i] <= 0 || cand[i] == getpid())
			continue;
		for (int k = 0; k < n; k++)
			dup |= t[k] == cand[i];
		if (!dup)
			t[n++] = cand[i];
	}
	return n;
}

static void p_helper_exe(void)
{
	pid_t t[3];
	int n = pid_targets(t);

	for (int i = 0; i < n; i++) {
		char path[64], link[4096], re[64];
		ssize_t l;
		int fd, w;

		/* pid 1 on the host is init: it is left alone */
		if (control && t[i] == 1)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/exe", (int)t[i]);
		l = readlink(path, link, sizeof(link) - 1);
		link[l > 0 ? l : 0] = '\0';
		fd = open(path, O_PATH | O_CLOEXEC);
		if (fd < 0) {
			held(errno, "O_PATH %s", path);
			continue;
		}
		snprintf(re, sizeof(re), "/proc/self/fd/%d", fd);
		w = open(re, O_WRONLY | O_CLOEXEC);
		if (w >= 0) {
			esc("%s (%s): a writable descriptor, nothing written", path, link);
			close(w);
		} else {
			esc("%s (%s): an O_PATH handle (reopen for writing: %s)", path, link,
			    en(errno));
		}
		w = open(re, O_RDONLY | O_CLOEXEC);
		if (w >= 0)
			close(w);
		close(fd);
	}
	finish(NULL);
}

static void p_helper_fds(void)
{
	pid_t t[3];
	int n = pid_targets(t);

	for (int i = 0; i < n; i++) {
		char path[64], sub[384];
		DIR *d;
		struct dirent *e;
		int fd, opened = 0;

		if (control && t[i] == 1)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fd", (int)t[i]);
		d = opendir(path);
		if (!d) {
			held(errno, "opendir %s", path);
		} else {
			while ((e = readdir(d))) {
				if (e->d_name[0] == '.')
					continue;
				snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
				fd = open(sub, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
				if (fd < 0)
					fd = open(sub, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
				if (fd >= 0) {
					opened++;
					close(fd);
				}
			}
			closedir(d);
			if (opened)
				esc("reopened %d of the descriptors in %s", opened, path);
			else
				miss("listed %s, reopened none", path);
		}
		fd = (int)syscall(SYS_pidfd_open, t[i], 0);
		if (fd < 0) {
			held(errno, "pidfd_open(%d)", (int)t[i]);
		} else {
			int took = 0, last = 0;

			for (int k = 0; k < 16; k++) {
				int g = (int)syscall(SYS_pidfd_getfd, fd, k, 0);

				if (g >= 0) {
					took++;
					close(g);
				} else if (errno != EBADF) {
					last = errno;
				}
			}
			if (took)
				esc("pidfd_getfd took %d descriptors of pid %d", took, (int)t[i]);
			else
				held(last ? last : EBADF, "pidfd_getfd(pid %d)", (int)t[i]);
			close(fd);
		}
		snprintf(path, sizeof(path), "/proc/%d/environ", (int)t[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			esc("opened %s", path);
			close(fd);
		} else {
			held(errno, "open %s", path);
		}
		snprintf(path, sizeof(path), "/proc/%d/mem", (int)t[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			esc("opened %s", path);
			close(fd);
		} else {
			held(errno, "open %s", path);
		}
	}
	finish(NULL);
}

/* ------------------------------------------------------------------ */
/* Writable places that execute */

static void try_exec_copy(const char *dir)
{
	char path[256], buf[65536];
	int in, out, fd;
	ssize_t n;
	pid_t p;
	int status;
	void *m;

	snprintf(path, sizeof(path), "%s/hx-exec-%d", dir, (int)getpid());
	in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	out = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0755);
	if (in < 0 || out < 0) {
		held(errno, "copy to %s", path);
		if (in >= 0)
			close(in);
		if (out >= 0)
			close(out);
		return;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			break;
	close(in);
	close(out);
	p = fork();
	if (p == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 1);
		execl(path, path, "--list", (char *)NULL);
		_exit(errno & 0x7f);
	}
	if (p > 0 && waitpid(p, &status, 0) == p && WIFEXITED(status) && WEXITSTATUS(status) == 0)
		esc("execve %s: ran", path);
	else
		held(WIFEXITED(status) ? WEXITSTATUS(status) : EINTR, "execve %s", path);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		m = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
		if (m != MAP_FAILED) {
			esc("mmap PROT_EXEC of %s: ok", path);
			munmap(m, 4096);
		} else {
			held(errno, "mmap PROT_EXEC of %s", path);
		}
		close(fd);
	}
	unlink(path);
}

static void p_noexec(void)
{
	const char *dirs[] = { ".", "/tmp", "/dev/shm" }; /* "." is /work in a jail */

	for (size_t i = 0; i < 3; i++)
		if (access(dirs[i], W_OK) == 0)
			try_exec_copy(dirs[i]);
		else
			held(errno, "write to %s", dirs[i]);
	/* a memfd executes anywhere (the harness starts the probes that way);
	 * anonymous PROT_EXEC memory does too: noted, not an escape */
	note("memfd exec and anonymous PROT_EXEC memory remain (not a mount property)");
	finish(NULL);
}

static int c_ioperm(void *a)
{
	(void)a;
	REACH("iopl(3)", syscall(SYS_iopl, 3));
	REACH("ioperm(0x80, 1, on)", syscall(SYS_ioperm, 0x80UL, 1UL, 1));
	return 0; /* the child exits: nothing was touched */
}

static void p_ioperm(void)
{
	in_child(c_ioperm, NULL, 10);
	finish(NULL);
}

static void p_obscure_calls(void)
{
	char ubuf[64];

	REACH("acct of a missing file", syscall(SYS_acct, "/hx-no-such-acct-file"));
	REACH("uselib of a missing file", syscall(SYS_uselib, "/hx-no-such-lib"));
	REACH("ustat(0)", syscall(SYS_ustat, 0UL, ubuf));
	REACH("sysfs(3)", syscall(SYS_sysfs, 3));
	{
		long r = syscall(SYS_fanotify_init, 0x200UL /* FAN_REPORT_FID */, O_RDONLY);
		int e = errno;

		reach("fanotify_init(FAN_REPORT_FID)", r, e);
		if (r >= 0)
			close((int)r);
	}
	finish(NULL);
}

/* ------------------------------------------------------------------ */
/* setuid */

static void status_ids(pid_t p, char *name, size_t nn, char *uid, size_t un)
{
	char path[64], buf[4096], *l;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)p);
	name[0] = uid[0] = '\0';
	if (slurp(path, buf, sizeof(buf)) < 0)
		return;
	if ((l = strstr(buf, "Name:\t")))
		snprintf(name, nn, "%.*s", (int)strcspn(l + 6, "\n"), l + 6);
	if ((l = strstr(buf, "Uid:\t")))
		snprintf(uid, un, "%.*s", (int)strcspn(l + 5, "\n"), l + 5);
	for (char *c = uid; *c; c++)
		if (*c == '\t')
			*c = ' ';
}

static void p_setuid(void)
{
	const char *cands[] = { "/usr/bin/passwd", "/usr/bin/su", "/usr/bin/newgrp",
				"/usr/bin/chfn", "/usr/bin/gpasswd", "/bin/su" };
	int tried = 0;

	for (size_t i = 0; i < sizeof(cands) / sizeof(cands[0]) && tried < 2; i++) {
		struct stat sb;
		int in[2];
		pid_t p;
		const char *base = strrchr(cands[i], '/') + 1;
		char name[64], uid[128];
		unsigned r, e;

		/* in a jail the owner shows as the overflow uid: root is unmapped */
		if (stat(cands[i], &sb) < 0 || !(sb.st_mode & S_ISUID))
			continue;
		tried++;
		if (pipe(in) < 0)
			usage_error("pipe");
		p = fork();
		if (p == 0) {
			int null = open("/dev/null", O_RDWR);

			dup2(in[0], 0);
			dup2(null, 1);
			dup2(null, 2);
			execl(cands[i], cands[i], (char *)NULL);
			_exit(127);
		}
		close(in[0]);
		name[0] = uid[0] = '\0';
		for (int k = 0; k < 300; k++) { /* up to 3 s for the exec */
			status_ids(p, name, sizeof(name), uid, sizeof(uid));
			if (strncmp(name, base, 15) == 0)
				break;
			usleep(10000);
		}
		usleep(20000);
		status_ids(p, name, sizeof(name), uid, sizeof(uid));
		kill(p, SIGKILL);
		close(in[1]);
		waitpid(p, NULL, 0);
		if (strncmp(name, base, 15) != 0) {
			miss("%s did not run (Name %s)", cands[i], name);
			continue;
		}
		if (sscanf(uid, "%u %u", &r, &e) == 2 && r != e)
			esc("%s (owner %u) ran with Uid %s: euid %u", cands[i], (unsigned)sb.st_uid, uid, e);
		else
			miss("%s (owner %u) ran with Uid %s: no gain", cands[i], (unsigned)sb.st_uid, uid);
	}
	if (!tried)
		note("no setuid-root binary found");
	finish(geteuid() == 0 ? "the caller is root already" : NULL);
}

/* ------------------------------------------------------------------ */
/* Capabilities and privileged calls */

static int c_mount(void *a)
{
	(void)a;
	if (unshare(CLONE_NEWNS) == 0) {
		esc("unshare(NEWNS): ok");
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
			held(errno, "make / private");
			return 1; /* never mount where it could propagate */
		}
	} else {
		held(errno, "unshare(NEWNS)");
	}
	if (mount("hx", scratch, "tmpfs", 0, "size=1m") == 0) {
		esc("mount tmpfs on %s: ok", scratch);
		umount2(scratch, MNT_DETACH);
	} else {
		held(errno, "mount tmpfs");
	}
	REACH("umount2 of a non-mount", umount2(scratch, 0));
	return 0;
}

static int c_mount_userns(void *a)
{
	(void)a;
	if (enter_userns(CLONE_NEWNS))
		return 1;
	esc("unshare(NEWUSER|NEWNS): ok");
	if (mount("hx", scratch, "tmpfs", 0, "size=1m") == 0)
		esc("mount tmpfs in a new user namespace: ok");
	else
		held(errno, "mount tmpfs in a new user namespace");
	return 0;
}

static void p_mount(void)
{
	make_scratch();
	in_child(c_mount, NULL, 10);
	in_child(c_mount_userns, NULL, 10);
	drop_scratch();
	finish(NULL);
}

static int c_unshare_user(void *a)
{
	(void)a;
	REACH("unshare(CLONE_NEWUSER)", unshare(CLONE_NEWUSER));
	return 0;
}

static int c_clone_user(void *a)
{
	long r;

	(void)a;
	r = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, NULL, NULL, NULL, NULL);
	if (r == 0)
		_exit(0);
	reach("clone(CLONE_NEWUSER)", r, errno);
	if (r > 0)
		waitpid((pid_t)r, NULL, 0);
	return 0;
}

static int c_clone3_user(void *a)
{
	struct clone_args ca = { .flags = CLONE_NEWUSER, .exit_signal = SIGCHLD };
	long r;

	(void)a;
	r = syscall(SYS_clone3, &ca, sizeof(ca));
	if (r == 0)
		_exit(0);
	reach("clone3(CLONE_NEWUSER)", r, errno);
	if (r > 0)
		waitpid((pid_t)r, NULL, 0);
	return 0;
}

static void p_userns(void)
{
	in_child(c_unshare_user, NULL, 10);
	in_child(c_clone_user, NULL, 10);
	in_child(c_clone3_user, NULL, 10);
	finish(NULL);
}

static const char *g_hostroot;

static void chroot_escape(const char *how)
{
	char d[128], di[64];

	snprintf(d, sizeof(d), "%s/d", scratch);
	mkdir(d, 0700);
	if (chroot(d) < 0) {
		held(errno, "chroot %s", how);
		return;
	}
	/* the classic: cwd is outside the new root; walk up, chroot there */
	for (int i = 0; i < 64; i++)
		if (chdir("..") < 0)
			break;
	if (chroot(".") < 0) {
		esc("chroot %s: ok (second chroot: %s)", how, en(errno));
		return;
	}
	devino_path("/", di, sizeof(di));
	esc("chroot %s: ok, then \"..\" x64 and chroot(\".\") reached %s%s", how, di,
	    g_hostroot && strcmp(di, g_hostroot) == 0 ? " = the host root" : "");
}

static int c_chroot(void *a)
{
	(void)a;
	chroot_escape("directly");
	return 0;
}

static int c_chroot_userns(void *a)
{
	(void)a;
	if (enter_userns(0))
		return 1;
	chroot_escape("in a new user namespace");
	return 0;
}

static void p_chroot(void)
{
	char d[128];

	g_hostroot = arg("hostroot");
	make_scratch();
	in_child(c_chroot, NULL, 10);
	in_child(c_chroot_userns, NULL, 10);
	snprintf(d, sizeof(d), "%s/d", scratch);
	rmdir(d);
	drop_scratch();
	finish(NULL);
}

static int c_pivot(void *a)
{
	char p[64];

	snprintf(p, sizeof(p), "/hx-no-such-dir-%d", (int)getpid());
	if (a && enter_userns(CLONE_NEWNS))
		return 1;
	REACH(a ? "pivot_root in a new user namespace" : "pivot_root",
	      syscall(SYS_pivot_root, p, p));
	return 0;
}

static void p_pivot_root(void)
{
	in_child(c_pivot, NULL, 10);
	in_child(c_pivot, (void *)1, 10);
	finish(NULL);
}

static void p_mknod(void)
{
	struct {
		const char *name;
		mode_t mode;
		dev_t dev;
	} nodes[] = { { "mem", S_IFCHR | 0600, makedev(1, 1) },
		      { "loop0", S_IFBLK | 0600, makedev(7, 0) } };

	make_scratch();
	for (size_t i = 0; i < 2; i++) {
		char p[128];

		snprintf(p, sizeof(p), "%s/%s", scratch, nodes[i].name);
		if (mknod(p, nodes[i].mode, nodes[i].dev) == 0) {
			int fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

			esc("mknod %s %u:%u: ok (open: %s)", nodes[i].name, major(nodes[i].dev),
			    minor(nodes[i].dev), fd >= 0 ? "ok" : en(errno));
			if (fd >= 0)
				close(fd);
			unlink(p);
		} else {
			held(errno, "mknod %s", nodes[i].name);
		}
	}
	drop_scratch();
	finish(NULL);
}

static int c_sethostname_userns(void *a)
{
	char name[65];

	(void)a;
	memset(name, 'x', sizeof(name));
	if (enter_userns(CLONE_NEWUTS))
		return 1;
	REACH("sethostname in a new user namespace", sethostname(name, sizeof(name)));
	return 0;
}

static void p_sethostname(void)
{
	char name[65];
	struct utsname before, after;

	memset(name, 'x', sizeof(name)); /* > 64: EINVAL once the check passed */
	uname(&before);
	REACH("sethostname (65 bytes)", sethostname(name, sizeof(name)));
	REACH("setdomainname (65 bytes)", setdomainname(name, sizeof(name)));
	in_child(c_sethostname_userns, NULL, 10);
	uname(&after);
	if (strcmp(before.nodename, after.nodename) != 0)
		esc("hostname changed from %s to %s", before.nodename, after.nodename);
	else
		note("hostname still %s", after.nodename);
	finish(NULL);
}

static void p_keyctl(void)
{
	long r;

	r = syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -4 /* KEY_SPEC_USER_KEYRING */, 0);
	reach("keyctl(GET_KEYRING_ID, user keyring)", r, errno);
	r = syscall(SYS_add_key, "hx-no-such-type", "hx", "x", 1, -2 /* process keyring */);
	reach("add_key of an unknown type", r, errno);
	r = syscall(SYS_request_key, "user", "hx-no-such-key", NULL, 0);
	reach("request_key of a missing key", r, errno);
	finish(NULL);
}

static void p_bpf(void)
{
	union {
		struct {
			uint32_t map_type, key_size, value_size, max_entries;
		} m;
		char pad[128];
	} attr;
	long r;

	memset(&attr, 0, sizeof(attr));
	attr.m.map_type = 2; /* BPF_MAP_TYPE_ARRAY */
	attr.m.key_size = 4;
	attr.m.value_size = 4;
	attr.m.max_entries = 1;
	r = syscall(SYS_bpf, 0 /* BPF_MAP_CREATE */, &attr, sizeof(attr));
	reach("bpf(BPF_MAP_CREATE)", r, errno);
	if (r >= 0)
		close((int)r);
	memset(&attr, 0, sizeof(attr));
	r = syscall(SYS_bpf, 0x7fff, &attr, sizeof(attr));
	reach("bpf(invalid command)", r, errno);
	finish(NULL);
}

static void p_perf(void)
{
	struct perf_event_attr pa;
	long r;

	memset(&pa, 0, sizeof(pa));
	pa.type = PERF_TYPE_SOFTWARE;
	pa.size = sizeof(pa);
	pa.config = PERF_COUNT_SW_TASK_CLOCK;
	pa.exclude_kernel = 1;
	pa.exclude_hv = 1;
	pa.disabled = 1;
	r = syscall(SYS_perf_event_open, &pa, 0, -1, -1, 0);
	reach("perf_event_open(task-clock, self)", r, errno);
	if (r >= 0)
		close((int)r);
	finish(NULL);
}

static void p_userfaultfd(void)
{
	long r = syscall(SYS_userfaultfd, O_CLOEXEC | 1 /* UFFD_USER_MODE_ONLY */);
	int fd;

	reach("userfaultfd(UFFD_USER_MODE_ONLY)", r, errno);
	if (r >= 0)
		close((int)r);
	fd = open("/dev/userfaultfd", O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		esc("open /dev/userfaultfd: ok");
		close(fd);
	} else {
		held(errno, "open /dev/userfaultfd");
	}
	finish(NULL);
}

static void p_io_uring(void)
{
	char params[120]; /* struct io_uring_params */
	long r;

	memset(params, 0, sizeof(params));
	r = syscall(SYS_io_uring_setup, 2, params);
	reach("io_uring_setup(2)", r, errno);
	if (r >= 0)
		close((int)r);
	finish(NULL);
}

static void p_kexec(void)
{
	/* 17 segments > KEXEC_SEGMENT_MAX and a foreign architecture: EINVAL
	 * once the permission check passed; nothing is ever loaded. */
	long r = syscall(SYS_kexec_load, 0UL, 17UL, NULL, 40UL << 16);

	reach("kexec_load (17 segments, foreign arch)", r, errno);
	r = syscall(SYS_kexec_file_load, -1, -1, 0UL, "", 0x80000000UL);
	reach("kexec_file_load (bad flags)", r, errno);
	finish(NULL);
}

static void p_modules(void)
{
	static char img[64];
	long r;

	r = syscall(SYS_init_module, img, 0UL, "");
	reach("init_module (empty image)", r, errno);
	r = syscall(SYS_finit_module, -1, "", 0);
	reach("finit_module(-1)", r, errno);
	r = syscall(SYS_delete_module, "hx_no_such_module", O_NONBLOCK);
	reach("delete_module of a missing module", r, errno);
	finish(NULL);
}

static void p_shocker(void)
{
	const char *hostroot = need("hostroot"), *rel = need("relsecret"), *secret = need("secret");
	struct {
		struct file_handle fh;
		unsigned char buf[128];
	} h;
	int mount_id, mfd, fd;
	char di[64], buf[4096];

	memset(&h, 0, sizeof(h));
	h.fh.handle_bytes = sizeof(h.buf);
	if (name_to_handle_at(AT_FDCWD, "/usr", &h.fh, &mount_id, 0) == 0)
		esc("name_to_handle_at(/usr): ok (type %d)", h.fh.handle_type);
	else
		held(errno, "name_to_handle_at(/usr)");
	/* The host root directory of an ext2/3/4 root: inode 2, generation 0
	 * (FILEID_INO32_GEN), opened relative to any fd on that filesystem. */
	memset(&h, 0, sizeof(h));
	h.fh.handle_bytes = 8;
	h.fh.handle_type = 1;
	h.buf[0] = 2;
	mfd = open("/usr", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (mfd < 0) {
		held(errno, "open /usr");
		finish(NULL);
	}
	fd = open_by_handle_at(mfd, &h.fh, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		held(errno, "open_by_handle_at(inode 2)");
	} else {
		devino_fd(fd, di, sizeof(di));
		esc("open_by_handle_at(inode 2): ok, %s%s", di,
		    strcmp(di, hostroot) == 0 ? " = the host root" : "");
		int cf = openat(fd, rel, O_RDONLY | O_CLOEXEC);
		if (cf >= 0) {
			ssize_t n = read(cf, buf, sizeof(buf) - 1);

			if (n > 0 && contains(buf, (size_t)n, secret))
				esc("read the canary through the handle");
			close(cf);
		}
		close(fd);
	}
	close(mfd);
	finish(NULL);
}

static int c_newmount(void *a)
{
	struct hx_mount_attr ma = { .attr_clr = HX_MOUNT_ATTR_RDONLY };
	long r, t;

	if (a) {
		if (enter_userns(CLONE_NEWNS))
			return 1;
		r = syscall(SYS_fsopen, "tmpfs", HX_FSOPEN_CLOEXEC);
		reach("fsopen(tmpfs) in a new user namespace", r, errno);
		return 0;
	}
	r = syscall(SYS_fsopen, "tmpfs", HX_FSOPEN_CLOEXEC);
	reach("fsopen(tmpfs)", r, errno);
	r = syscall(SYS_fspick, AT_FDCWD, "/usr", HX_FSPICK_CLOEXEC);
	reach("fspick(/usr)", r, errno);
	t = syscall(SYS_open_tree, AT_FDCWD, "/usr", HX_OPEN_TREE_CLONE | HX_OPEN_TREE_CLOEXEC);
	reach("open_tree(/usr, CLONE)", t, errno);
	if (t >= 0) {
		/* only the detached clone: the source mount is untouched */
		r = syscall(SYS_mount_setattr, (int)t, "", AT_EMPTY_PATH, &ma, sizeof(ma));
		reach("mount_setattr(clone, clear RDONLY)", r, errno);
		close((int)t);
	}
	r = syscall(SYS_move_mount, -1, "", -1, "", 0);
	reach("move_mount(-1)", r, errno);
	r = syscall(SYS_fsmount, -1, 0, 0);
	reach("fsmount(-1)", r, errno);
	return 0;
}

static void p_new_mount_api(void)
{
	in_child(c_newmount, NULL, 10);
	in_child(c_newmount, (void *)1, 10);
	finish(NULL);
}

static void p_personality(void)
{
	int old = personality(0xffffffff);
	long r = syscall(SYS_personality, READ_IMPLIES_EXEC | ADDR_NO_RANDOMIZE);

	reach("personality(READ_IMPLIES_EXEC|ADDR_NO_RANDOMIZE)", r, errno);
	if (r >= 0)
		personality((unsigned long)old);
	finish(NULL);
}

static void p_clock(void)
{
	struct timex tx = { .modes = ADJ_TICK, .tick = 1 };
	struct timespec now;
	long r;

	/* with CAP_SYS_TIME a tick of 1 is EINVAL; without, EPERM */
	r = syscall(SYS_adjtimex, &tx);
	reach("adjtimex(ADJ_TICK, tick 1)", r, errno);
	tx = (struct timex){ .modes = ADJ_TICK, .tick = 1 };
	r = syscall(SYS_clock_adjtime, CLOCK_REALTIME, &tx);
	reach("clock_adjtime(REALTIME, ADJ_TICK, tick 1)", r, errno);
	r = syscall(SYS_settimeofday, NULL, NULL); /* a no-op once permitted */
	reach("settimeofday(NULL, NULL)", r, errno);
	clock_gettime(CLOCK_MONOTONIC, &now);
	r = syscall(SYS_clock_settime, CLOCK_MONOTONIC, &now); /* never settable */
	reach("clock_settime(MONOTONIC)", r, errno);
	finish(NULL);
}

static void p_reboot(void)
{
	long r = syscall(SYS_reboot, LINUX_REBOOT_MAGIC1, 0x12345678, LINUX_REBOOT_CMD_CAD_OFF,
			 NULL);

	reach("reboot (bad magic2)", r, errno);
	finish(NULL);
}

static void p_swap(void)
{
	REACH("swapon of a missing file", swapon("/hx-no-such-swapfile", 0));
	REACH("swapoff of a missing file", swapoff("/hx-no-such-swapfile"));
	finish(NULL);
}

static int c_nice(void *a)
{
	struct sched_param sp = { .sched_priority = 1 };

	(void)a;
	if (setpriority(PRIO_PROCESS, 0, -5) == 0)
		esc("setpriority -5: ok");
	else
		held(errno, "setpriority -5");
	if (sched_setscheduler(0, SCHED_FIFO, &sp) == 0)
		esc("SCHED_FIFO: ok");
	else
		held(errno, "SCHED_FIFO");
	return 0;
}

static void p_nice(void)
{
	in_child(c_nice, NULL, 10);
	finish(NULL);
}

static int c_rlimit(void *a)
{
	static const struct {
		int res;
		const char *name;
	} rs[] = { { RLIMIT_NPROC, "NPROC" },
		   { RLIMIT_NOFILE, "NOFILE" },
		   { RLIMIT_AS, "AS" },
		   { RLIMIT_CPU, "CPU" },
		   { RLIMIT_FSIZE, "FSIZE" } };

	(void)a;
	for (size_t i = 0; i < sizeof(rs) / sizeof(rs[0]); i++) {
		struct rlimit rl;

		if (getrlimit(rs[i].res, &rl) < 0) {
			held(errno, "getrlimit %s", rs[i].name);
			continue;
		}
		if (rl.rlim_max == RLIM_INFINITY) {
			esc("%s hard limit is unlimited", rs[i].name);
			continue;
		}
		rl.rlim_max += 1;
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(rs[i].res, &rl) == 0)
			esc("raised %s hard limit to %llu", rs[i].name,
			    (unsigned long long)rl.rlim_max);
		else
			held(errno, "raise %s", rs[i].name);
	}
	{
		/* lowering it below 0 needs CAP_SYS_RESOURCE; this child only */
		int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);

		if (fd < 0)
			held(errno, "open oom_score_adj");
		else if (write(fd, "-1000", 5) == 5)
			esc("oom_score_adj -1000: ok");
		else
			held(errno, "oom_score_adj -1000");
		if (fd >= 0)
			close(fd);
	}
	return 0;
}

static void p_rlimit(void)
{
	in_child(c_rlimit, NULL, 10);
	finish(NULL);
}

static void open_for_write(const char *path)
{
	int fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd >= 0) {
		esc("%s open for writing (nothing written)", path);
		close(fd);
	} else {
		held(errno, "open %s for writing", path);
	}
}

static void p_proc_sys(void)
{
	const char *files[] = { "/proc/sys/kernel/core_pattern", "/proc/sys/kernel/modprobe",
				"/proc/sys/vm/drop_caches", "/proc/sys/kernel/hostname",
				"/proc/sys/kernel/sysrq" };

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		open_for_write(files[i]);
	finish(NULL);
}

static void p_sysrq(void)
{
	open_for_write("/proc/sysrq-trigger");
	finish(NULL);
}

static void p_cgroup(void)
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

static void p_dev_block(void)
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

static void open_for_read(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd >= 0) {
		esc("opened %s", path);
		close(fd);
	} else {
		held(errno, "open %s", path);
	}
}

static void p_dev_mem(void)
{
	const char *f[] = { "/dev/mem", "/dev/kmem", "/dev/port", "/proc/kcore" };

	for (size_t i = 0; i < 4; i++)
		open_for_read(f[i]);
	finish(NULL);
}

static void p_kmsg(void)
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

static void p_dev_other(void)
{
	const char *f[] = { "/dev/kvm", "/dev/fuse", "/dev/net/tun", "/dev/loop-control",
			    "/dev/btrfs-control", "/dev/uinput", "/dev/vhost-net",
			    "/dev/autofs", "/dev/hwrng", "/dev/cpu/0/msr", "/dev/vsock" };

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		open_for_read(f[i]);
	finish(NULL);
}

extern char **environ;

static void p_env_leak(void)
{
	const char *secret = need("secret");
	char buf[65536];
	ssize_t n;
	int count = 0;

	for (char **e = environ; *e; e++, count++)
		if (strstr(*e, secret))
			esc("environ holds %.*s=...", (int)strcspn(*e, "="), *e);
	n = slurp("/proc/self/environ", buf, sizeof(buf));
	if (n > 0 && contains(buf, (size_t)n, secret))
		esc("/proc/self/environ holds the canary");
	n = slurp("/proc/1/environ", buf, sizeof(buf));
	if (n > 0 && contains(buf, (size_t)n, secret))
		esc("/proc/1/environ holds the canary");
	if (!st->escaped)
		miss("canary in none of %d variables", count);
	finish(NULL);
}

static void p_collect_symlink(void)
{
	const char *canary = need("canary"), *rel = need("relsecret");
	char target[4096];

	snprintf(target, sizeof(target), "%s/secret", canary);
	if (symlink(target, "out") < 0)
		held(errno, "symlink out");
	snprintf(target, sizeof(target), "../../../../../../../../%s", rel);
	if (symlink(target, "out-rel") < 0)
		held(errno, "symlink out-rel");
	snprintf(target, sizeof(target), "/proc/1/root/%s", rel);
	if (symlink(target, "out-proc") < 0)
		held(errno, "symlink out-proc");
	note("planted out, out-rel, out-proc pointing at the host canary; the harness collects them");
	finish(NULL);
}

static void p_collect_fifo(void)
{
	if (mkfifo("out-fifo", 0666) < 0)
		held(errno, "mkfifo");
	else
		note("planted the FIFO out-fifo; the harness collects it");
	finish(NULL);
}

/* 32-bit entry points from a 64-bit process: a filter that checked only the
 * native architecture would let these through. */
static long int80(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(nr), "b"(a), "c"(b), "d"(c)
			 : "memory", "r8", "r9", "r10", "r11");
	return ret;
}

static int c_i386_unshare(void *a)
{
	long r;

	(void)a;
	r = int80(310 /* i386 unshare */, CLONE_NEWUSER, 0, 0);
	reach("i386 unshare(CLONE_NEWUSER)", r < 0 && r > -4096 ? -1 : r, r < 0 ? (int)-r : 0);
	return 0;
}

static int c_i386_misc(void *a)
{
	long r;

	(void)a;
	r = int80(288 /* i386 keyctl */, 0, -4, 0);
	reach("i386 keyctl(GET_KEYRING_ID)", r < 0 && r > -4096 ? -1 : r, r < 0 ? (int)-r : 0);
	r = int80(88 /* i386 reboot */, (long)LINUX_REBOOT_MAGIC1, 0x12345678, LINUX_REBOOT_CMD_CAD_OFF);
	reach("i386 reboot (bad magic2)", r < 0 && r > -4096 ? -1 : r, r < 0 ? (int)-r : 0);
	return 0;
}

static int c_i386_clone(void *a)
{
	long r;

	(void)a;
	/* no new stack, no CLONE_VM: the child resumes here like fork() */
	r = int80(120 /* i386 clone */, CLONE_NEWUSER | SIGCHLD, 0, 0);
	if (r == 0)
		_exit(0);
	reach("i386 clone(CLONE_NEWUSER)", r < 0 && r > -4096 ? -1 : r, r < 0 ? (int)-r : 0);
	if (r > 0)
		waitpid((pid_t)r, NULL, 0);
	return 0;
}

static int c_x32_unshare(void *a)
{
	long r;

	(void)a;
	r = syscall(0x40000000L | 272 /* x32 unshare */, CLONE_NEWUSER);
	reach("x32 unshare(CLONE_NEWUSER)", r, errno);
	return 0;
}

static void p_seccomp_abi(void)
{
	if (in_child(c_i386_unshare, NULL, 10) == 254)
		held(EINTR, "i386 unshare: killed");
	if (in_child(c_i386_misc, NULL, 10) == 254)
		held(EINTR, "i386 keyctl/reboot: killed");
	if (in_child(c_i386_clone, NULL, 10) == 254)
		held(EINTR, "i386 clone: killed");
	if (in_child(c_x32_unshare, NULL, 10) == 254)
		held(EINTR, "x32 unshare: killed");
	finish(NULL);
}

static void p_ro_write(void)
{
	char p[64];
	int fd;

	snprintf(p, sizeof(p), "/usr/hx-escape-%d", (int)getpid());
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0) {
		esc("created %s (removed)", p);
		close(fd);
		unlink(p);
	} else {
		held(errno, "create %s", p);
	}
	snprintf(p, sizeof(p), "/hx-escape-%d", (int)getpid());
	if (mkdir(p, 0700) == 0) {
		esc("mkdir %s (removed)", p);
		rmdir(p);
	} else {
		held(errno, "mkdir %s", p);
	}
	open_for_write("/etc/ld.so.cache");
	finish(NULL);
}

static void p_uid_root(void)
{
	char buf[4096];
	ssize_t n = slurp("/proc/self/uid_map", buf, sizeof(buf));
	unsigned long in, out, len, me = geteuid();
	int found = 0;

	if (n < 0) {
		held((int)-n, "read /proc/self/uid_map");
		finish(NULL);
	}
	for (char *l = buf; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (sscanf(l, "%lu %lu %lu", &in, &out, &len) != 3)
			continue;
		if (me >= in && me - in < len) {
			found = 1;
			if (out + (me - in) == 0)
				esc("uid %lu is root outside", me);
			else
				miss("uid %lu is %lu outside", me, out + (me - in));
		}
	}
	if (!found)
		miss("uid %lu unmapped", me);
	finish(geteuid() != 0 && !st->escaped ? "the caller is not root" : NULL);
}

static void p_caps(void)
{
	const char *keys[] = { "CapInh:", "CapPrm:", "CapEff:", "CapBnd:", "CapAmb:" };
	char buf[8192];
	ssize_t n = slurp("/proc/self/status", buf, sizeof(buf));

	if (n < 0) {
		held((int)-n, "read /proc/self/status");
		finish(NULL);
	}
	for (size_t i = 0; i < 5; i++) {
		char *l = strstr(buf, keys[i]);
		unsigned long long v;

		if (!l || sscanf(l + strlen(keys[i]), "%llx", &v) != 1) {
			miss("%s missing", keys[i]);
			continue;
		}
		if (v)
			esc("%s %016llx", keys[i], v);
		else
			miss("%s 0", keys[i]);
	}
	if (strstr(buf, "NoNewPrivs:\t1"))
		note("NoNewPrivs 1");
	else
		note("NoNewPrivs 0");
	finish(NULL);
}

/* ------------------------------------------------------------------ */
/* The harness's sentinel: a process outside any jail that the probes try to
 * see, signal, trace and read. It logs the signals it gets, holds a secret
 * at an address it publishes, owns a SysV queue, and lives at most an hour. */

static char sentinel_secret[256];
static int sentinel_log = -1, sentinel_q = -1;

static void on_usr1(int sig, siginfo_t *si, void *uc)
{
	char line[64] = "SIGUSR1 from pid ";
	char num[16];
	int n = 0, v = si->si_pid, k = (int)strlen(line);

	(void)sig;
	(void)uc;
	do
		num[n++] = (char)('0' + v % 10);
	while ((v /= 10) && n < 15);
	while (n)
		line[k++] = num[--n];
	line[k++] = '\n';
	(void)!write(sentinel_log, line, (size_t)k);
}

static void on_term(int sig)
{
	(void)sig;
	if (sentinel_q >= 0)
		msgctl(sentinel_q, IPC_RMID, NULL);
	_exit(0);
}

static void p_sentinel(void)
{
	struct sigaction sa = { .sa_sigaction = on_usr1, .sa_flags = SA_SIGINFO | SA_RESTART };
	const char *addrfile = need("addrfile");
	FILE *f;

	const char *secret = getenv("HUTCH_SENTINEL_SECRET");

	if (!secret || !*secret)
		usage_error("sentinel: HUTCH_SENTINEL_SECRET unset");
	/* from the environment, not argv: /proc/PID/cmdline is world-readable */
	snprintf(sentinel_secret, sizeof(sentinel_secret), "%s", secret);
	sentinel_log = open(need("log"), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (sentinel_log < 0)
		usage_error("sentinel log");
	sentinel_q = msgget((key_t)num("ipckey"), IPC_CREAT | 0666);
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGTERM, on_term);
	signal(SIGALRM, on_term);
	alarm(3600);
	f = fopen(addrfile, "w");
	if (!f)
		usage_error("sentinel addrfile");
	fprintf(f, "%p\n", (void *)sentinel_secret);
	fclose(f);
	for (;;)
		pause();
}

/* ------------------------------------------------------------------ */

static const struct {
	const char *name;
	void (*fn)(void);
} probes[] = {
	{ "host-read", p_host_read },
	{ "host-write", p_host_write },
	{ "host-traverse", p_host_traverse },
	{ "cwd-leak", p_cwd_leak },
	{ "fd-leak", p_fd_leak },
	{ "proc-root", p_proc_root },
	{ "proc-see", p_proc_see },
	{ "proc-signal", p_proc_signal },
	{ "ptrace", p_ptrace },
	{ "proc-mem", p_proc_mem },
	{ "tcp-egress", p_tcp_egress },
	{ "udp-egress", p_udp_egress },
	{ "unix-abstract", p_unix_abstract },
	{ "unix-path", p_unix_path },
	{ "net-ifaces", p_net_ifaces },
	{ "sysv-ipc", p_sysv_ipc },
	{ "vsock", p_vsock },
	{ "tiocsti", p_tiocsti },
	{ "tiocsti-highbit", p_tiocsti_highbit },
	{ "tioclinux", p_tioclinux },
	{ "tioclinux-highbit", p_tioclinux_highbit },
	{ "outlive", p_outlive },
	{ "outlive-timeout", p_outlive_timeout },
	{ "outlive-kill", p_outlive_timeout },
	{ "fork-bomb", p_fork_bomb },
	{ "mem-bomb", p_mem_bomb },
	{ "mem-bomb-multi", p_mem_bomb_multi },
	{ "disk-fill", p_disk_fill },
	{ "helper-exe", p_helper_exe },
	{ "helper-fds", p_helper_fds },
	{ "noexec", p_noexec },
	{ "setuid", p_setuid },
	{ "mount", p_mount },
	{ "userns", p_userns },
	{ "chroot", p_chroot },
	{ "pivot-root", p_pivot_root },
	{ "mknod", p_mknod },
	{ "sethostname", p_sethostname },
	{ "keyctl", p_keyctl },
	{ "bpf", p_bpf },
	{ "perf", p_perf },
	{ "userfaultfd", p_userfaultfd },
	{ "io-uring", p_io_uring },
	{ "kexec", p_kexec },
	{ "modules", p_modules },
	{ "shocker", p_shocker },
	{ "new-mount-api", p_new_mount_api },
	{ "personality", p_personality },
	{ "clock", p_clock },
	{ "reboot", p_reboot },
	{ "ioperm", p_ioperm },
	{ "obscure-calls", p_obscure_calls },
	{ "swap", p_swap },
	{ "nice", p_nice },
	{ "rlimit", p_rlimit },
	{ "proc-sys", p_proc_sys },
	{ "sysrq", p_sysrq },
	{ "cgroup", p_cgroup },
	{ "dev-block", p_dev_block },
	{ "dev-mem", p_dev_mem },
	{ "kmsg", p_kmsg },
	{ "dev-other", p_dev_other },
	{ "env-leak", p_env_leak },
	{ "collect-symlink", p_collect_symlink },
	{ "collect-fifo", p_collect_fifo },
	{ "seccomp-abi", p_seccomp_abi },
	{ "ro-write", p_ro_write },
	{ "uid-root", p_uid_root },
	{ "caps", p_caps },
};

int main(int argc, char **argv)
{
	int i = 1;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (i < argc && strcmp(argv[i], "--control") == 0) {
		control = 1;
		i++;
	}
	if (i >= argc)
		usage_error("usage: probes [--control] NAME KEY=VALUE... | probes --list");
	if (strcmp(argv[i], "--list") == 0) {
		for (size_t k = 0; k < sizeof(probes) / sizeof(probes[0]); k++)
			printf("%s\n", probes[k].name);
		return 0;
	}
	g_argc = argc - i - 1;
	g_argv = argv + i + 1;
	st = mmap(NULL, sizeof(*st), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (st == MAP_FAILED)
		usage_error("mmap");
	memset(st, 0, sizeof(*st));
	if (strcmp(argv[i], "sentinel") == 0)
		p_sentinel();
	for (size_t k = 0; k < sizeof(probes) / sizeof(probes[0]); k++)
		if (strcmp(argv[i], probes[k].name) == 0) {
			/* children report through st; only the parent prints */
			fflush(stdout);
			probes[k].fn();
		}
	usage_error("unknown probe");
}
