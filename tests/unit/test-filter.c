/* test-filter.c: unit tests of the seccomp compilation (frontend/jail/
 * filter.c). The exported program is run on synthetic seccomp_data by a
 * small classic-BPF interpreter below (only the instructions libseccomp and
 * filter-prefix.c emit; anything else fails the test), so the tests check
 * what the kernel would decide, not how the program is laid out: a deny
 * list refuses the built-in denials and its extra names and lets the rest
 * through; an allow list refuses what it does not list; a foreign
 * architecture is killed; an unknown name reports its index. */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <seccomp.h>
#include <sys/syscall.h>

#include "jail/filter.h"

#include "cunit-main.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- a classic-BPF interpreter, as seccomp runs it ---- */

#define BAD_PROGRAM 0xdeadbeefu	/* not a seccomp action: the test fails */

static uint32_t load_word(const struct seccomp_data *d, uint32_t off)
{
	uint32_t w;

	if (off % 4 || off + 4 > sizeof(*d))
		return BAD_PROGRAM;
	memcpy(&w, (const uint8_t *)d + off, 4);
	return w;
}

static int alu(uint16_t op, uint32_t *a, uint32_t v)
{
	switch (BPF_OP(op)) {
	case BPF_ADD: *a += v; return 0;
	case BPF_SUB: *a -= v; return 0;
	case BPF_AND: *a &= v; return 0;
	case BPF_OR: *a |= v; return 0;
	case BPF_LSH: *a = v < 32 ? *a << v : 0; return 0;
	case BPF_RSH: *a = v < 32 ? *a >> v : 0; return 0;
	default: return -1;
	}
}

static int jump(uint16_t op, uint32_t a, uint32_t v, bool *ret_taken)
{
	switch (BPF_OP(op)) {
	case BPF_JEQ: *ret_taken = a == v; return 0;
	case BPF_JGT: *ret_taken = a > v; return 0;
	case BPF_JGE: *ret_taken = a >= v; return 0;
	case BPF_JSET: *ret_taken = (a & v) != 0; return 0;
	default: return -1;
	}
}

/* The action the program returns for d, or BAD_PROGRAM. Jumps only go
 * forward, so the loop ends. */
static uint32_t bpf_run(const uint8_t *bpf, size_t len, const struct seccomp_data *d)
{
	size_t n = len / sizeof(struct sock_filter);
	uint32_t a = 0, x = 0, mem[BPF_MEMWORDS] = { 0 };

	for (size_t pc = 0; pc < n; pc++) {
		struct sock_filter f;
		uint32_t v;
		bool taken;

		memcpy(&f, bpf + pc * sizeof(f), sizeof(f));
		v = BPF_SRC(f.code) == BPF_X ? x : f.k;
		switch (BPF_CLASS(f.code)) {
		case BPF_LD:
			if (f.code == (BPF_LD | BPF_W | BPF_ABS))
				a = load_word(d, f.k);
			else if (f.code == (BPF_LD | BPF_IMM))
				a = f.k;
			else if (f.code == (BPF_LD | BPF_MEM) && f.k < BPF_MEMWORDS)
				a = mem[f.k];
			else
				return BAD_PROGRAM;
			break;
		case BPF_LDX:
			if (f.code == (BPF_LDX | BPF_IMM))
				x = f.k;
			else if (f.code == (BPF_LDX | BPF_MEM) && f.k < BPF_MEMWORDS)
				x = mem[f.k];
			else
				return BAD_PROGRAM;
			break;
		case BPF_ST:
		case BPF_STX:
			if (f.k >= BPF_MEMWORDS)
				return BAD_PROGRAM;
			mem[f.k] = BPF_CLASS(f.code) == BPF_ST ? a : x;
			break;
		case BPF_ALU:
			if (alu(f.code, &a, v) < 0)
				return BAD_PROGRAM;
			break;
		case BPF_JMP:
			if (BPF_OP(f.code) == BPF_JA) {
				pc += f.k;
				break;
			}
			if (jump(f.code, a, v, &taken) < 0)
				return BAD_PROGRAM;
			pc += taken ? f.jt : f.jf;
			break;
		case BPF_RET:
			return BPF_RVAL(f.code) == BPF_A ? a : f.k;
		case BPF_MISC:
			if (f.code == (BPF_MISC | BPF_TAX))
				x = a;
			else if (f.code == (BPF_MISC | BPF_TXA))
				a = x;
			else
				return BAD_PROGRAM;
			break;
		default:
			return BAD_PROGRAM;
		}
	}
	return BAD_PROGRAM;	/* ran off the end: the kernel refuses such a program */
}

