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
 * The sets are read and written with capget/capset and prctl directly,
 * as the helper does (helper/privileges.c): libcap-ng's reads of
 * /proc/PID/status (five per run as root) and its start-up probe cost
 * every run more than the drop itself. Frontend only. */
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
#define BIT(c) ((uint64_t)1 << (c))

size_t least_privilege_kept(const struct kept_cap **ret)
{
	*ret = kept;
	return N_KEPT;
}

struct caps {
	uint64_t eff, prm, inh;
};

static int caps_get(struct caps *c)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = { { 0 }, { 0 } };

	if (syscall(SYS_capget, &h, d) < 0)
		return -errno;
	c->eff = d[0].effective | (uint64_t)d[1].effective << 32;
	c->prm = d[0].permitted | (uint64_t)d[1].permitted << 32;
	c->inh = d[0].inheritable | (uint64_t)d[1].inheritable << 32;
	return 0;
}

/* Effective and permitted become keep, inheritable empty; hdr.pid 0 is
 * ourselves. */
static int caps_set(uint64_t keep)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2] = {
		{ .effective = (uint32_t)keep, .permitted = (uint32_t)keep },
		{ .effective = (uint32_t)(keep >> 32), .permitted = (uint32_t)(keep >> 32) },
	};

	return syscall(SYS_capset, &h, d) < 0 ? -errno : 0;
}

/* Every capability the kernel knows but keep, out of the bounding set:
 * the kernel's EINVAL marks the first it does not know. */
static int bounding_keep(uint64_t keep)
{
	for (unsigned c = 0; c < 64; c++) {
		if (keep & BIT(c))
			continue;
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0)
			return errno == EINVAL ? 0 : -errno;
	}
	return 0;
}

int least_privilege_drop(void)
{
	struct caps c;
	uint64_t keep = 0;
	int r = caps_get(&c);

	if (r < 0)
		return r;
	/* Ambient capabilities are always within permitted and inheritable:
	 * with these empty there is none either. */
	if (!c.eff && !c.prm && !c.inh)
		return 0; /* an unprivileged caller: nothing to drop */
	for (size_t i = 0; i < N_KEPT; i++)
		keep |= c.prm & BIT(kept[i].cap);
	/* The bounding set shrinks only with CAP_SETPCAP (root), and first,
	 * while we have it; without it, an exec could regain nothing the
	 * file does not grant anyway. */
	if ((c.eff & BIT(CAP_SETPCAP)) && (r = bounding_keep(keep)) < 0)
		return r;
	if ((r = caps_set(keep)) < 0)
		return r;
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 && errno != EINVAL)
		return -errno;
	/* Trust, but verify: the kernel's view must be what we set. */
	if ((r = caps_get(&c)) < 0)
		return r;
	return c.eff == keep && c.prm == keep && !c.inh ? 0 : -EPERM;
}
