/* filter.c: seccomp with libseccomp. Denied calls go to a user-notification
 * listener that the frontend holds: it answers EPERM and records the call
 * by name. clone3 fails with ENOSYS so that libc falls back to clone, whose
 * namespace flags we can see. Argument checks here: clone namespace flags,
 * the TIOCSTI and TIOCLINUX ioctls (compared on the low 32 bits,
 * CVE-2019-10063), memfd_create's exec flags (see add_memfd_rules), and
 * in an allow list the ioctls and the FIFO-only mknod it permits;
 * personality and socket families are checked by the block in
 * filter-prefix.c, which runs first.
 * Frontend only. */
#include "config.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <nettle/sha2.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "fd-util.h"
#include "doc/syscall-names.h"
#include "jail/cache.h"
#include "jail/filter.h"

/* Allowed with ptrace only: reading or writing another process's memory. */
static const char *const ptrace_family[] = { "ptrace", "process_vm_readv", NULL };

#define NS_FLAGS                                                                           \
	(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC |         \
	 CLONE_NEWUTS | CLONE_NEWCGROUP | CLONE_NEWTIME)

/* Pseudo-numbers (negative, not __NR_SCMP_ERROR) name calls that exist only
 * on some of our architectures, such as umount on x86-64; libseccomp maps
 * them per architecture. */
static int resolve(const char *name, int *ret_nr)
{
	int nr = seccomp_syscall_resolve_name(name);

	if (nr == __NR_SCMP_ERROR)
		return -ENOENT;
	*ret_nr = nr;
	return 0;
}

static int deny(scmp_filter_ctx ctx, const char *name, uint32_t action)
{
	int nr, r = resolve(name, &nr);

	if (r < 0)
		return r;
	return seccomp_rule_add(ctx, action, nr, 0);
}

static int add_arg_rules(scmp_filter_ctx ctx, uint32_t eperm)
{
	static const unsigned long ns_bits[] = { CLONE_NEWUSER, CLONE_NEWNS,  CLONE_NEWPID,
						 CLONE_NEWNET,	CLONE_NEWIPC, CLONE_NEWUTS,
						 CLONE_NEWCGROUP, CLONE_NEWTIME };
	int r;

	for (size_t i = 0; i < sizeof(ns_bits) / sizeof(ns_bits[0]); i++) {
		r = seccomp_rule_add(ctx, eperm, SCMP_SYS(clone), 1,
				     SCMP_A0(SCMP_CMP_MASKED_EQ, ns_bits[i], ns_bits[i]));
		if (r < 0)
			return r;
	}
	r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	if (r == 0)
		r = seccomp_rule_add(ctx, eperm, SCMP_SYS(ioctl), 1,
				     SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCSTI));
	if (r == 0)
		r = seccomp_rule_add(ctx, eperm, SCMP_SYS(ioctl), 1,
				     SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCLINUX));
	return r;
}

/* Nothing writable may become a program: a memfd lives on an internal
 * mount that no noexec reaches, so fexecve() of one would run what the jail
 * wrote. memfd_create with MFD_NOEXEC_SEAL (Linux 6.3) makes it for good
 * non-executable; without the flag the call goes to the listener, which
 * creates the memfd itself with the seal and installs it (memfd-notify.c);
 * MFD_EXEC is EINVAL, as under vm.memfd_noexec=2, which an unprivileged
 * user namespace cannot set. The tests are on the low 32 bits (flags is
 * an unsigned int) and disjoint, so no two rules of one call compete. */
static int add_memfd_rules(scmp_filter_ctx ctx, enum seccomp_mode mode)
{
	const unsigned long both = MFD_EXEC | MFD_NOEXEC_SEAL;
	int r;

	r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EINVAL), SCMP_SYS(memfd_create), 1,
			     SCMP_A1(SCMP_CMP_MASKED_EQ, MFD_EXEC, MFD_EXEC));
	if (r == 0 && mode == SECCOMP_DENY_LIST) /* allow-list: the default action */
		r = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, SCMP_SYS(memfd_create), 1,
				     SCMP_A1(SCMP_CMP_MASKED_EQ, both, 0));
	if (r == 0 && mode == SECCOMP_ALLOW_LIST)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(memfd_create), 1,
				     SCMP_A1(SCMP_CMP_MASKED_EQ, both, MFD_NOEXEC_SEAL));
	return r;
}

bool filter_memfd_sealed(enum seccomp_mode mode, char *const *names, size_t n_names)
{
	bool named = false;

	for (size_t i = 0; i < n_names; i++)
		if (strcmp(names[i], "memfd_create") == 0)
			named = true;
	return mode == SECCOMP_ALLOW_LIST ? named : !named;
}

