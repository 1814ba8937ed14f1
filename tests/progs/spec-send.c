/* spec-send.c: integration-test driver. Builds a jail spec from words on the
 * command line, encodes it with spec_encode() (or spoils it on purpose),
 * starts hutch-exec with the spec pipe on fd 3 and the status pipe on fd 4
 * as frontend/spawn.c does, and prints one line saying how the helper ended
 * and what its status pipe held:
 *
 *   exit=N signal=0 record=none                       target ran; pipe empty
 *   exit=none signal=S record=none                    died on signal S
 *   exit=71 signal=0 record=CODE stage=STAGE item=N errno=ENAME[ words=WORDS]
 *   ... record=garbled bytes=N | record=open           not one whole record
 *
 * The status pipe is read to EOF. Once the helper is reaped nothing of the
 * jail may hold it: " late-eof" is added when EOF came only later (a
 * process outlived the helper), " open" when it had not come 10 s on;
 * " timeout" ends the line when --timeout fired. The target shares our stdio,
 * so the result line is the last line on stdout. Exit 0 when a line was
 * printed, 2 on a usage error, 3 when the helper could not be started.
 *
 * Usage: spec-send [WORD...] [--] COMMAND [ARG...]   (COMMAND is the target's
 * argv, not searched here; the helper searches PATH inside the jail).
 *
 * Mounts, added to the spec in the order given (their index is the "item"
 * of bind_source, mount_target and mount records):
 *   --default-layout     what frontend/layout.c builds for `hutch run` under
 *                        policy/default.json: optional ro binds of /usr
 *                        (exec), /etc/ld.so.cache, alternatives, localtime,
 *                        nsswitch.conf; /bin /lib... as on the host;
 *                        /etc/passwd group hosts; /proc; /dev (null zero
 *                        full random urandom, fd links, shm); /tmp and
 *                        /work tmpfs with default.json's bytes and inodes
 *                        (/dev: a small read-only one); cwd /work
 *   --bind SRC DST       read-only, noexec bind
 *   --tmpfs DST BYTES    writable tmpfs, mode 0755, 4096 inodes
 *   --overlay SRC DST BYTES  copy-on-write of SRC over a tmpfs of BYTES,
 *                        mode 0700, 4096 inodes
 *   --proc DST           a new procfs
 *   --dir DST            an empty directory, mode 0755
 *   --file DST TEXT      a file holding TEXT, mode 0644
 *   --symlink TEXT DST   a symlink to TEXT
 *   --mflags LIST        replace the last mount's flags: comma list of
 *                        ro rw exec dev optional fd idmap, or a number
 *   --keep-fds N         leave the inherited fds 7 .. 6+N open for the
 *                        helper: the descriptors of "fd" binds, in order
 *   --mode OCTAL         the last mount's mode
 *   --inodes N           the last mount's inode count (nr_inodes of a tmpfs)
 *   --dump               list the mounts with their indexes on stderr
 * Process:
 *   --uid N, --gid N     inside and outside alike (default: 65534 when we
 *                        are root, else our own uid and gid); give ids
 *                        before --default-layout, whose /etc/passwd names them
 *   --uid-inside N  --uid-outside N  --gid-inside N  --gid-outside N
 *   --cwd PATH           default /work with --default-layout, else /
 *   --hostname NAME      default "hutch"
 *   --env NAME=VALUE     the first one replaces the default PATH=...
 *   --rlimit as|cpu|fsize|nofile|nproc N    default: unlimited
 *   --flags LIST         spec flags: comma list of pid net ipc uts cgroup
 *                        loopback landlock landlock-required landlock-net
 *                        seccomp, "none", or a number. Default, as
 *                        layout.c: pid,net,ipc,uts,cgroup,landlock,landlock-net
 *   --filter HEX         raw seccomp BPF (8 bytes per instruction); adds
 *                        the seccomp flag. Without it the spec carries a
 *                        one-instruction RET ALLOW program and the flag
 *                        (the helper refuses a spec without a filter)
 *   --no-seccomp         no filter and no seccomp flag, whatever --flags
 *                        and --filter say
 *   --null-stdin         the target reads /dev/null, not our stdin
 * Wire, applied in this order after encoding:
 *   --raw-bytes HEX      send exactly these bytes instead of the spec
 *   --bad-magic          flip the first byte of the magic
 *   --append-garbage     append one byte
 *   --truncate N         send only the first N bytes
 *   --fix-length         make the header's total_len match what is sent
 *   --no-spec            send nothing, just close the pipe
 * Driver:
 *   --describe           end a record's line with " words=" and what
 *                        status_describe() makes of it with this spec
 *   --helper PATH        default $HUTCH_EXEC
 *   --ignore-sigchld     start the helper with SIGCHLD ignored, as a
 *                        careless parent could (SIG_IGN survives execve)
 *   --kill-after US SIG  send SIG to the helper US microseconds after the
 *                        spec is written (signals sent as early as can be)
 *   --timeout SECONDS    SIGKILL the helper after this long (default 60)
 *
 * Links libhutch-shared.a (spec codec, status names, fd-util). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fd-util.h"
#include "hutch-abi.h"
#include "spec.h"
#include "status.h"

#define STATUS_WAIT_MS 10000

#define DEFAULT_FLAGS                                                                      \
	(HUTCH_SPEC_NS_PID | HUTCH_SPEC_NS_NET | HUTCH_SPEC_NS_IPC | HUTCH_SPEC_NS_UTS |   \
	 HUTCH_SPEC_NS_CGROUP | HUTCH_SPEC_LANDLOCK | HUTCH_SPEC_LANDLOCK_NET)

struct wire {
	const char *raw_hex;
	int bad_magic;
	int append_garbage;
	long truncate_to;	/* -1: no */
	int fix_length;
	int no_spec;
};

