/* plan.c: releasing a plan. Frontend only. */
#include "config.h"

#include <stdlib.h>

#include "doc/plan.h"
#include "doc/strv.h"

static void free_mounts(struct plan_mount *m, size_t n)
{
	for (size_t i = 0; m && i < n; i++) {
		free(m[i].source);
		free(m[i].target);
	}
	free(m);
}

void plan_free(struct plan *p)
{
	strv_free(p->argv, p->argc);
	strv_free(p->envp, p->envc);
	strv_free(p->collect, p->n_collect);
	strv_free(p->proxy.allow, p->proxy.n_allow);
	strv_free(p->seccomp_names, p->n_seccomp_names);
	free_mounts(p->policy_binds, p->n_policy_binds);
	free_mounts(p->mounts, p->n_mounts);
	for (size_t i = 0; p->masks && i < p->n_masks; i++)
		free(p->masks[i].target);
	free(p->masks);
	for (size_t i = 0; p->files && i < p->n_files; i++) {
		free(p->files[i].name);
		free(p->files[i].data);
	}
	free(p->files);
	free(p->stdin_data);
	free(p->cwd);
	free(p->work_dir);
	free(p->hostname);
	free(p->digest);
	*p = (struct plan){ 0 };
}
