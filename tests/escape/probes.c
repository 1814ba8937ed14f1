/* probes.c: the attack probes of tests/escape (see README there): main(),
 * the dispatch table, the verdict and the helpers every probe shares, and
 * the sentinel. The probes live in probes-*.c by family (probes.h).
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
 *  mask-read        read a hidden .env in a bound workspace   reads it; harness replants the
 *                   (reopen, link, rename, umount, handle)    workspace
 *  mask-hook        plant a hook in a protected .git/hooks,   plants it; harness replants the
 *                   also by renaming .git aside               workspace
 *  mask-hardlink    read a hidden .env through a host hard    reads it; harness replants the
 *                   link of it elsewhere in the workspace     workspace
 *  mask-absent      plant .git/hooks/pre-commit in a repo     plants it; harness replants the
 *  mask-absent-rw   without .git/hooks (overlay; rw: must     repository
 *                   be refused), also by moving .git aside
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
 *  icmp-egress      echo request to the host's addresses       gets the reply
 *                   (ping socket, then raw)
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
 *  memfd-exec       a memfd holding our image (flags 0, MFD_EXEC, execs it from a memfd; no file
 *                   i386 entry, memfd_secret): fexecve and
 *                   execve /proc/self/fd/N
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
 *  overlay-write    write the canaries through --overlay;      the user.overlay.* xattrs it
 *                   forge overlayfs marks (user.overlay.*),    set are removed; files and the
 *                   reach the upper layer                      canary restored (harness)
 *  seccomp-abi      int 0x80 unshare/clone/keyctl/reboot,      i386 calls in children
 *                   x32 unshare
 *  ro-write         create in /usr, mkdir in /, open           created and removed at once
 *                   /etc/ld.so.cache for writing
 *  setuid-plant     chmod/fchmod/fchmodat2 04755 and 02755,    in a scratch dir; each file
 *                   x32 and i386 chmod, open/creat/openat2/    removed at once
 *                   O_TMPFILE/mknod with a set-id mode
 *  uid-root         our uid maps to 0 outside                  root: yes; a user: n/a
 *  caps             any capability, bounding set included      the host has a bounding set
 */
#include "probes.h"

/* Verdict and evidence: see struct state in probes.h. */
struct state *st;
int control;
static int g_argc;
static char **g_argv;

const char *en(int e)
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

void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vnote(fmt, ap);
	va_end(ap);
}

/* An attempt that got through. */
void esc(const char *fmt, ...)
{
	va_list ap;

	st->escaped = 1;
	va_start(ap, fmt);
	vnote(fmt, ap);
	va_end(ap);
}

/* An attempt that failed in a way no errno names (nothing found, no gain);
 * never explained away as "not on this host". */
void miss(const char *fmt, ...)
{
	va_list ap;

	st->n_fail++;
	st->n_other++;
	va_start(ap, fmt);
	vnote(fmt, ap);
	va_end(ap);
}

/* An attempt that failed with err. */
void held(int err, const char *fmt, ...)
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
void reach(const char *what, long r, int err)
{
	if (r >= 0)
		esc("%s: ok", what);
	else if (err == EPERM || err == EACCES || err == ENOSYS)
		held(err, "%s", what);
	else
		esc("%s: %s (past the permission check)", what, en(err));
}

_Noreturn void finish(const char *na_reason)
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

_Noreturn void usage_error(const char *msg)
{
	printf("ERROR %s\n", msg);
	exit(2);
}

const char *arg(const char *key)
{
	size_t n = strlen(key);

	for (int i = 0; i < g_argc; i++)
		if (strncmp(g_argv[i], key, n) == 0 && g_argv[i][n] == '=')
			return g_argv[i] + n + 1;
	return NULL;
}

const char *need(const char *key)
{
	const char *v = arg(key);
	static char msg[128];

	if (!v || !*v) {
		snprintf(msg, sizeof(msg), "missing argument %s=", key);
		usage_error(msg);
	}
	return v;
}

long num(const char *key)
{
	return strtol(need(key), NULL, 0);
}

/* Run fn in a child with a deadline; returns its exit code (0..255), 254
 * when it died on a signal. */
int in_child(int (*fn)(void *), void *a, unsigned seconds)
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
ssize_t slurp(const char *path, char *buf, size_t cap)
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

int contains(const char *buf, size_t len, const char *needle)
{
	return memmem(buf, len, needle, strlen(needle)) != NULL;
}

/* "dev:ino" of a path or descriptor */
void devino_fd(int fd, char *out, size_t n)
{
	struct stat sb;

	if (fstat(fd, &sb) < 0)
		snprintf(out, n, "?");
	else
		snprintf(out, n, "%lu:%lu", (unsigned long)sb.st_dev, (unsigned long)sb.st_ino);
}

void devino_path(const char *p, char *out, size_t n)
{
	struct stat sb;

	if (stat(p, &sb) < 0)
		snprintf(out, n, "?");
	else
		snprintf(out, n, "%lu:%lu", (unsigned long)sb.st_dev, (unsigned long)sb.st_ino);
}

/* A scratch directory in /tmp (the jail's own tmpfs; on the host, /tmp). */
char scratch[64];

void make_scratch(void)
{
	snprintf(scratch, sizeof(scratch), "/tmp/hx-scratch-XXXXXX");
	if (!mkdtemp(scratch)) {
		/* /tmp may be refused; the working directory then */
		snprintf(scratch, sizeof(scratch), "hx-scratch-XXXXXX");
		if (!mkdtemp(scratch))
			usage_error("no scratch directory");
	}
}

void drop_scratch(void)
{
	rmdir(scratch);
}

/* unshare(CLONE_NEWUSER | extra) in the calling child; notes the outcome. */
int enter_userns(int extra)
{
	if (unshare(CLONE_NEWUSER | extra) < 0) {
		int e = errno;

		held(e, "unshare(NEWUSER)");
		return e;
	}
	return 0;
}

/* Opened for writing (or reading) is the escape; nothing is ever written. */
void open_for_write(const char *path)
{
	int fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd >= 0) {
		esc("%s open for writing (nothing written)", path);
		close(fd);
	} else {
		held(errno, "open %s for writing", path);
	}
}

void open_for_read(const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd >= 0) {
		esc("opened %s", path);
		close(fd);
	} else {
		held(errno, "open %s", path);
	}
}

/* int $0x80: the i386 entry point from a 64-bit process (vsock, seccomp-abi). */
long int80(long nr, long a, long b, long c)
{
	long ret;

	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(nr), "b"(a), "c"(b), "d"(c)
			 : "memory", "r8", "r9", "r10", "r11");
	return ret;
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
	{ "mask-read", p_mask_read },
	{ "mask-hook", p_mask_hook },
	{ "mask-hardlink", p_mask_hardlink },
	{ "mask-absent", p_mask_absent },
	{ "mask-absent-rw", p_mask_absent },
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
	{ "icmp-egress", p_icmp_egress },
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
	{ "memfd-exec", p_memfd_exec },
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
	{ "overlay-write", p_overlay_write },
	{ "seccomp-abi", p_seccomp_abi },
	{ "ro-write", p_ro_write },
	{ "setuid-plant", p_setuid_plant },
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