static struct spec_mount mounts[HUTCH_SPEC_MAX_MOUNTS];
static struct spec sp = { .mounts = mounts, .hostname = "hutch" };
static char *envv[HUTCH_SPEC_MAX_ENVC + 1] = { "PATH=/usr/local/bin:/usr/bin:/bin" };
static int env_given;
static volatile pid_t helper_pid;
static volatile sig_atomic_t timed_out;
static int ignore_sigchld;
static int describe;

static _Noreturn void usage(const char *why, const char *word)
{
	fprintf(stderr, "spec-send: %s%s%s (see the header of tests/progs/spec-send.c)\n", why,
		word ? ": " : "", word ? word : "");
	exit(2);
}

static uint64_t number(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		usage("not a number", s);
	return v;
}

static uint32_t number32(const char *s)
{
	uint64_t v = number(s);

	if (v > UINT32_MAX)
		usage("out of range", s);
	return (uint32_t)v;
}

static struct spec_mount *add_mount(uint8_t kind, const char *target)
{
	struct spec_mount *m;

	if (sp.n_mounts >= HUTCH_SPEC_MAX_MOUNTS)
		usage("too many mounts", NULL);
	m = &mounts[sp.n_mounts++];
	memset(m, 0, sizeof(*m));
	m->kind = kind;
	m->source = "";
	m->target = target;
	return m;
}

static void add_bind(const char *source, const char *target, uint16_t flags)
{
	struct spec_mount *m = add_mount(HUTCH_MOUNT_BIND, target);

	m->source = source;
	m->flags = flags;
}

static void add_tmpfs(const char *target, uint32_t mode, uint64_t bytes, uint64_t inodes,
		      uint16_t flags)
{
	struct spec_mount *m = add_mount(HUTCH_MOUNT_TMPFS, target);

	m->mode = mode;
	m->size_bytes = bytes;
	m->inodes = inodes;
	m->flags = flags;
}

static void add_overlay(const char *source, const char *target, uint64_t bytes)
{
	struct spec_mount *m = add_mount(HUTCH_MOUNT_OVERLAY, target);

	m->source = source;
	m->mode = 0700;
	m->size_bytes = bytes;
	m->inodes = 4096;
}

static void add_symlink(const char *text, const char *target)
{
	add_mount(HUTCH_MOUNT_SYMLINK, target)->source = text;
}

