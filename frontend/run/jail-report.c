/* jail-report.c: see jail-report.h. Frontend only. */
#include "config.h"

#include "run/jail-report.h"
#include "run/probe.h"

void jail_report_from_policy(struct jail_report *jr, const struct policy *pol,
			     const char *digest)
{
	*jr = (struct jail_report){
		.policy = pol->name,
		.policy_file = pol->file,
		.digest = digest,
		.cgroup = "unavailable",
		.have_modes = true,
		.network = pol->net_default,
		.seccomp = pol->seccomp_mode,
	};
}

void jail_report_add_plan(struct jail_report *jr, const struct plan *plan)
{
	int abi = plan->landlock == LANDLOCK_OFF ? 0 : probe_landlock_abi();

	jr->landlock_abi = abi;
	/* As helper/landlock.c sizes the ruleset to the ABI. */
	jr->landlock_rights = (abi >= 1 ? LANDLOCK_RIGHT_FS : 0) |
			      (abi >= 2 ? LANDLOCK_RIGHT_FS_REFER : 0) |
			      (abi >= 3 ? LANDLOCK_RIGHT_FS_TRUNCATE : 0) |
			      (abi >= 4 && plan->network == NET_NONE ? LANDLOCK_RIGHT_NET_TCP : 0) |
			      (abi >= 5 ? LANDLOCK_RIGHT_FS_IOCTL_DEV : 0) |
			      (abi >= 6 ? LANDLOCK_RIGHT_SCOPE_UNIX | LANDLOCK_RIGHT_SCOPE_SIGNAL : 0);
}

void jail_report_add_timings(struct jail_report *jr, const struct jail_timings *before,
			     const struct jail_timings *run)
{
	jr->timings = (struct jail_timings){ 0 };
	if (before)
		timings_merge(&jr->timings, before);
	timings_merge(&jr->timings, run);
}