static int export_bpf(scmp_filter_ctx ctx, uint8_t **ret_bpf, size_t *ret_len)
{
	size_t n_prefix;
	const struct sock_filter *prefix = filter_prefix(&n_prefix);
	size_t prefix_bytes = n_prefix * sizeof(*prefix);
	_cleanup_close_ int fd = memfd_create("hutch-filter", MFD_CLOEXEC);
	char *buf = NULL;
	size_t len = 0;
	int r;

	if (fd < 0)
		return -errno;
	r = seccomp_export_bpf(ctx, fd);
	if (r < 0)
		return r;
	if (lseek(fd, 0, SEEK_SET) < 0)
		return -errno;
	r = fd_slurp(fd, 8 * 4096, &buf, &len);
	if (r < 0)
		return r;
	if (len == 0 || len % 8 || len + prefix_bytes > 8 * 4096) {
		free(buf);
		return -EINVAL;
	}
	{
		char *nb = realloc(buf, len + prefix_bytes);

		if (!nb) {
			free(buf);
			return -ENOMEM;
		}
		memmove(nb + prefix_bytes, nb, len);
		memcpy(nb, prefix, prefix_bytes);
		buf = nb;
		len += prefix_bytes;
	}
	*ret_bpf = (uint8_t *)buf;
	*ret_len = len;
	return 0;
}

static void release_ctx(scmp_filter_ctx *ctx)
{
	if (*ctx)
		seccomp_release(*ctx);
}

/* Denials go to the frontend's listener, which answers EPERM and counts
 * them (a kernel without listeners makes them ENOSYS). */
#define DENY SCMP_ACT_NOTIFY

/* Step 1: the attributes and the architectures. 32-bit and x32 entry
 * points get the same rules; any other architecture's entry point kills
 * the process. The helper sets no_new_privs itself, in its documented
 * order. */
static int set_attrs_and_arches(scmp_filter_ctx ctx)
{
	int r;

	if ((r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0)) < 0 ||
	    (r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS)) < 0 ||
	    (r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2)) < 0)
		return r;
	if ((r = seccomp_arch_add(ctx, SCMP_ARCH_X86)) < 0 && r != -EEXIST)
		return r;
	if ((r = seccomp_arch_add(ctx, SCMP_ARCH_X32)) < 0 && r != -EEXIST)
		return r;
	return 0;
}

static const char *const explain_watched[FILTER_EXPLAIN_MAX] = {
	"open", "openat", "openat2", "creat", "execve", "execveat",
};

static bool nr_named(int nr, char *const *names, size_t n_names)
{
	int other;

	for (size_t i = 0; i < n_names; i++)
		if (resolve(names[i], &other) == 0 && other == nr)
			return true;
	return false;
}

static bool nr_default_denied(int nr)
{
	int other;

	for (size_t i = 0; syscall_default_deny[i]; i++)
		if (resolve(syscall_default_deny[i], &other) == 0 && other == nr)
			return true;
	return false;
}

/* Allowed by the policy's program: named in an allow list, or in a deny
 * list neither named nor denied by default. (No argument rule of steps 3
 * and 4 concerns these calls.) */
size_t filter_explain_calls(enum seccomp_mode mode, char *const *names, size_t n_names,
			    const char *ret[FILTER_EXPLAIN_MAX])
{
	size_t n = 0;

	for (size_t i = 0; i < FILTER_EXPLAIN_MAX; i++) {
		int nr;
		bool allowed;

		if (resolve(explain_watched[i], &nr) < 0)
			continue; /* this libseccomp does not know it: left alone */
		allowed = mode == SECCOMP_ALLOW_LIST ? nr_named(nr, names, n_names)
						     : !nr_named(nr, names, n_names) &&
							       !nr_default_denied(nr);
		if (allowed)
			ret[n++] = explain_watched[i];
	}
	return n;
}

/* --explain: the watched calls wait for the listener instead of passing.
 * An allow list's default action is the listener already: add_named left
 * their ALLOW out, and the listener tells them from denials by name. */
static int add_explain_rules(scmp_filter_ctx ctx, enum seccomp_mode mode, char *const *names,
			     size_t n_names)
{
	const char *calls[FILTER_EXPLAIN_MAX];
	size_t n = filter_explain_calls(mode, names, n_names, calls);
	int r;

	for (size_t i = 0; mode == SECCOMP_DENY_LIST && i < n; i++)
		if ((r = deny(ctx, calls[i], SCMP_ACT_NOTIFY)) < 0)
			return r;
	return 0;
}