static void add_file(const char *target, const char *text, uint32_t mode)
{
	struct spec_mount *m = add_mount(HUTCH_MOUNT_FILE, target);

	m->data = (const uint8_t *)text;
	m->data_len = (uint32_t)strlen(text);
	m->mode = mode;
}

static char *xasprintf_str(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *xasprintf_str(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0) {
		perror("spec-send");
		exit(3);
	}
	return s;
}

static const char *real_or_same(const char *path)
{
	char *real = realpath(path, NULL);

	return real ? real : path;
}

/* Mirrors frontend/layout.c under policy/default.json (its binds and
 * sizes): keep them in step, or tests of "the default jail" test another. */
static void add_default_layout(void)
{
	static const char *const usr_dirs[] = { "/bin", "/sbin", "/lib", "/lib32", "/lib64",
						"/libx32" };
	static const char *const nodes[] = { "/dev/null", "/dev/zero", "/dev/full", "/dev/random",
					      "/dev/urandom" };
	static const char *const links[][2] = {
		{ "/proc/self/fd", "/dev/fd" },	      { "/proc/self/fd/0", "/dev/stdin" },
		{ "/proc/self/fd/1", "/dev/stdout" }, { "/proc/self/fd/2", "/dev/stderr" },
	};
	static const char *const etc_files[] = { "/etc/ld.so.cache", "/etc/alternatives",
						 "/etc/localtime", "/etc/nsswitch.conf" };
	const uint64_t tmp_bytes = 256ull << 20, work_bytes = 256ull << 20;
	const uint64_t tmp_inodes = 32768, work_inodes = 65536;
	const uint32_t uid = sp.uid_inside, gid = sp.gid_inside;
	int is_nobody = uid == HUTCH_DEFAULT_JAIL_ID, is_nogroup = gid == HUTCH_DEFAULT_JAIL_ID;

	/* As frontend/narrow.c: the helper binds only symlink-free sources, so
	 * a policy path that is a link (/etc/localtime) binds where it points. */
	add_bind(real_or_same("/usr"), "/usr", HUTCH_MF_OPTIONAL | HUTCH_MF_EXEC);
	for (size_t i = 0; i < sizeof(etc_files) / sizeof(etc_files[0]); i++)
		add_bind(real_or_same(etc_files[i]), etc_files[i], HUTCH_MF_OPTIONAL);
	for (size_t i = 0; i < sizeof(usr_dirs) / sizeof(usr_dirs[0]); i++) {
		char buf[4096];
		struct stat st;
		ssize_t n;

		if (lstat(usr_dirs[i], &st) < 0)
			continue;
		if (S_ISLNK(st.st_mode)) {
			n = readlink(usr_dirs[i], buf, sizeof(buf) - 1);
			if (n <= 0)
				continue;
			buf[n] = '\0';
			add_symlink(strdup(buf), usr_dirs[i]);
		} else if (S_ISDIR(st.st_mode)) {
			add_bind(usr_dirs[i], usr_dirs[i], HUTCH_MF_EXEC | HUTCH_MF_OPTIONAL);
		}
	}
	add_file("/etc/passwd",
		 xasprintf_str("%s:x:%u:%u:hutch jail:/work:/bin/sh\n%s",
			       is_nobody ? "nobody" : "hutch", uid, gid,
			       is_nobody ? "" : "nobody:x:65534:65534:nobody:/:/usr/sbin/nologin\n"),
		 0644);
	add_file("/etc/group",
		 xasprintf_str("%s:x:%u:\n%s", is_nogroup ? "nogroup" : "hutch", gid,
			       is_nogroup ? "" : "nogroup:x:65534:\n"),
		 0644);
	add_file("/etc/hosts",
		 xasprintf_str("127.0.0.1\tlocalhost %s\n::1\tlocalhost ip6-localhost\n",
			       sp.hostname),
		 0644);
	add_mount(HUTCH_MOUNT_PROC, "/proc");
	add_tmpfs("/dev", 0755, 64u << 10, 64, 0);
	for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++)
		add_bind(nodes[i], nodes[i], HUTCH_MF_RW | HUTCH_MF_DEV);
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		add_symlink(links[i][0], links[i][1]);
	add_tmpfs("/dev/shm", 01777, tmp_bytes, tmp_inodes, HUTCH_MF_RW);
	add_tmpfs("/tmp", 01777, tmp_bytes, tmp_inodes, HUTCH_MF_RW);
	add_tmpfs("/work", 0755, work_bytes, work_inodes, HUTCH_MF_RW);
}