/* The action, without its data (errno), for one x86-64 call. */
static uint32_t decide(const uint8_t *bpf, size_t len, uint32_t arch, int nr, uint64_t arg0)
{
	struct seccomp_data d = { .nr = nr, .arch = arch, .args = { arg0 } };

	return bpf_run(bpf, len, &d) & SECCOMP_RET_ACTION_FULL;
}

static void compile(enum seccomp_mode mode, char *const *names, size_t n, bool ptrace,
		    uint8_t **ret_bpf, size_t *ret_len)
{
	size_t bad = 12345;

	CU_ASSERT_EQUAL_FATAL(filter_compile(mode, names, n, ptrace, ret_bpf, ret_len, &bad), 0);
	CU_ASSERT_EQUAL(bad, 12345);	/* written only for an unknown name */
	CU_ASSERT(*ret_len > 0);
	CU_ASSERT_EQUAL(*ret_len % sizeof(struct sock_filter), 0);
	CU_ASSERT(*ret_len <= 8 * 4096);
}

/* ---- the tests ---- */

static void test_shape(void)
{
	static char *const none[] = { NULL };
	size_t n_prefix, len;
	const struct sock_filter *prefix = filter_prefix(&n_prefix);
	uint8_t *bpf;
	struct sock_filter first;

	compile(SECCOMP_DENY_LIST, none, 0, false, &bpf, &len);
	CU_ASSERT(len > n_prefix * sizeof(*prefix));
	/* the hand-written block comes first, and it starts by loading the
	 * architecture: nothing reads nr before knowing whose nr it is */
	CU_ASSERT_EQUAL(memcmp(bpf, prefix, n_prefix * sizeof(*prefix)), 0);
	memcpy(&first, bpf, sizeof(first));
	CU_ASSERT_EQUAL(first.code, BPF_LD | BPF_W | BPF_ABS);
	CU_ASSERT_EQUAL(first.k, offsetof(struct seccomp_data, arch));
	free(bpf);
}

