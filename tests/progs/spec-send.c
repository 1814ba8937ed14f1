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
 * Links libhutch-shared.a (spec codec, status names, fd-util). The spec is
 * built in spec-send-spec.c, the helper started and its status pipe read
 * in spec-send-helper.c. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fd-util.h"
#include "hutch-abi.h"
#include "spec.h"

#include "spec-send.h"

#define DEFAULT_FLAGS                                                                      \
	(HUTCH_SPEC_NS_PID | HUTCH_SPEC_NS_NET | HUTCH_SPEC_NS_IPC | HUTCH_SPEC_NS_UTS |   \
	 HUTCH_SPEC_NS_CGROUP | HUTCH_SPEC_LANDLOCK | HUTCH_SPEC_LANDLOCK_NET)

static int env_given;

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