static uint16_t parse_mflags(const char *list)
{
	static const struct {
		const char *name;
		uint16_t bit;
	} names[] = {
		{ "ro", 0 },		     { "rw", HUTCH_MF_RW },
		{ "exec", HUTCH_MF_EXEC },   { "dev", HUTCH_MF_DEV },
		{ "optional", HUTCH_MF_OPTIONAL },
		{ "fd", HUTCH_MF_FD },
		{ "idmap", HUTCH_MF_IDMAP },
	};
	char *copy, *tok, *save = NULL;
	uint16_t flags = 0;

	if (list[0] >= '0' && list[0] <= '9')
		return (uint16_t)number32(list);
	copy = strdup(list);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t k;

		for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
			if (strcmp(tok, names[k].name) == 0)
				break;
		if (k == sizeof(names) / sizeof(names[0]))
			usage("unknown mount flag", tok);
		flags |= names[k].bit;
	}
	free(copy);
	return flags;
}

static uint32_t parse_flags(const char *list)
{
	static const struct {
		const char *name;
		uint32_t bit;
	} names[] = {
		{ "none", 0 },
		{ "pid", HUTCH_SPEC_NS_PID },
		{ "net", HUTCH_SPEC_NS_NET },
		{ "ipc", HUTCH_SPEC_NS_IPC },
		{ "uts", HUTCH_SPEC_NS_UTS },
		{ "cgroup", HUTCH_SPEC_NS_CGROUP },
		{ "loopback", HUTCH_SPEC_NET_LOOPBACK },
		{ "landlock", HUTCH_SPEC_LANDLOCK },
		{ "landlock-required", HUTCH_SPEC_LANDLOCK_REQUIRED },
		{ "landlock-net", HUTCH_SPEC_LANDLOCK_NET },
		{ "seccomp", HUTCH_SPEC_SECCOMP },
	};
	char *copy, *tok, *save = NULL;
	uint32_t flags = 0;

	if (list[0] >= '0' && list[0] <= '9')
		return number32(list);
	copy = strdup(list);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t k;

		for (k = 0; k < sizeof(names) / sizeof(names[0]); k++)
			if (strcmp(tok, names[k].name) == 0)
				break;
		if (k == sizeof(names) / sizeof(names[0]))
			usage("unknown spec flag", tok);
		flags |= names[k].bit;
	}
	free(copy);
	return flags;
}

static uint8_t *parse_hex(const char *hex, size_t *ret_len)
{
	size_t n = strlen(hex);
	uint8_t *buf;

	if (n % 2)
		usage("odd number of hex digits", hex);
	buf = malloc(n / 2 + 1);
	for (size_t i = 0; i < n / 2; i++) {
		unsigned v;

		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			usage("not hex", hex);
		buf[i] = (uint8_t)v;
	}
	*ret_len = n / 2;
	return buf;
}

