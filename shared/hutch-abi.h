/* hutch-abi.h: what crosses the frontend/helper boundary: fd numbers, magics,
 * reserved exit codes and signals. Linked by both binaries; no json-c here.
 * Append only: a value that shipped is never renumbered. */
#ifndef HUTCH_ABI_H
#define HUTCH_ABI_H

#include <signal.h>

/* The helper's fixed descriptors, set up by the frontend before execve. */
#define HUTCH_SPEC_FD 3		/* read end of the spec pipe */
#define HUTCH_STATUS_FD 4	/* write end of the status pipe; made close-on-exec */
#define HUTCH_MIRROR_FD 5	/* helper-internal: pid 1 -> outer helper, target's wait status */
#define HUTCH_CONTROL_FD 6	/* optional unix socket: pid 1 sends descriptors out on it */

/* Descriptors a client passed for its binds (HUTCH_MF_FD mounts, in
 * mount order) arrive at HUTCH_BIND_FD_FIRST and up, at most
 * HUTCH_BIND_FDS_MAX of them; pid 1 closes them before the target runs. */
#define HUTCH_BIND_FD_FIRST 7
#define HUTCH_BIND_FDS_MAX 16

/* What pid 1 sends on HUTCH_CONTROL_FD, one tagged byte with one fd each. */
#define HUTCH_CONTROL_WORKDIR 'w'	/* the work dir's tmpfs, for collect */
#define HUTCH_CONTROL_LISTENER 's'	/* the seccomp listener, for denial reports */
#define HUTCH_CONTROL_PTY 't'		/* --tty: the master of the jail's own pty */
#define HUTCH_CONTROL_OVERLAY 'o'	/* an overlay's upper tmpfs, one per overlay in spec order */
#define HUTCH_CONTROL_PROXY 'p'		/* network proxy: the listening socket in the jail */

/* Network "proxy": where the jail's listening socket is, on the jail's own
 * loopback (HUTCH_SPEC_NET_PROXY). The supervisor accepts on it. */
#define HUTCH_PROXY_ADDR "127.0.0.1"
#define HUTCH_PROXY_ADDR_BE 0x7f000001u
#define HUTCH_PROXY_PORT 3128
#define HUTCH_PROXY_BACKLOG 128

/* Exit status of hutch-exec when jail setup failed (EX_OSERR). */
#define HUTCH_EXIT_SETUP 71

/* Sent by the frontend to hutch-exec: kill the whole jail, then exit. Any
 * other forwarded signal (HUP INT QUIT TERM USR1 USR2 WINCH) goes to the
 * target as it is. A realtime signal so that no target signal is taken,
 * and a fixed number, not SIGRTMIN + n: SIGRTMIN is 34 under glibc (the
 * frontend) and 35 under musl (the helper), and a signal the helper does
 * not handle kills it at once, leaving the jail to die on its own time.
 * 40 is a realtime signal neither C library reserves. */
#define HUTCH_SIG_KILL_JAIL 40

/* Without a cgroup the memory limit is RLIMIT_DATA, and RLIMIT_AS is set
 * this far above it: room for the address space runtimes reserve and
 * never touch (V8 about 1 GiB, the JVM about 4 GiB, Go under 1 GiB),
 * while shared mappings, which RLIMIT_DATA does not count, stay bounded. */
#define HUTCH_AS_HEADROOM (16ull << 30)

/* The uid and gid a root invocation runs the jail as, outside and inside. */
#define HUTCH_DEFAULT_JAIL_ID 65534u

#endif
