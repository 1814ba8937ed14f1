/* filter-prefix.c: the argument checks libseccomp 2.5 cannot express (it
 * cannot AND several tests on one argument), as a short hand-written BPF
 * block that runs ahead of libseccomp's program in every mode:
 *  - personality(2) only for PER_LINUX, PER_LINUX32 and the query
 *    0xffffffff: ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC and friends are out;
 *  - socket(2) only for AF_UNIX, AF_INET, AF_INET6 and AF_NETLINK: other
 *    families reach what namespaces do not isolate (AF_VSOCK talks to the
 *    hypervisor and the host's vsock ports) or large kernel surfaces
 *    (AF_ALG, AF_PACKET...);
 *  - the 32-bit socketcall(2) multiplexer, whose arguments a filter cannot
 *    read: refused outright (32-bit programs have had direct socket calls
 *    since Linux 4.3).
 * A refused call goes to the listener (EPERM, counted); anything else falls
 * through to libseccomp's program. Frontend only. */
#include "config.h"

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/personality.h>
#include <sys/socket.h>

#include "jail/filter.h"

#define X32 0x40000000u
#define NR64_PERSONALITY 135u
#define NR64_SOCKET 41u
#define NR32_PERSONALITY 136u
#define NR32_SOCKET 359u
#define NR32_SOCKETCALL 102u
#define ARG0_LO offsetof(struct seccomp_data, args[0])
#define ARG0_HI (offsetof(struct seccomp_data, args[0]) + 4)

/* Instruction positions, so that every jump is computed, not counted. */
enum {
	P_LD_ARCH, P_IS_X86_64, P_IS_I386,
	P_LD_NR64, P_PERS64, P_PERS_X32, P_SOCK64, P_SOCK_X32, P_OTHER64,
	P_LD_NR32, P_PERS32, P_SOCK32, P_SOCKETCALL, P_OTHER32,
	P_PERS_LD_HI, P_PERS_HI_ZERO,
	P_PERS_LD_LO, P_PERS_LINUX, P_PERS_LINUX32, P_PERS_QUERY, P_PERS_REFUSE,
	P_SOCK_LD_HI, P_SOCK_HI_ZERO,
	P_SOCK_LD_LO, P_SOCK_UNIX, P_SOCK_INET, P_SOCK_INET6, P_SOCK_NETLINK,
	P_REFUSE,
	P_LEN	/* the first instruction after the block: "allowed, go on" */
};

#define TO(from, to) ((to) - (from) - 1)
#define LD(at, what) [at] = BPF_STMT(BPF_LD | BPF_W | BPF_ABS, what)
#define IF(at, k, then, otherwise) \
	[at] = BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, TO(at, then), TO(at, otherwise))
#define GOTO(at, to) [at] = BPF_STMT(BPF_JMP | BPF_JA | BPF_K, TO(at, to))

static const struct sock_filter prefix[P_LEN] = {
	LD(P_LD_ARCH, offsetof(struct seccomp_data, arch)),
	IF(P_IS_X86_64, AUDIT_ARCH_X86_64, P_LD_NR64, P_IS_I386),
	IF(P_IS_I386, AUDIT_ARCH_I386, P_LD_NR32, P_LEN),

	/* x86-64 and x32 (the same arch, x32 numbers carry bit 30) */
	LD(P_LD_NR64, offsetof(struct seccomp_data, nr)),
	IF(P_PERS64, NR64_PERSONALITY, P_PERS_LD_HI, P_PERS_X32),
	IF(P_PERS_X32, X32 | NR64_PERSONALITY, P_PERS_LD_HI, P_SOCK64),
	IF(P_SOCK64, NR64_SOCKET, P_SOCK_LD_HI, P_SOCK_X32),
	IF(P_SOCK_X32, X32 | NR64_SOCKET, P_SOCK_LD_HI, P_OTHER64),
	GOTO(P_OTHER64, P_LEN),

	/* i386: arguments are 32 bits, zero-extended */
	LD(P_LD_NR32, offsetof(struct seccomp_data, nr)),
	IF(P_PERS32, NR32_PERSONALITY, P_PERS_LD_LO, P_SOCK32),
	IF(P_SOCK32, NR32_SOCKET, P_SOCK_LD_LO, P_SOCKETCALL),
	IF(P_SOCKETCALL, NR32_SOCKETCALL, P_REFUSE, P_OTHER32),
	GOTO(P_OTHER32, P_LEN),

	/* personality: the upper half must be zero, the lower one of three */
	LD(P_PERS_LD_HI, ARG0_HI),
	IF(P_PERS_HI_ZERO, 0, P_PERS_LD_LO, P_REFUSE),
	LD(P_PERS_LD_LO, ARG0_LO),
	IF(P_PERS_LINUX, PER_LINUX, P_LEN, P_PERS_LINUX32),
	IF(P_PERS_LINUX32, PER_LINUX32, P_LEN, P_PERS_QUERY),
	IF(P_PERS_QUERY, 0xffffffffu, P_LEN, P_PERS_REFUSE),
	GOTO(P_PERS_REFUSE, P_REFUSE),

	/* socket: the family is the first argument */
	LD(P_SOCK_LD_HI, ARG0_HI),
	IF(P_SOCK_HI_ZERO, 0, P_SOCK_LD_LO, P_REFUSE),
	LD(P_SOCK_LD_LO, ARG0_LO),
	IF(P_SOCK_UNIX, AF_UNIX, P_LEN, P_SOCK_INET),
	IF(P_SOCK_INET, AF_INET, P_LEN, P_SOCK_INET6),
	IF(P_SOCK_INET6, AF_INET6, P_LEN, P_SOCK_NETLINK),
	IF(P_SOCK_NETLINK, AF_NETLINK, P_LEN, P_REFUSE),

	[P_REFUSE] = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
};

const struct sock_filter *filter_prefix(size_t *ret_len)
{
	*ret_len = P_LEN;
	return prefix;
}