static int rlimit_index(const char *name)
{
	static const char *const names[HUTCH_RLIM_COUNT] = {
		[HUTCH_RLIM_AS] = "as",		[HUTCH_RLIM_CPU] = "cpu",
		[HUTCH_RLIM_FSIZE] = "fsize",	[HUTCH_RLIM_NOFILE] = "nofile",
		[HUTCH_RLIM_NPROC] = "nproc",
	};

	for (int i = 0; i < HUTCH_RLIM_COUNT; i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	usage("unknown rlimit", name);
}

static const char *errno_name(int err)
{
	static char num[16];
	const char *s;

	if (err == 0)
		return "0";
	s = strerrorname_np(err);
	if (s)
		return s;
	snprintf(num, sizeof(num), "%d", err);
	return num;
}

static int keep_fds;	/* --keep-fds */

static void on_alarm(int sig)
{
	(void)sig;
	timed_out = 1;
	if (helper_pid > 0)
		kill(helper_pid, SIGKILL);
}

/* The child's half, as in frontend/spawn.c: every source moved above the
 * fixed numbers first, so no dup2 clobbers one another still needs; a
 * failure before the helper runs is a helper_exec record, as there. */
static _Noreturn void child_exec(const char *helper, pid_t parent, int spec_rd, int status_wr,
				 int stdin_fd, int control_fd)
{
	static char *const argv[] = { "hutch-exec", NULL };
	static char *const envp[] = { NULL };
	struct sigaction dfl = { .sa_handler = SIG_DFL };
	struct hutch_status st = { .magic = HUTCH_STATUS_MAGIC, .code = HUTCH_SETUP_FAILED,
				   .stage = STAGE_HELPER_EXEC };
	int srcs[7] = { stdin_fd, -1, -1, spec_rd, status_wr, -1, control_fd };
	int moved[7] = { -1, -1, -1, -1, -1, -1, -1 };
	sigset_t none;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != parent)
		_exit(HUTCH_EXIT_SETUP);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			sigaction(s, &dfl, NULL);
	if (ignore_sigchld)
		signal(SIGCHLD, SIG_IGN);
	for (int i = 0; i < 7; i++) {
		moved[i] = srcs[i] < 0 ? -1 : fcntl(srcs[i], F_DUPFD_CLOEXEC, 16);
		if (srcs[i] >= 0 && moved[i] < 0)
			goto fail;
	}
	for (int i = 0; i < 7; i++)
		if (moved[i] >= 0 && dup2(moved[i], i) < 0)
			goto fail;
	/* Like the frontend, whose every fd is born close-on-exec: the helper
	 * starts with 0-4 (and the control socket) and nothing else, whatever
	 * the test shell left open, but the bind descriptors --keep-fds names. */
	if (syscall(SYS_close_range, 5U, control_fd >= 0 ? 5U : (unsigned)HUTCH_BIND_FD_FIRST - 1,
		    CLOSE_RANGE_CLOEXEC) < 0 ||
	    syscall(SYS_close_range, (unsigned)(HUTCH_BIND_FD_FIRST + keep_fds), ~0U,
		    CLOSE_RANGE_CLOEXEC) < 0)
		goto fail;
	execve(helper, argv, envp);
fail:
	st.err = errno;
	(void)fd_write_all(moved[HUTCH_STATUS_FD] >= 0 ? moved[HUTCH_STATUS_FD] : status_wr, &st,
			   sizeof(st));
	_exit(HUTCH_EXIT_SETUP);
}

static void print_record(const struct hutch_status *st)
{
	char words[256];

	printf(" record=%s stage=%s item=%u errno=%s", status_code_name(st->code),
	       status_stage_name(st->stage), st->item, errno_name(st->err));
	if (describe) {
		(void)status_describe(st, &sp, words, sizeof(words));
		printf(" words=%s", words);
	}
}

/* Read the status pipe to EOF. Once the helper has been reaped, only a
 * process it left behind can still hold the write end: EOF must be there
 * at once. Waits at most STATUS_WAIT_MS more to tell "late" from "open". */
static void print_status_record(int status_rd)
{
	struct hutch_status st;
	uint8_t buf[64];
	size_t got = 0;
	int at_eof = 0, late = 0, waited = 0;

	while (!at_eof && got < sizeof(buf) && waited < STATUS_WAIT_MS) {
		struct pollfd p = { .fd = status_rd, .events = POLLIN };
		int k = poll(&p, 1, late ? 100 : 0);
		ssize_t n;

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			break;
		if (k == 0) {
			waited += late ? 100 : 0;
			late = 1;
			continue;
		}
		n = read(status_rd, buf + got, sizeof(buf) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			at_eof = n == 0;
			break;
		}
		got += (size_t)n;
	}
	if (got == 0) {
		printf(" record=%s", at_eof ? "none" : "open");
	} else {
		memcpy(&st, buf, sizeof(st) < got ? sizeof(st) : got);
		if (got != sizeof(st) || status_check(&st) < 0)
			printf(" record=garbled bytes=%zu", got);
		else
			print_record(&st);
		if (!at_eof)
			printf(" open");
	}
	if (at_eof && late)
		printf(" late-eof");
}