static void test_deny_list(void)
{
	static char *const names[] = { "uname" };
	size_t len;
	uint8_t *bpf;

	compile(SECCOMP_DENY_LIST, names, ARRAY_SIZE(names), false, &bpf, &len);
	CU_ASSERT_EQUAL(decide(bpf, len, AUDIT_ARCH_X86_64, __NR_getpid, 0), SECCOMP_RET_ALLOW);
	CU_ASSERT_EQUAL(decide(bpf, len, AUDIT_ARCH_X86_64, __NR_read, 0), SECCOMP_RET_ALLOW);
	/* an extra denial, a built-in one, ptrace when not allowed */
	CU_ASSERT_EQUAL(decide(bpf, len, AUDIT_ARCH_X86_64, __NR_uname, 0),
			SECCOMP_RET_USER_NOTIF);
	CU_ASSERT_EQUAL(decide(bpf, len, AUDIT_ARCH_X86_64, __NR_mount, 0),
			SECCOMP_RET_USER_NOTIF);
	CU_ASSERT_EQUAL(decide(bpf, len, AUDIT_ARCH_X86_64, __NR_ptrace, 0),
			SECCOMP_RET_USER_NOTIF);
	/* clone3 is ENOSYS, so that libc falls back to clone */
	CU_ASSERT_EQUAL(decide(bpf, len, AUDIT_ARCH_X86_64, __NR_clone3, 0), SECCOMP_RET_ERRNO);
	/* clone with a namespace flag is refused, a plain one allowed */
	CU_ASSERT_EQUAL(decide(bpf, len, AUDIT_ARCH_X86_64, __NR_clone, 0x11),
			SECCOMP_RET_ALLOW);
	CU_ASSERT_EQUAL(decide(bpf, len, AUDIT_ARCH_X86_64, __NR_clone, CLONE_NEWUSER),
			SECCOMP_RET_USER_NOTIF);
	/* any other architecture's entry point kills the process */
	CU_ASSERT_EQUAL(decide(bpf, len, AUDIT_ARCH_AARCH64, __NR_getpid, 0),
			SECCOMP_RET_KILL_PROCESS);
	free(bpf);

	compile(SECCOMP_DENY_LIST, names, ARRAY_SIZE(names), true, &bpf, &len);
	CU_ASSERT_EQUAL(decide(bpf, len, AUDIT_ARCH_X86_64, __NR_ptrace, 0), SECCOMP_RET_ALLOW);
	CU_ASSERT_EQUAL(decide(bpf, len, AUDIT_ARCH_X86_64, __NR_mount, 0),
			SECCOMP_RET_USER_NOTIF);
	free(bpf);
}

static void test_allow_list(void)
{
	static char *const names[] = { "read", "write", "exit_group", "mount" };
	size_t len;
	uint8_t *bpf;

	compile(SECCOMP_ALLOW_LIST, names, ARRAY_SIZE(names), false, &bpf, &len);
	CU_ASSERT_EQUAL(decide(bpf, len, AUDIT_ARCH_X86_64, __NR_read, 0), SECCOMP_RET_ALLOW);
	CU_ASSERT_EQUAL(decide(bpf, len, AUDIT_ARCH_X86_64, __NR_exit_group, 0),
			SECCOMP_RET_ALLOW);
	/* not listed: refused */
	CU_ASSERT_EQUAL(decide(bpf, len, AUDIT_ARCH_X86_64, __NR_getpid, 0),
			SECCOMP_RET_USER_NOTIF);
	CU_ASSERT_EQUAL(decide(bpf, len, AUDIT_ARCH_X86_64, __NR_openat, 0),
			SECCOMP_RET_USER_NOTIF);
	/* clone: the harmless shape only */
	CU_ASSERT_EQUAL(decide(bpf, len, AUDIT_ARCH_X86_64, __NR_clone, 0x11),
			SECCOMP_RET_ALLOW);
	CU_ASSERT_EQUAL(decide(bpf, len, AUDIT_ARCH_X86_64, __NR_clone, CLONE_NEWNET),
			SECCOMP_RET_USER_NOTIF);
	CU_ASSERT_EQUAL(decide(bpf, len, AUDIT_ARCH_AARCH64, __NR_read, 0),
			SECCOMP_RET_KILL_PROCESS);
	free(bpf);
}

static void test_unknown_name(void)
{
	static char *const names[] = { "read", "write", "no_such_call", "also_unknown" };
	uint8_t *bpf = NULL;
	size_t len = 777, bad = 0;

	CU_ASSERT_EQUAL(filter_compile(SECCOMP_DENY_LIST, names, ARRAY_SIZE(names), false, &bpf,
				       &len, &bad), -ENOENT);
	CU_ASSERT_EQUAL(bad, 2);
	CU_ASSERT_PTR_NULL(bpf);	/* nothing written on failure */
	CU_ASSERT_EQUAL(len, 777);
	bad = 0;
	CU_ASSERT_EQUAL(filter_compile(SECCOMP_ALLOW_LIST, names + 2, 2, false, &bpf, &len, &bad),
			-ENOENT);
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_PTR_NULL(bpf);
}

static bool in_set(const char *const *set, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(set[i], name) == 0)
			return true;
	return false;
}

