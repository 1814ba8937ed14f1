/* execute.c: plan -> spec -> hutch-exec -> outcome (see execute.h).
 * Frontend only. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cleanup.h"
#include "doc/result.h"
#include "jail/cgroup.h"
#include "jail/filter.h"
#include "jail/layout.h"
#include "run/execute.h"
#include "run/spawn.h"

const char *execute_helper_path(void)
{
	/* The override exists for the test suite, which runs the build tree;
	 * it only ever picks which binary of ours to run, with our own
	 * privileges, so it grants nothing. */
	const char *p = getenv("HUTCH_EXEC");

	return p && p[0] == '/' ? p : HUTCH_HELPER_PATH;
}

static void classify(const struct plan *plan, struct outcome *o)
{
	int st = o->exit_status_raw;

	(void)plan;
	/* Killing pid 1 ourselves (timeout, overflow, cancel) makes the outer
	 * helper report it as died: that record says nothing new. */
	if (o->have_record && o->record.code == HUTCH_HELPER_CRASHED && o->err != HUTCH_ERR_NONE)
		o->have_record = false;
	if (o->have_record) {
		switch ((enum hutch_status_code)o->record.code) {
		case HUTCH_EXEC_FAILED:
			o->err = HUTCH_ERR_EXEC_FAILED;
			break;
		case HUTCH_MECH_UNAVAILABLE:
			o->err = HUTCH_ERR_SANDBOX_UNAVAILABLE;
			break;
		case HUTCH_SETUP_FAILED:
			o->err = o->record.stage == STAGE_HELPER_EXEC &&
						 (o->record.err == ENOENT || o->record.err == EACCES)
					 ? HUTCH_ERR_HELPER_NOT_FOUND
					 : HUTCH_ERR_SPAWN_ERROR;
			break;
		case HUTCH_HELPER_CRASHED:
			/* Our own kill of pid 1 (timeout, overflow...) keeps its code. */
			if (o->err == HUTCH_ERR_NONE)
				o->err = HUTCH_ERR_CRASH;
			break;
		case HUTCH_PRIVILEGED_BINARY:
		case HUTCH_BAD_SPEC:
		case HUTCH_STATUS_CODE_MAX:
			o->err = HUTCH_ERR_SPAWN_ERROR;
			break;
		}
	}
	if (o->err != HUTCH_ERR_NONE) {
		o->status = OUTCOME_FAILED;
		return;
	}
	if (WIFEXITED(st)) {
		o->status = OUTCOME_EXITED;
		o->exit_code = WEXITSTATUS(st);
	} else if (WIFSIGNALED(st)) {
		o->status = OUTCOME_SIGNALED;
		o->signal = WTERMSIG(st);
	} else {
		o->status = OUTCOME_FAILED;
		o->err = HUTCH_ERR_CRASH;
	}
}

struct exec_run {
	const struct plan *plan;
	struct jail_proc jp;
	struct jail_watch *watch;
	struct supervise_opts so;
	struct outcome *res;
	int control_sock;
	struct cgroup_run cg;
	bool have_cgroup;
	bool reaped;		/* supervise() waited for the helper */
};

/* Everything up to a running jail. On failure *res says why (a refused
 * jail is not a failure here: the helper runs and reports it). */
int exec_start(const struct plan *plan, const struct exec_opts *eo, struct outcome *res,
	       struct exec_run **ret)
{
	int sock[2] = { -1, -1 };
	struct cgroup_info ci;
	char why[256];
	struct layout l;
	struct spawn_stdio io = { 0 };
	const char *helper = execute_helper_path();
	uint8_t *filter = NULL, *spec = NULL;
	size_t filter_len = 0, spec_len = 0, bad = 0;
	struct exec_run *x;
	int r;

	memset(res, 0, sizeof(*res));
	res->status = OUTCOME_FAILED;
	if (access(helper, X_OK) < 0) {
		res->err = HUTCH_ERR_HELPER_NOT_FOUND;
		return -ENOENT;
	}
	x = calloc(1, sizeof(*x));
	if (!x) {
		res->err = HUTCH_ERR_INTERNAL;
		return -ENOMEM;
	}
	*x = (struct exec_run){ .plan = plan, .res = res, .control_sock = -1,
				.cg = { .dir_fd = -1 },
				.jp = { .pid = -1, .pidfd = -1, .status_rd = -1, .stdin_wr = -1,
					.stdout_rd = -1, .stderr_rd = -1 } };
	r = filter_compile_cached(plan->seccomp, plan->seccomp_names, plan->n_seccomp_names,
				  plan->allow_ptrace, &filter, &filter_len, &bad);
	if (r < 0) {
		res->err = r == -ENOENT ? HUTCH_ERR_POLICY_INVALID : HUTCH_ERR_INTERNAL;
		goto fail;
	}
	r = layout_build(plan, geteuid() == 0, filter, filter_len, &l);
	if (r < 0) {
		free(filter);
		res->err = HUTCH_ERR_INTERNAL;
		goto fail;
	}
	r = spec_encode(&l.sp, &spec, &spec_len);
	layout_free(&l);
	if (r < 0) {
		res->err = r == -E2BIG ? HUTCH_ERR_INVALID_REQUEST : HUTCH_ERR_INTERNAL;
		goto fail;
	}