static uint8_t *make_wire(const struct wire *w, size_t *ret_len)
{
	uint8_t *buf;
	size_t len;
	int r;

	if (w->raw_hex) {
		buf = parse_hex(w->raw_hex, &len);
	} else {
		r = spec_encode(&sp, &buf, &len);
		if (r < 0) {
			fprintf(stderr, "spec-send: spec_encode: %s\n", strerror(-r));
			exit(2);
		}
	}
	buf = realloc(buf, len + 1);
	if (w->bad_magic && len > 0)
		buf[0] ^= 0xff;
	if (w->append_garbage)
		buf[len++] = 0x5a;
	if (w->truncate_to >= 0 && (size_t)w->truncate_to < len)
		len = (size_t)w->truncate_to;
	if (w->fix_length && len >= HUTCH_SPEC_HEADER_BYTES) {
		buf[8] = (uint8_t)len;
		buf[9] = (uint8_t)(len >> 8);
		buf[10] = (uint8_t)(len >> 16);
		buf[11] = (uint8_t)(len >> 24);
	}
	if (w->no_spec)
		len = 0;
	*ret_len = len;
	return buf;
}

static void dump_mounts(void)
{
	for (uint32_t i = 0; i < sp.n_mounts; i++)
		fprintf(stderr, "spec-send: mount %u kind=%u flags=%#x %s -> %s\n", i,
			mounts[i].kind, mounts[i].flags, mounts[i].source, mounts[i].target);
}

