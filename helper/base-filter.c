/* base-filter.c: the helper's own seccomp program, loaded under the spec's
 * in every jail, whatever the spec says. The spec comes from whoever runs
 * hutch-exec, and hutch-exec may be the one program an LSM lets create
 * capable user namespaces (contrib/apparmor/hutch-exec): so what a jail
 * must never do is refused here, not left to the spec's filter, and never
 * through a listener (whoever holds it could let the call continue):
 *  - new namespaces: unshare, setns, clone with a CLONE_NEW* flag; clone3
 *    is ENOSYS (its flags are in memory no filter can read), so libc falls
 *    back to clone;
 *  - mounts: mount, umount, umount2, pivot_root and the new mount API
 *    (open_tree, open_tree_attr, move_mount, fsopen, fsconfig, fsmount,
 *    fspick, mount_setattr);
 *  - set-id files, which outlive the jail on a writable bind (nosuid on
 *    the jail's mount does not follow the file to the host): chmod,
 *    fchmod, fchmodat, fchmodat2, creat, mknod, mknodat, and open/openat
 *    with O_CREAT or O_TMPFILE, when the mode has S_ISUID or S_ISGID;
 *    openat2 is ENOSYS (its mode is in memory), so libc falls back to
 *    openat; io_uring, whose openat no filter sees, is EPERM;
 *  - calls newer than this table (above NR_LAST_REVIEWED) are ENOSYS, as
 *    on an older kernel: a future way to mount is refused until reviewed.
 * x86-64 and x32 (one arch; x32 numbers carry bit 30, stripped here) and
 * i386 are checked, each with its own numbers below 424 (from 424 on they
 * are shared); any other arch is killed. Arguments are compared on their
 * low 32 bits: the kernel reads clone's flags as lower_32_bits, open's
 * flags as int and every mode as umode_t. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "helper.h"

#define X32 0x40000000u
#define NS_FLAGS                                                                           \
	(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC |         \
	 CLONE_NEWUTS | CLONE_NEWCGROUP | CLONE_NEWTIME)
#define CREATES (O_CREAT | (O_TMPFILE & ~O_DIRECTORY))
#define SET_ID (S_ISUID | S_ISGID)
#define ARG_LO(n) offsetof(struct seccomp_data, args[n])

/* x86-64 (and x32 once bit 30 is stripped) */
#define NR64_OPEN 2u
#define NR64_CLONE 56u
#define NR64_CREAT 85u
#define NR64_CHMOD 90u
#define NR64_FCHMOD 91u
#define NR64_MKNOD 133u
#define NR64_PIVOT_ROOT 155u
#define NR64_MOUNT 165u
#define NR64_UMOUNT2 166u
#define NR64_OPENAT 257u
#define NR64_MKNODAT 259u
#define NR64_FCHMODAT 268u
#define NR64_UNSHARE 272u
#define NR64_SETNS 308u
/* i386 */
#define NR32_OPEN 5u
#define NR32_CREAT 8u
#define NR32_MKNOD 14u
#define NR32_CHMOD 15u
#define NR32_MOUNT 21u
#define NR32_UMOUNT 22u
#define NR32_UMOUNT2 52u
#define NR32_FCHMOD 94u
#define NR32_CLONE 120u
#define NR32_PIVOT_ROOT 217u
#define NR32_OPENAT 295u
#define NR32_MKNODAT 297u
#define NR32_FCHMODAT 306u
#define NR32_UNSHARE 310u
#define NR32_SETNS 346u
/* both, from 424 on */
#define NR_SHARED 424u		/* pidfd_send_signal, the first shared number */
#define NR_IO_URING_SETUP 425u	/* ... io_uring_enter, io_uring_register, */
#define NR_FSPICK 433u		/* open_tree, move_mount, fsopen, fsconfig, fsmount, fspick */
#define NR_CLONE3 435u
#define NR_OPENAT2 437u
#define NR_MOUNT_SETATTR 442u
#define NR_FCHMODAT2 452u
#define NR_OPEN_TREE_ATTR 467u
#define NR_LAST_REVIEWED 469u	/* file_setattr, Linux 6.17; checked on 6.18 */
#define NR_X32_FIRST 512u	/* x32's own calls (execve...), 512-547 */
#define NR_X32_END 548u

