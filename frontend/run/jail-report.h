/* jail-report.h: the one builder of a result's "jail" section (struct
 * jail_report, doc/result.h): what the policy says before a plan exists,
 * then what the plan and this kernel add. Frontend only. */
#ifndef HUTCH_JAIL_REPORT_H
#define HUTCH_JAIL_REPORT_H

#include "doc/plan.h"
#include "doc/policy.h"
#include "doc/result.h"

/* From the policy and its digest (NULL until known); no cgroup yet. */
void jail_report_from_policy(struct jail_report *jr, const struct policy *pol,
			     const char *digest);

/* Once narrowed: the Landlock ABI the plan's jail gets here. */
void jail_report_add_plan(struct jail_report *jr, const struct plan *plan);

/* Once run: jail.timings, the caller's own steps (NULL: none, as in
 * hutch serve, whose policy is loaded once) then the run's. */
void jail_report_add_timings(struct jail_report *jr, const struct jail_timings *before,
			     const struct jail_timings *run);

#endif
