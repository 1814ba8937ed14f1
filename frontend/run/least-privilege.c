/* least-privilege.c: see least-privilege.h. Why one and nothing else,
 * found by running the integration tests as root with every capability
 * dropped and by reading what each failure needed: signals go to the
 * helper's outer process, which runs as the caller (same uid: no
 * CAP_KILL); cgroup files and the output directory are the caller's own
 * (no CAP_DAC_OVERRIDE, CAP_FOWNER or CAP_CHOWN: nothing is chowned, a
 * root caller's files stay root's). What remains: the jail's files belong
 * to another uid (a root caller's jail runs as a host uid of its own), and
 * a 0600 file it leaves for --collect is readable only with
 * CAP_DAC_READ_SEARCH; and that jail's user namespace is owned by its own
 * host uid, not ours (jail/host-ids.c: the kernel charges its per-user
 * counts to the namespace's owner), so the seccomp listener's reads of the
 * jail's memory (memfd_create, --explain) and /proc entries pass the
 * kernel's ptrace access check only with CAP_SYS_PTRACE.
 * Frontend only. */
#include "config.h"

#include <errno.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "run/least-privilege.h"

static const struct kept_cap kept[] = {
	{ CAP_DAC_READ_SEARCH, "cap_dac_read_search",
	  "--collect reads the files the jail's user (another uid) wrote in its /tmp and "
	  "working directory, whatever their mode" },
	{ CAP_SYS_PTRACE, "cap_sys_ptrace",
	  "seccomp user notifications (memfd_create, --explain) read the memory and /proc "
	  "entries of a jail whose user namespace belongs to a host uid of its own" },
};

#define N_KEPT (sizeof(kept) / sizeof(kept[0]))

size_t least_privilege_kept(const struct kept_cap **ret)
{
	*ret = kept;
	return N_KEPT;
}

/* capget(2) and capset(2) themselves, as the helper does: libcap-ng's
 * capng_get_caps_process and capng_apply read /proc/PID/status five
 * times a run (each a formatting of the whole file by the kernel) for
 * what two calls tell. */
static int caps_get(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };

	return syscall(SYS_capget, &h, d) < 0 ? -errno : 0;
}

static bool has_cap(const uint32_t set[2], unsigned cap)
{
	return cap < 64 && (set[cap / 32] >> (cap % 32)) & 1;
}

static bool is_kept(unsigned cap)
{
	for (size_t i = 0; i < N_KEPT; i++)
		if (kept[i].cap == cap)
			return true;
	return false;
}

/* Every capability but the kept ones out of the bounding set; the first
 * number the kernel does not know (EINVAL) ends the list. */
static int drop_bounding(void)
{
	for (unsigned cap = 0; cap < 64; cap++) {
		if (is_kept(cap))
			continue;
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0)
			return errno == EINVAL && cap > 0 ? 0 : -errno;
	}
	return 0;
}

int least_privilege_drop(void)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2], want[2] = { { 0 } };
	uint32_t eff[2], perm[2];

	if (caps_get(d) < 0)
		return -EINVAL;
	eff[0] = d[0].effective, eff[1] = d[1].effective;
	perm[0] = d[0].permitted, perm[1] = d[1].permitted;
	/* Ambient capabilities lie within permitted and inheritable: none
	 * of these, none of those. */
	if (!(eff[0] | eff[1] | perm[0] | perm[1] | d[0].inheritable | d[1].inheritable))
		return 0; /* an unprivileged caller: nothing to drop */
	/* The bounding set shrinks only with CAP_SETPCAP (root); without
	 * it, an exec could regain nothing the file does not grant anyway. */
	if (has_cap(eff, CAP_SETPCAP) && drop_bounding() < 0)
		return -EPERM;
	for (size_t i = 0; i < N_KEPT; i++) {
		unsigned c = kept[i].cap;

		if (!has_cap(perm, c))
			continue;
		want[c / 32].effective |= 1u << (c % 32);
		want[c / 32].permitted |= 1u << (c % 32);
	}
	if (syscall(SYS_capset, &h, want) < 0 ||
	    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 || caps_get(d) < 0)
		return -EPERM;
	/* What the kernel now says we hold, exactly what we asked for. */
	for (int k = 0; k < 2; k++)
		if (d[k].effective != want[k].effective || d[k].permitted != want[k].permitted ||
		    d[k].inheritable != 0)
			return -EPERM;
	return 0;
}