#if defined(__x86_64__) && !defined(__ILP32__)
_Static_assert(NR64_CLONE == __NR_clone && NR64_UNSHARE == __NR_unshare &&
		       NR64_SETNS == __NR_setns && NR64_MOUNT == __NR_mount &&
		       NR64_UMOUNT2 == __NR_umount2 && NR64_PIVOT_ROOT == __NR_pivot_root &&
		       NR64_OPEN == __NR_open && NR64_OPENAT == __NR_openat &&
		       NR64_CREAT == __NR_creat && NR64_CHMOD == __NR_chmod &&
		       NR64_FCHMOD == __NR_fchmod && NR64_FCHMODAT == __NR_fchmodat &&
		       NR64_MKNOD == __NR_mknod && NR64_MKNODAT == __NR_mknodat &&
		       NR_CLONE3 == __NR_clone3 && NR_OPENAT2 == __NR_openat2 &&
		       NR_IO_URING_SETUP == __NR_io_uring_setup && NR_FSPICK == __NR_fspick &&
		       NR_MOUNT_SETATTR == __NR_mount_setattr,
	       "x86-64 system call numbers");
#endif

/* Instruction positions, so that every jump is computed, not counted. */
enum {
	P_LD_ARCH, P_IS_X86_64, P_IS_I386,
	/* x86-64 and x32 */
	P_LD_NR64, P_STRIP_X32, P_SHARED64,
	P64_UNSHARE, P64_SETNS, P64_MOUNT, P64_UMOUNT2, P64_PIVOT_ROOT, P64_CLONE,
	P64_CHMOD, P64_FCHMOD, P64_CREAT, P64_MKNOD, P64_FCHMODAT, P64_MKNODAT,
	P64_OPEN, P64_OPENAT,
	/* i386 */
	P_LD_NR32, P_SHARED32,
	P32_UNSHARE, P32_SETNS, P32_MOUNT, P32_UMOUNT, P32_UMOUNT2, P32_PIVOT_ROOT,
	P32_CLONE, P32_CHMOD, P32_FCHMOD, P32_CREAT, P32_MKNOD, P32_FCHMODAT,
	P32_MKNODAT, P32_OPEN, P32_OPENAT,
	/* 424 and up, either arch */
	P_IO_URING_LO, P_MOUNT_API_HI, P_CLONE3, P_OPENAT2, P_MOUNT_SETATTR,
	P_FCHMODAT2, P_OPEN_TREE_ATTR, P_REVIEWED, P_X32_LO, P_X32_HI,
	/* argument checks */
	P_CLONE_LD, P_CLONE_NS,
	P_OPEN_LD, P_OPEN_CREATES,
	P_OPENAT_LD, P_OPENAT_CREATES,
	P_MODE1_LD, P_MODE1_SET_ID,
	P_MODE2_LD, P_MODE2_SET_ID,
	P_MODE3_LD, P_MODE3_SET_ID,
	/* verdicts */
	P_ALLOW, P_EPERM, P_ENOSYS, P_KILL,
	P_LEN
};
/* Every jump is forward within the block: its offset fits in jt/jf. */
_Static_assert(P_LEN <= 256, "short jumps");

#define TO(from, to) ((to) - (from) - 1)
#define LD(at, what) [at] = BPF_STMT(BPF_LD | BPF_W | BPF_ABS, what)
#define JMP(at, op, k, then, otherwise) \
	[at] = BPF_JUMP(BPF_JMP | (op) | BPF_K, k, TO(at, then), TO(at, otherwise))
#define IF(at, k, then, otherwise) JMP(at, BPF_JEQ, k, then, otherwise)
#define IS(at, k, then) IF(at, k, then, (at) + 1)
#define RET(at, v) [at] = BPF_STMT(BPF_RET | BPF_K, v)