int main(int argc, char **argv)
{
	struct wire w = { .truncate_to = -1 };
	const char *helper = getenv("HUTCH_EXEC");
	struct sigaction sa = { .sa_handler = on_alarm };
	int is_root = geteuid() == 0, default_layout = 0, dump = 0, null_stdin = 0, kill_sig = 0;
	long kill_after_us = -1;
	int cwd_given = 0, spec_p[2], status_p[2], control_p[2] = { -1, -1 }, stdin_fd = -1, status, no_seccomp = 0;
	static const uint8_t allow_all[8] = { 0x06, 0, 0, 0, 0, 0, 0xff, 0x7f }; /* RET ALLOW */
	unsigned timeout_s = 60;
	uint8_t *wire;
	size_t wire_len;
	pid_t parent, pid, r;
	int i;

	sp.flags = DEFAULT_FLAGS;
	sp.uid_inside = sp.uid_outside = is_root ? HUTCH_DEFAULT_JAIL_ID : getuid();
	sp.gid_inside = sp.gid_outside = is_root ? HUTCH_DEFAULT_JAIL_ID : getgid();
	sp.cwd = "/";
	for (int k = 0; k < HUTCH_RLIM_COUNT; k++)
		sp.rlimit[k] = HUTCH_RLIM_INFINITY;
	/* hutch's ceilings (frontend/jail/user-caps.c) */
	sp.user_cap[HUTCH_UCAP_INOTIFY_INSTANCES] = 32;
	sp.user_cap[HUTCH_UCAP_INOTIFY_WATCHES] = 16384;
	sp.user_cap[HUTCH_UCAP_MSGQUEUE_BYTES] = 65536;
	sp.user_cap[HUTCH_UCAP_SIGPENDING] = 1024;

#define ARG(n) (i + (n) < argc ? argv[i + (n)] : (usage("missing argument to", argv[i]), ""))
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (strncmp(a, "--", 2) != 0)
			break;
		if (strcmp(a, "--default-layout") == 0) {
			default_layout = 1;
			add_default_layout();
		} else if (strcmp(a, "--bind") == 0) {
			add_bind(ARG(1), ARG(2), 0);
			i += 2;
		} else if (strcmp(a, "--tmpfs") == 0) {
			add_tmpfs(ARG(1), 0755, number(ARG(2)), 4096, HUTCH_MF_RW);
			i += 2;
		} else if (strcmp(a, "--overlay") == 0) {
			add_overlay(ARG(1), ARG(2), number(ARG(3)));
			i += 3;
		} else if (strcmp(a, "--proc") == 0) {
			add_mount(HUTCH_MOUNT_PROC, ARG(1));
			i += 1;
		} else if (strcmp(a, "--dir") == 0) {
			add_mount(HUTCH_MOUNT_DIR, ARG(1))->mode = 0755;
			i += 1;
		} else if (strcmp(a, "--file") == 0) {
			add_file(ARG(1), ARG(2), 0644);
			i += 2;
		} else if (strcmp(a, "--symlink") == 0) {
			add_symlink(ARG(1), ARG(2));
			i += 2;
		} else if (strcmp(a, "--mflags") == 0 || strcmp(a, "--mode") == 0) {
			if (sp.n_mounts == 0)
				usage("no mount to modify", a);
			if (a[2] == 'm' && a[3] == 'f')
				mounts[sp.n_mounts - 1].flags = parse_mflags(ARG(1));
			else
				mounts[sp.n_mounts - 1].mode = (uint32_t)strtoul(ARG(1), NULL, 8);
			i += 1;
		} else if (strcmp(a, "--inodes") == 0) {
			if (sp.n_mounts == 0)
				usage("no mount to modify", a);
			mounts[sp.n_mounts - 1].inodes = number(ARG(1));
			i += 1;
		} else if (strcmp(a, "--dump") == 0) {
			dump = 1;
		} else if (strcmp(a, "--keep-fds") == 0) {
			keep_fds = (int)number32(ARG(1));
			if (keep_fds > HUTCH_BIND_FDS_MAX)
				usage("more than 16", a);
			i += 1;
		} else if (strcmp(a, "--uid") == 0) {
			sp.uid_inside = sp.uid_outside = number32(ARG(1));
			i += 1;
		} else if (strcmp(a, "--gid") == 0) {
			sp.gid_inside = sp.gid_outside = number32(ARG(1));
			i += 1;
		} else if (strcmp(a, "--uid-inside") == 0) {
			sp.uid_inside = number32(ARG(1));
			i += 1;
		} else if (strcmp(a, "--uid-outside") == 0) {
			sp.uid_outside = number32(ARG(1));
			i += 1;
		} else if (strcmp(a, "--gid-inside") == 0) {
			sp.gid_inside = number32(ARG(1));
			i += 1;
		} else if (strcmp(a, "--gid-outside") == 0) {
			sp.gid_outside = number32(ARG(1));
			i += 1;
		} else if (strcmp(a, "--cwd") == 0) {
			sp.cwd = ARG(1);
			cwd_given = 1;
			i += 1;
		} else if (strcmp(a, "--hostname") == 0) {
			sp.hostname = ARG(1);
			i += 1;
		} else if (strcmp(a, "--env") == 0) {
			if (!env_given)
				sp.envc = 0;
			env_given = 1;
			if (sp.envc >= HUTCH_SPEC_MAX_ENVC)
				usage("too many --env", NULL);
			envv[sp.envc++] = ARG(1);
			i += 1;
		} else if (strcmp(a, "--rlimit") == 0) {
			sp.rlimit[rlimit_index(ARG(1))] = number(ARG(2));
			i += 2;
		} else if (strcmp(a, "--flags") == 0) {
			sp.flags = parse_flags(ARG(1)) | (sp.filter_len ? HUTCH_SPEC_SECCOMP : 0);
			i += 1;
		} else if (strcmp(a, "--filter") == 0) {
			size_t n;

			sp.filter = parse_hex(ARG(1), &n);
			sp.filter_len = (uint32_t)n;
			sp.flags |= HUTCH_SPEC_SECCOMP;
			i += 1;
		} else if (strcmp(a, "--no-seccomp") == 0) {
			no_seccomp = 1;
		} else if (strcmp(a, "--null-stdin") == 0) {
			null_stdin = 1;
		} else if (strcmp(a, "--raw-bytes") == 0) {
			w.raw_hex = ARG(1);
			i += 1;
		} else if (strcmp(a, "--bad-magic") == 0) {
			w.bad_magic = 1;
		} else if (strcmp(a, "--append-garbage") == 0) {
			w.append_garbage = 1;
		} else if (strcmp(a, "--truncate") == 0) {
			w.truncate_to = (long)number(ARG(1));
			i += 1;
		} else if (strcmp(a, "--fix-length") == 0) {
			w.fix_length = 1;
		} else if (strcmp(a, "--no-spec") == 0) {
			w.no_spec = 1;
		} else if (strcmp(a, "--describe") == 0) {
			describe = 1;
		} else if (strcmp(a, "--helper") == 0) {
			helper = ARG(1);
			i += 1;
		} else if (strcmp(a, "--ignore-sigchld") == 0) {
			ignore_sigchld = 1;
		} else if (strcmp(a, "--kill-after") == 0) {
			kill_after_us = (long)number32(ARG(1));
			kill_sig = (int)number32(ARG(2));
			i += 2;
		} else if (strcmp(a, "--timeout") == 0) {
			timeout_s = number32(ARG(1));
			i += 1;
		} else {
			usage("unknown word", a);
		}
	}
