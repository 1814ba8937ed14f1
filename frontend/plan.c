/* plan.c: releasing a plan. Frontend only. */
#include "config.h"

#include <stdlib.h>

#include "plan.h"

static void free_strv(char **v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

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
	free_strv(p->argv, p->argc);
	free_strv(p->envp, p->envc);
	free_strv(p->collect, p->n_collect);
	free_strv(p->seccomp_names, p->n_seccomp_names);
	free_mounts(p->policy_binds, p->n_policy_binds);
	free_mounts(p->mounts, p->n_mounts);
	for (size_t i = 0; p->files && i < p->n_files; i++) {
		free(p->files[i].name);
		free(p->files[i].data);
	}
	free(p->files);
	free(p->stdin_data);
	free(p->cwd);
	free(p->work_dir);
	free(p->hostname);
	free(p->policy_name);
	free(p->digest);
	*p = (struct plan){ 0 };
}