	io.pipe_stdin = eo->forward_stdin || plan->stdin_given;
	io.null_stdin = !io.pipe_stdin;
	io.control_sock = -1;
	io.cgroup_fd = -1;
	/* cgroup v2 limits where a delegated subtree lets us; the policy
	 * decides whether their absence is fatal (probe_requirements). */
	if (cgroup_detect(&ci, why, sizeof(why)) == 0 &&
	    cgroup_prepare(&ci, plan->limits.memory_bytes, plan->limits.processes, 0, &x->cg) == 0) {
		io.cgroup_fd = x->cg.dir_fd;
		x->have_cgroup = true;
	} else if (plan->require_cgroup) {
		res->err = HUTCH_ERR_SANDBOX_UNAVAILABLE;
		r = -ENOTSUP;
		goto fail;
	}
	/* The control socket: pid 1 sends the seccomp listener (denial
	 * reports) and, when files are collected, the work dir on it. */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sock) < 0) {
		r = -errno;
		res->err = HUTCH_ERR_INTERNAL;
		goto fail;
	}
	io.control_sock = sock[1];
	x->control_sock = sock[0];
	r = spawn_helper(helper, spec, spec_len, &io, &x->jp);
	if (r < 0 && x->have_cgroup && !plan->require_cgroup) {
		/* The subtree would not take the helper (clone3 refused it):
		 * best effort means running on rlimits alone, as reported. */
		uint64_t oom, peak;

		cgroup_finish(&x->cg, &oom, &peak);
		x->have_cgroup = false;
		io.cgroup_fd = -1;
		r = spawn_helper(helper, spec, spec_len, &io, &x->jp);
	}
	if (sock[1] >= 0)
		close(sock[1]);
	if (r < 0) {
		res->err = HUTCH_ERR_SPAWN_ERROR;
		goto fail;
	}
	free(spec);

	x->so.wall_ms = plan->limits.wall_ms;
	x->so.idle_ms = plan->limits.idle_ms;
	x->so.kill_grace_ms = eo->kill_grace_ms ? eo->kill_grace_ms : 2000;
	x->so.stdout_bytes = plan->limits.stdout_bytes;
	x->so.stderr_bytes = plan->limits.stderr_bytes;
	x->so.passthrough = eo->passthrough;
	x->so.stdin_src_fd = eo->forward_stdin && !plan->stdin_given ? eo->stdin_fd : -1;
	x->so.stdin_data = plan->stdin_given
				   ? (plan->stdin_data ? plan->stdin_data : (const uint8_t *)"")
				   : NULL;
	x->so.stdin_len = plan->stdin_given ? plan->stdin_len : 0;
	x->so.truncate_on_overflow = plan->overflow_truncate;
	x->so.frame_mode = plan->stdout_mode == STDOUT_FRAME;
	x->so.control_fd = x->control_sock; /* the watch owns it from here */
	x->so.memfd_sealed = filter_memfd_sealed(plan->seccomp, plan->seccomp_names,
						 plan->n_seccomp_names);
	x->control_sock = -1;
	/* Kept output ends up in a result document, whose caps bound the
	 * rendering (result_fit) and never exceed RESULT_STREAM_MAX_BYTES:
	 * the supervisor kills or stops keeping once it is certainly past. */
	if (!eo->passthrough) {
		x->so.rendered_caps = true;
		x->so.stdout_bytes = result_stream_cap(x->so.stdout_bytes);
		x->so.stderr_bytes = result_stream_cap(x->so.stderr_bytes);
	}
	if (eo->unbounded_stdout)
		x->so.stdout_bytes = 0;
	*ret = x;
	return 0;
fail:
	free(spec);
	if (x->control_sock >= 0)
		close(x->control_sock);
	if (x->have_cgroup) {
		uint64_t oom, peak;

		cgroup_finish(&x->cg, &oom, &peak);
	}
	free(x);
	return r;
}

struct jail_watch *exec_watch(struct exec_run *x)
{
	if (!x->watch)
		x->watch = watch_start(&x->jp, &x->so, x->res);
	return x->watch;
}

static int exec_supervise(struct exec_run *x)
{
	int r = supervise(&x->jp, &x->so, x->res);

	x->so.control_fd = -1; /* closed by the watch */
	x->reaped = true;
	return r;
}

void exec_finish(struct exec_run *x, struct collected *ret_files)
{
	struct outcome *res = x->res;
	uint64_t peak = 0;

	memset(ret_files, 0, sizeof(*ret_files));
	if (x->watch) {
		watch_finish(x->watch); /* kills and reaps what is left */
	} else {
		/* No watch was made (no memory): nothing may outlive us. */
		if (x->so.control_fd >= 0)
			close(x->so.control_fd);
		if (!x->reaped && x->jp.pidfd >= 0)
			(void)jail_kill_and_reap(&x->jp, 0, NULL);
	}
	jail_proc_close(&x->jp);
	if (x->have_cgroup) {
		res->cgroup_applied = true;
		cgroup_finish(&x->cg, &res->oom_kills, &peak);
	}
	classify(x->plan, res);
	/* The helper has exited: the jail is empty, its work dir frozen. */
	if (x->plan->n_collect)
		collect_files(res->workdir_fd, x->plan->collect, x->plan->n_collect,
			      x->plan->collect_max_bytes, ret_files);
	if (res->workdir_fd >= 0)
		close(res->workdir_fd);
	res->workdir_fd = -1;
	free(x);
}

int execute_plan(const struct plan *plan, const struct exec_opts *eo, struct outcome *ret,
		 struct collected *ret_files)
{
	struct exec_run *x;
	int r = exec_start(plan, eo, ret, &x);

	memset(ret_files, 0, sizeof(*ret_files));
	if (r < 0)
		return r;
	r = exec_supervise(x);
	exec_finish(x, ret_files);
	return r;
}