static const struct sock_filter base[P_LEN] = {
	LD(P_LD_ARCH, offsetof(struct seccomp_data, arch)),
	IF(P_IS_X86_64, AUDIT_ARCH_X86_64, P_LD_NR64, P_IS_I386),
	IF(P_IS_I386, AUDIT_ARCH_I386, P_LD_NR32, P_KILL),

	LD(P_LD_NR64, offsetof(struct seccomp_data, nr)),
	[P_STRIP_X32] = BPF_STMT(BPF_ALU | BPF_AND | BPF_K, ~X32),
	JMP(P_SHARED64, BPF_JGE, NR_SHARED, P_IO_URING_LO, P64_UNSHARE),
	IS(P64_UNSHARE, NR64_UNSHARE, P_EPERM),
	IS(P64_SETNS, NR64_SETNS, P_EPERM),
	IS(P64_MOUNT, NR64_MOUNT, P_EPERM),
	IS(P64_UMOUNT2, NR64_UMOUNT2, P_EPERM),
	IS(P64_PIVOT_ROOT, NR64_PIVOT_ROOT, P_EPERM),
	IS(P64_CLONE, NR64_CLONE, P_CLONE_LD),
	IS(P64_CHMOD, NR64_CHMOD, P_MODE1_LD),
	IS(P64_FCHMOD, NR64_FCHMOD, P_MODE1_LD),
	IS(P64_CREAT, NR64_CREAT, P_MODE1_LD),
	IS(P64_MKNOD, NR64_MKNOD, P_MODE1_LD),
	IS(P64_FCHMODAT, NR64_FCHMODAT, P_MODE2_LD),
	IS(P64_MKNODAT, NR64_MKNODAT, P_MODE2_LD),
	IS(P64_OPEN, NR64_OPEN, P_OPEN_LD),
	IF(P64_OPENAT, NR64_OPENAT, P_OPENAT_LD, P_ALLOW),

	LD(P_LD_NR32, offsetof(struct seccomp_data, nr)),
	JMP(P_SHARED32, BPF_JGE, NR_SHARED, P_IO_URING_LO, P32_UNSHARE),
	IS(P32_UNSHARE, NR32_UNSHARE, P_EPERM),
	IS(P32_SETNS, NR32_SETNS, P_EPERM),
	IS(P32_MOUNT, NR32_MOUNT, P_EPERM),
	IS(P32_UMOUNT, NR32_UMOUNT, P_EPERM),
	IS(P32_UMOUNT2, NR32_UMOUNT2, P_EPERM),
	IS(P32_PIVOT_ROOT, NR32_PIVOT_ROOT, P_EPERM),
	IS(P32_CLONE, NR32_CLONE, P_CLONE_LD),
	IS(P32_CHMOD, NR32_CHMOD, P_MODE1_LD),
	IS(P32_FCHMOD, NR32_FCHMOD, P_MODE1_LD),
	IS(P32_CREAT, NR32_CREAT, P_MODE1_LD),
	IS(P32_MKNOD, NR32_MKNOD, P_MODE1_LD),
	IS(P32_FCHMODAT, NR32_FCHMODAT, P_MODE2_LD),
	IS(P32_MKNODAT, NR32_MKNODAT, P_MODE2_LD),
	IS(P32_OPEN, NR32_OPEN, P_OPEN_LD),
	IF(P32_OPENAT, NR32_OPENAT, P_OPENAT_LD, P_ALLOW),

	/* A holds a number >= 424 */
	JMP(P_IO_URING_LO, BPF_JGE, NR_IO_URING_SETUP, P_MOUNT_API_HI, P_ALLOW),
	JMP(P_MOUNT_API_HI, BPF_JGT, NR_FSPICK, P_CLONE3, P_EPERM),
	IS(P_CLONE3, NR_CLONE3, P_ENOSYS),
	IS(P_OPENAT2, NR_OPENAT2, P_ENOSYS),
	IS(P_MOUNT_SETATTR, NR_MOUNT_SETATTR, P_EPERM),
	IS(P_FCHMODAT2, NR_FCHMODAT2, P_MODE2_LD),
	IS(P_OPEN_TREE_ATTR, NR_OPEN_TREE_ATTR, P_EPERM),
	JMP(P_REVIEWED, BPF_JGT, NR_LAST_REVIEWED, P_X32_LO, P_ALLOW),
	JMP(P_X32_LO, BPF_JGE, NR_X32_FIRST, P_X32_HI, P_ENOSYS),
	JMP(P_X32_HI, BPF_JGE, NR_X32_END, P_ENOSYS, P_ALLOW),

	LD(P_CLONE_LD, ARG_LO(0)),
	JMP(P_CLONE_NS, BPF_JSET, NS_FLAGS, P_EPERM, P_ALLOW),
	LD(P_OPEN_LD, ARG_LO(1)),
	JMP(P_OPEN_CREATES, BPF_JSET, CREATES, P_MODE2_LD, P_ALLOW),
	LD(P_OPENAT_LD, ARG_LO(2)),
	JMP(P_OPENAT_CREATES, BPF_JSET, CREATES, P_MODE3_LD, P_ALLOW),
	LD(P_MODE1_LD, ARG_LO(1)),
	JMP(P_MODE1_SET_ID, BPF_JSET, SET_ID, P_EPERM, P_ALLOW),
	LD(P_MODE2_LD, ARG_LO(2)),
	JMP(P_MODE2_SET_ID, BPF_JSET, SET_ID, P_EPERM, P_ALLOW),
	LD(P_MODE3_LD, ARG_LO(3)),
	JMP(P_MODE3_SET_ID, BPF_JSET, SET_ID, P_EPERM, P_ALLOW),

	RET(P_ALLOW, SECCOMP_RET_ALLOW),
	RET(P_EPERM, SECCOMP_RET_ERRNO | EPERM),
	RET(P_ENOSYS, SECCOMP_RET_ERRNO | ENOSYS),
	RET(P_KILL, SECCOMP_RET_KILL_PROCESS),
};

const struct sock_filter *base_filter(size_t *ret_len)
{
	*ret_len = P_LEN;
	return base;
}
