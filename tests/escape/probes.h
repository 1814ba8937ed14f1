/* probes.h: what the files of the escape probes (tests/escape/probes*.c)
 * share: the system headers, the verdict and evidence kept in a shared
 * mapping, the helpers of probes.c and one entry point per probe, which
 * prints one line and exits (see probes.c). One static program, no library.
 */
#ifndef HUTCH_ESCAPE_PROBES_H
#define HUTCH_ESCAPE_PROBES_H

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
#include <sys/xattr.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

/* Verdict and evidence, in a shared mapping so that children can add to
 * them (children run one at a time; the parent waits). */
struct state {
	int escaped;
	unsigned n_fail, n_nosys, n_absent, n_denied, n_other;
	size_t len;
	char ev[6144];
};
extern struct state *st;
extern int control;	/* --control: on the host, where NOTAPPLICABLE may explain a failure */

/* Evidence and verdict (probes.c): note adds evidence, esc an attempt that
 * got through, held one that failed with an errno, miss one that failed
 * in a way no errno names; reach judges a privileged call (see probes.c);
 * finish prints the one line and exits 0. */
const char *en(int e);
void note(const char *fmt, ...);
void esc(const char *fmt, ...);
void held(int err, const char *fmt, ...);
void miss(const char *fmt, ...);
void reach(const char *what, long r, int err);
_Noreturn void finish(const char *na_reason);
_Noreturn void usage_error(const char *msg);

/* reach() of a call, errno read after it */
#define REACH(what, call)                                                                  \
	do {                                                                               \
		long r_ = (long)(call);                                                    \
		int e_ = errno;                                                            \
		reach(what, r_, e_);                                                       \
	} while (0)

/* Arguments KEY=VALUE: arg may return NULL, need and num end the run with
 * a usage error instead. */
const char *arg(const char *key);
const char *need(const char *key);
long num(const char *key);

/* Helpers (probes.c) */
int in_child(int (*fn)(void *), void *a, unsigned seconds);
ssize_t slurp(const char *path, char *buf, size_t cap);
int contains(const char *buf, size_t len, const char *needle);
void devino_fd(int fd, char *out, size_t n);
void devino_path(const char *p, char *out, size_t n);
extern char scratch[64];
void make_scratch(void);
void drop_scratch(void);
int enter_userns(int extra);
void open_for_write(const char *path);
void open_for_read(const char *path);
long int80(long nr, long a, long b, long c);

/* The probes, by family; the table in probes.c names them. */
/* probes-files.c: host files, the environment, --collect */
void p_host_read(void); void p_host_write(void); void p_host_traverse(void);
void p_cwd_leak(void); void p_fd_leak(void); void p_noexec(void); void p_memfd_exec(void); void p_env_leak(void);
void p_collect_symlink(void); void p_collect_fifo(void); void p_ro_write(void); void p_setuid_plant(void);
void p_overlay_write(void);
/* probes-proc.c: host processes, the helper and frontend */
void p_proc_root(void); void p_proc_see(void); void p_proc_signal(void); void p_ptrace(void);
void p_proc_mem(void); void p_sysv_ipc(void); void p_helper_exe(void); void p_helper_fds(void);
/* probes-net.c: network egress */
void p_tcp_egress(void); void p_udp_egress(void); void p_icmp_egress(void); void p_unix_abstract(void);
void p_unix_path(void); void p_net_ifaces(void); void p_vsock(void);
/* probes-dev.c: terminals, kernel interfaces, devices */
void p_tiocsti(void); void p_tiocsti_highbit(void); void p_tioclinux(void);
void p_tioclinux_highbit(void); void p_proc_sys(void); void p_sysrq(void); void p_cgroup(void);
void p_dev_block(void); void p_dev_mem(void); void p_kmsg(void); void p_dev_other(void);
/* probes-bombs.c: lifetime and bombs */
void p_outlive(void); void p_outlive_timeout(void); void p_fork_bomb(void);
void p_mem_bomb(void); void p_mem_bomb_multi(void); void p_disk_fill(void);
/* probes-privileged.c: identity, namespaces, mounts */
void p_setuid(void); void p_mount(void); void p_userns(void); void p_chroot(void);
void p_pivot_root(void); void p_mknod(void); void p_sethostname(void); void p_shocker(void);
void p_new_mount_api(void); void p_uid_root(void); void p_caps(void);
/* probes-kernel.c: privileged kernel calls */
void p_ioperm(void); void p_obscure_calls(void); void p_keyctl(void); void p_bpf(void);
void p_perf(void); void p_userfaultfd(void); void p_io_uring(void); void p_kexec(void);
void p_modules(void); void p_personality(void); void p_clock(void); void p_reboot(void);
void p_swap(void); void p_nice(void); void p_rlimit(void); void p_seccomp_abi(void);
/* probes-masks.c: masks inside binds */
void p_mask_read(void); void p_mask_hook(void);
/* probes-absent.c: what a mask over an existing path does not cover */
void p_mask_hardlink(void); void p_mask_absent(void);

#endif
