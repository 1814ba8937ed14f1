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

#include <cap-ng.h>
#include <errno.h>
#include <linux/capability.h>
#include <stdbool.h>

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

int least_privilege_drop(void)
{
	capng_select_t sets = CAPNG_SELECT_CAPS | CAPNG_SELECT_AMBIENT;
	capng_type_t into = CAPNG_EFFECTIVE | CAPNG_PERMITTED;
	bool held[N_KEPT];

	capng_clear(CAPNG_SELECT_ALL);
	if (capng_get_caps_process() < 0)
		return -EINVAL;
	if (capng_have_capabilities(CAPNG_SELECT_CAPS) == CAPNG_NONE &&
	    capng_have_capabilities(CAPNG_SELECT_AMBIENT) == CAPNG_NONE)
		return 0; /* an unprivileged caller: nothing to drop */
	/* The bounding set shrinks only with CAP_SETPCAP (root); without
	 * it, an exec could regain nothing the file does not grant anyway. */
	if (capng_have_capability(CAPNG_EFFECTIVE, CAP_SETPCAP)) {
		sets = CAPNG_SELECT_ALL;
		into |= CAPNG_BOUNDING_SET;
	}
	for (size_t i = 0; i < N_KEPT; i++)
		held[i] = capng_have_capability(CAPNG_PERMITTED, kept[i].cap);
	capng_clear(sets);
	for (size_t i = 0; i < N_KEPT; i++)
		if (held[i] && capng_update(CAPNG_ADD, into, kept[i].cap) < 0)
			return -EINVAL;
	return capng_apply(sets) < 0 ? -EPERM : 0;
}