static bool is_watched(int nr)
{
	int other;

	for (size_t i = 0; i < FILTER_EXPLAIN_MAX; i++)
		if (resolve(explain_watched[i], &other) == 0 && other == nr)
			return true;
	return false;
}

/* Step 2: the policy's names, extra denials or the only calls allowed.
 * In an allow list, clone, ioctl, personality, memfd_create and mknod are
 * allowed only through the argument rules of steps 3 and 4; with --explain,
 * the watched calls through add_explain_rules. */
static int add_named(scmp_filter_ctx ctx, enum seccomp_mode mode, char *const *names,
		     size_t n_names, bool explain, size_t *ret_bad_index)
{
	for (size_t i = 0; i < n_names; i++) {
		int nr, r;

		if (resolve(names[i], &nr) < 0) {
			*ret_bad_index = i;
			return -ENOENT;
		}
		if (mode == SECCOMP_ALLOW_LIST) {
			if (nr == SCMP_SYS(clone) || nr == SCMP_SYS(clone3) ||
			    nr == SCMP_SYS(ioctl) || nr == SCMP_SYS(personality) ||
			    nr == SCMP_SYS(memfd_create) || nr == SCMP_SYS(mknodat) ||
			    nr == SCMP_SYS(mknod) || (explain && is_watched(nr)))
				continue;
			r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
		} else {
			r = seccomp_rule_add(ctx, DENY, nr, 0);
		}
		if (r < 0 && r != -EEXIST)
			return r;
	}
	return 0;
}

/* Step 3, deny list: the built-in denials, ptrace unless allowed, and the
 * argument rules. */
static int add_deny_list_rules(scmp_filter_ctx ctx, bool allow_ptrace)
{
	int r;

	for (size_t i = 0; syscall_default_deny[i]; i++)
		if ((r = deny(ctx, syscall_default_deny[i], DENY)) < 0 && r != -EEXIST)
			return r;
	if (!allow_ptrace)
		for (size_t i = 0; ptrace_family[i]; i++)
			if ((r = deny(ctx, ptrace_family[i], DENY)) < 0 && r != -EEXIST)
				return r;
	return add_arg_rules(ctx, DENY);
}

/* mknod and mknodat make FIFOs only (os.mkfifo): a device node is no use in
 * a jail, and the mode's file type is checked on the low 32 bits. */
static int add_fifo_rules(scmp_filter_ctx ctx)
{
	int r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mknodat), 1,
				 SCMP_A2(SCMP_CMP_MASKED_EQ, S_IFMT, S_IFIFO));
	int nr;

	/* mknod exists on x86-64 only; a pseudo-number elsewhere. */
	if (r == 0 && resolve("mknod", &nr) == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 1,
				     SCMP_A1(SCMP_CMP_MASKED_EQ, S_IFMT, S_IFIFO));
	return r;
}

/* Step 3, allow list: the default denies; allow only the harmless shapes
 * of clone, personality, ioctl and mknod. Any other ioctl goes to the
 * listener, which answers it ENOTTY (supervise.c), as a driver without
 * that request would: libraries fall back on ENOTTY, not on EPERM. */
static int add_allow_list_shapes(scmp_filter_ctx ctx)
{
	/* The terminal requests act on the jail's own ptys (its devpts
	 * instance) or on --tty's: job control and modes, never TIOCSTI. */
	static const unsigned long ioctls[] = {
		TCGETS,	    FIONREAD,	FIOCLEX,    FIONCLEX,  FIONBIO,   TIOCGWINSZ,
		TCSETS,	    TCSETSW,	TCSETSF,    TIOCSWINSZ, TIOCGPTN, TIOCSPTLCK,
		TIOCGPTPEER, TIOCGPGRP, TIOCSPGRP,  TIOCSCTTY, TIOCGSID,  TCFLSH,
	};
	int r;

	r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 1,
			     SCMP_A0(SCMP_CMP_MASKED_EQ, NS_FLAGS, 0));
	if (r == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
	if (r == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(personality), 1,
				     SCMP_A0(SCMP_CMP_EQ, PER_LINUX));
	if (r == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(personality), 1,
				     SCMP_A0(SCMP_CMP_EQ, 0xffffffffu));
	for (size_t i = 0; r == 0 && i < sizeof(ioctls) / sizeof(ioctls[0]); i++)
		r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
				     SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, ioctls[i]));
	return r == 0 ? add_fifo_rules(ctx) : r;
}