#undef ARG
	if (i >= argc)
		usage("missing COMMAND", NULL);
	if (!helper || !*helper)
		usage("no helper: set HUTCH_EXEC or pass --helper", NULL);
	if (!env_given)
		sp.envc = 1;
	if (!sp.filter_len) {
		sp.filter = allow_all;
		sp.filter_len = sizeof(allow_all);
	}
	sp.flags |= HUTCH_SPEC_SECCOMP;
	if (no_seccomp) {
		sp.filter = NULL;
		sp.filter_len = 0;
		sp.flags &= ~(uint32_t)(HUTCH_SPEC_SECCOMP | HUTCH_SPEC_SECCOMP_NOTIFY);
	}
	if (default_layout && !cwd_given)
		sp.cwd = "/work";
	sp.argc = (uint32_t)(argc - i);
	sp.argv = argv + i;
	sp.envp = envv;
	if (dump)
		dump_mounts();
	wire = make_wire(&w, &wire_len);

	/* A helper that dies before reading its spec is EPIPE, not our death. */
	signal(SIGPIPE, SIG_IGN);
	sigaction(SIGALRM, &sa, NULL);
	if (null_stdin && (stdin_fd = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
		perror("spec-send: /dev/null");
		return 3;
	}
	if (pipe2(spec_p, O_CLOEXEC) < 0 || pipe2(status_p, O_CLOEXEC) < 0) {
		perror("spec-send: pipe2");
		return 3;
	}
	/* An overlay sends its upper layer on the control socket, as hutch
	 * expects: one we hold, and read nothing from, while the helper runs. */
	for (uint32_t k = 0; k < sp.n_mounts; k++)
		if (mounts[k].kind == HUTCH_MOUNT_OVERLAY && control_p[0] < 0 &&
		    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, control_p) < 0) {
			perror("spec-send: socketpair");
			return 3;
		}
	fflush(stdout);
	parent = getpid();
	pid = fork();
	if (pid < 0) {
		perror("spec-send: fork");
		return 3;
	}
	if (pid == 0)
		child_exec(helper, parent, spec_p[0], status_p[1], stdin_fd, control_p[1]);
	helper_pid = pid;
	alarm(timeout_s);
	close(spec_p[0]);
	close(status_p[1]);
	if (control_p[1] >= 0)
		close(control_p[1]);
	if (stdin_fd >= 0)
		close(stdin_fd);
	(void)fd_write_all(spec_p[1], wire, wire_len);
	close(spec_p[1]);
	free(wire);
	if (kill_after_us >= 0) {
		struct timespec ts = { kill_after_us / 1000000, (kill_after_us % 1000000) * 1000 };

		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
		kill(pid, kill_sig);
	}

	do
		r = waitpid(pid, &status, 0);
	while (r < 0 && errno == EINTR);
	alarm(0);
	if (r < 0) {
		perror("spec-send: waitpid");
		return 3;
	}
	if (WIFEXITED(status))
		printf("exit=%d signal=0", WEXITSTATUS(status));
	else
		printf("exit=none signal=%d", WTERMSIG(status));
	print_status_record(status_p[0]);
	printf("%s\n", timed_out ? " timeout" : "");
	return 0;
}