/* --explain: the watched calls the policy allows wait for the listener
 * (which answers "continue" to the names filter_explain_calls gives), and
 * a watched call the policy denies is never among those names: its
 * notification stays a denial. */
static void test_explain(void)
{
	static char *const deny[] = { "execveat", "uname" };
	static char *const allow[] = { "read", "openat", "exit_group" };
	const char *set[FILTER_EXPLAIN_MAX];
	size_t len, bad = 0, n;
	uint8_t *bpf;

	n = filter_explain_calls(SECCOMP_DENY_LIST, deny, ARRAY_SIZE(deny), set);
	CU_ASSERT(in_set(set, n, "openat") && in_set(set, n, "execve") && in_set(set, n, "open"));
	CU_ASSERT_FALSE(in_set(set, n, "execveat"));	/* the policy denies it */
	CU_ASSERT_EQUAL_FATAL(filter_compile_explain(SECCOMP_DENY_LIST, deny, ARRAY_SIZE(deny), false,
						     &bpf, &len, &bad), 0);
	CU_ASSERT_EQUAL(decide(bpf, len, AUDIT_ARCH_X86_64, __NR_openat, 0), SECCOMP_RET_USER_NOTIF);
	CU_ASSERT_EQUAL(decide(bpf, len, AUDIT_ARCH_X86_64, __NR_execve, 0), SECCOMP_RET_USER_NOTIF);
	CU_ASSERT_EQUAL(decide(bpf, len, AUDIT_ARCH_X86_64, __NR_execveat, 0),
			SECCOMP_RET_USER_NOTIF);	/* a denial, answered EPERM */
	CU_ASSERT_EQUAL(decide(bpf, len, AUDIT_ARCH_X86_64, __NR_getpid, 0), SECCOMP_RET_ALLOW);
	CU_ASSERT_EQUAL(decide(bpf, len, AUDIT_ARCH_X86_64, __NR_mount, 0), SECCOMP_RET_USER_NOTIF);
	CU_ASSERT_EQUAL(decide(bpf, len, AUDIT_ARCH_AARCH64, __NR_openat, 0),
			SECCOMP_RET_KILL_PROCESS);
	free(bpf);

	n = filter_explain_calls(SECCOMP_ALLOW_LIST, allow, ARRAY_SIZE(allow), set);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT(in_set(set, n, "openat"));	/* execve is not listed: a denial */
	CU_ASSERT_EQUAL_FATAL(filter_compile_explain(SECCOMP_ALLOW_LIST, allow, ARRAY_SIZE(allow),
						     false, &bpf, &len, &bad), 0);
	CU_ASSERT_EQUAL(decide(bpf, len, AUDIT_ARCH_X86_64, __NR_openat, 0), SECCOMP_RET_USER_NOTIF);
	CU_ASSERT_EQUAL(decide(bpf, len, AUDIT_ARCH_X86_64, __NR_read, 0), SECCOMP_RET_ALLOW);
	CU_ASSERT_EQUAL(decide(bpf, len, AUDIT_ARCH_X86_64, __NR_execve, 0), SECCOMP_RET_USER_NOTIF);
	free(bpf);
}

static const struct unit_case cases[] = {
	{ "--explain: allowed watched calls notify, denied ones are no watched call", test_explain },
	{ "program shape: prefix first, arch loaded first", test_shape },
	{ "deny list", test_deny_list },
	{ "allow list refuses what it does not list", test_allow_list },
	{ "an unknown name reports its index", test_unknown_name },
	{ NULL, NULL },
};

/* Compiling needs no kernel, but libseccomp asks the running one which
 * actions it has, and under valgrind (which has no seccomp(2)) it would
 * conclude there is no user notification and refuse the programs hutch
 * builds. They are only exported here, never loaded: compile them as for
 * the kernels hutch supports (API level 5 and up). */
int main(void)
{
	if (seccomp_api_get() < 5 && seccomp_api_set(5) != 0)
		return 99;
	return unit_main("filter", cases);
}