static int compile(enum seccomp_mode mode, char *const *names, size_t n_names, bool allow_ptrace,
		   bool explain, uint8_t **ret_bpf, size_t *ret_len, size_t *ret_bad_index)
{
	__attribute__((cleanup(release_ctx))) scmp_filter_ctx ctx =
		seccomp_init(mode == SECCOMP_ALLOW_LIST ? DENY : SCMP_ACT_ALLOW);
	int r;

	if (!ctx)
		return -ENOMEM;
	if ((r = set_attrs_and_arches(ctx)) < 0)
		return r;
	if ((r = add_named(ctx, mode, names, n_names, explain, ret_bad_index)) < 0)
		return r;
	if (mode == SECCOMP_DENY_LIST)
		r = add_deny_list_rules(ctx, allow_ptrace);
	else
		r = add_allow_list_shapes(ctx);
	if (r < 0)
		return r;
	/* Step 4: memfd_create, made non-executable (add_memfd_rules). */
	if (filter_memfd_sealed(mode, names, n_names) && (r = add_memfd_rules(ctx, mode)) < 0)
		return r;
	/* Step 5, --explain: open and exec calls the steps above allow. */
	if (explain && (r = add_explain_rules(ctx, mode, names, n_names)) < 0)
		return r;
	return export_bpf(ctx, ret_bpf, ret_len);
}

int filter_compile(enum seccomp_mode mode, char *const *names, size_t n_names,
		   bool allow_ptrace, uint8_t **ret_bpf, size_t *ret_len, size_t *ret_bad_index)
{
	return compile(mode, names, n_names, allow_ptrace, false, ret_bpf, ret_len, ret_bad_index);
}

/* The cache key names everything the program depends on. */
static void cache_name(enum seccomp_mode mode, char *const *names, size_t n_names,
		       bool allow_ptrace, bool explain, char ret[96])
{
	const struct scmp_version *v = seccomp_version();
	struct sha256_ctx ctx;
	uint8_t d[SHA256_DIGEST_SIZE];
	char head[128];

	snprintf(head, sizeof(head), "hutch-filter-6 %s libseccomp %u.%u.%u mode %d ptrace %d%s\n",
		 HUTCH_VERSION, v->major, v->minor, v->micro, (int)mode, (int)allow_ptrace,
		 explain ? " explain" : "");
	sha256_init(&ctx);
	sha256_update(&ctx, strlen(head), (const uint8_t *)head);
	for (size_t i = 0; i < n_names; i++) {
		sha256_update(&ctx, strlen(names[i]), (const uint8_t *)names[i]);
		sha256_update(&ctx, 1, (const uint8_t *)"\n");
	}
	sha256_digest(&ctx, sizeof(d), d);
	memcpy(ret, "filter-", 7);
	for (size_t i = 0; i < sizeof(d); i++)
		snprintf(ret + 7 + 2 * i, 3, "%02x", d[i]);
	memcpy(ret + 7 + 2 * sizeof(d), ".bpf", 5);
}

static int compile_cached(enum seccomp_mode mode, char *const *names, size_t n_names,
			  bool allow_ptrace, bool explain, uint8_t **ret_bpf, size_t *ret_len,
			  size_t *ret_bad_index)
{
	char name[96];
	int r;

	cache_name(mode, names, n_names, allow_ptrace, explain, name);
	if (cache_read(name, 8 * 4096, ret_bpf, ret_len) == 0) {
		if (*ret_len > 0 && *ret_len % 8 == 0)
			return 0;
		free(*ret_bpf);
		*ret_bpf = NULL;
	}
	r = compile(mode, names, n_names, allow_ptrace, explain, ret_bpf, ret_len, ret_bad_index);
	if (r == 0)
		cache_write(name, *ret_bpf, *ret_len);
	return r;
}

int filter_compile_cached(enum seccomp_mode mode, char *const *names, size_t n_names,
			  bool allow_ptrace, uint8_t **ret_bpf, size_t *ret_len,
			  size_t *ret_bad_index)
{
	return compile_cached(mode, names, n_names, allow_ptrace, false, ret_bpf, ret_len,
			      ret_bad_index);
}

int filter_compile_explain(enum seccomp_mode mode, char *const *names, size_t n_names,
			   bool allow_ptrace, uint8_t **ret_bpf, size_t *ret_len, size_t *ret_bad_index)
{
	return compile(mode, names, n_names, allow_ptrace, true, ret_bpf, ret_len, ret_bad_index);
}

int filter_compile_explained(enum seccomp_mode mode, char *const *names, size_t n_names,
			     bool allow_ptrace, uint8_t **ret_bpf, size_t *ret_len,
			     size_t *ret_bad_index)
{
	return compile_cached(mode, names, n_names, allow_ptrace, true, ret_bpf, ret_len,
			      ret_bad_index);
}
