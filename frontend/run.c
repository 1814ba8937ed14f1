/* run.c: `hutch run` (bootstrap version, replaced by the request/policy
 * pipeline). Frontend only. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errors.h"
#include "execute.h"
#include "hutch-abi.h"
#include "run.h"

static char **strv_dup(char **v, size_t n)
{
	char **r = calloc(n + 1, sizeof(char *));

	for (size_t i = 0; r && i < n; i++)
		r[i] = strdup(v[i]);
	return r;
}

int cmd_run(int argc, char **argv)
{
	static const char *env[] = { "PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/work",
				     "LANG=C.UTF-8", NULL };
	struct plan plan = { 0 };
	struct exec_opts eo = { .passthrough = true, .forward_stdin = true };
	struct outcome o;
	int i = 1, rc;

	if (i < argc && strcmp(argv[i], "--") == 0)
		i++;
	if (i >= argc) {
		fprintf(stderr, "hutch run: missing COMMAND\n");
		return HUTCH_EXIT_FAILURE;
	}
	plan.argc = (size_t)(argc - i);
	plan.argv = strv_dup(argv + i, plan.argc);
	plan.envc = 3;
	plan.envp = strv_dup((char **)env, 3);
	plan.cwd = strdup("/work");
	plan.work_dir = strdup("/work");
	plan.hostname = strdup("hutch");
	plan.network = NET_NONE;
	plan.usr_symlinks = true;
	plan.n_policy_binds = 3;
	plan.policy_binds = calloc(3, sizeof(struct plan_mount));
	plan.policy_binds[0] = (struct plan_mount){ strdup("/usr"), strdup("/usr"), false, true };
	plan.policy_binds[1] = (struct plan_mount){ strdup("/etc/ld.so.cache"), strdup("/etc/ld.so.cache"), false, false };
	plan.policy_binds[2] = (struct plan_mount){ strdup("/etc/alternatives"), strdup("/etc/alternatives"), false, false };
	plan.limits = (struct plan_limits){ .wall_ms = 30000, .cpu_ms = 30000,
					    .memory_bytes = 1ull << 30, .stdout_bytes = 1ull << 20,
					    .stderr_bytes = 1ull << 20, .file_size_bytes = 64ull << 20,
					    .processes = 64, .open_files = 256,
					    .tmp_bytes = 64ull << 20, .work_bytes = 64ull << 20 };
	plan.landlock = LANDLOCK_BEST_EFFORT;
	plan.jail_uid = plan.jail_gid = HUTCH_DEFAULT_JAIL_ID;

	execute_plan(&plan, &eo, &o);
	if (o.status == OUTCOME_EXITED)
		rc = o.exit_code;
	else if (o.status == OUTCOME_SIGNALED)
		rc = 128 + o.signal;
	else {
		fprintf(stderr, "hutch: %s: %s", hutch_err_name(o.err), hutch_err_message(o.err));
		if (o.have_record)
			fprintf(stderr, " (stage %s, item %u: %s)", status_stage_name(o.record.stage),
				o.record.item, strerror(o.record.err));
		fputc('\n', stderr);
		rc = hutch_err_exit_status(o.err);
	}
	outcome_free(&o);
	plan_free(&plan);
	return rc;
}
