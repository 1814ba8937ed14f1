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
	jr->landlock_abi = plan->landlock == LANDLOCK_OFF ? 0 : probe_landlock_abi();
}
