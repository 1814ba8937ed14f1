/* execute.c: plan -> spec -> hutch-exec -> outcome (see execute.h).
 * Frontend only. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cleanup.h"
#include "fd-util.h"
#include "doc/result.h"
#include "jail/cgroup.h"
#include "jail/filter.h"
#include "jail/host-ids.h"
#include "jail/jail-path.h"
#include "jail/layout.h"
#include "run/changes.h"
#include "jail/user-caps.h"
#include "run/classify.h"
#include "run/early.h"
#include "run/execute.h"
#include "run/explain.h"
#include "run/forkserver.h"
#include "run/least-privilege.h"
#include "run/offload.h"
#include "run/probe-verdict.h"
#include "run/spawn.h"

const char *execute_helper_path(void)
{
	/* The override exists for the test suite, which runs the build tree;
	 * it only ever picks which binary of ours to run, with our own
	 * privileges, so it grants nothing. */
	const char *p = getenv("HUTCH_EXEC");

	return p && p[0] == '/' ? p : HUTCH_HELPER_PATH;
}

struct exec_run {
	const struct plan *plan;
	struct layout layout;	/* the spec sent: a refusal's words name its paths */
	struct jail_proc jp;
	struct jail_watch *watch;
	struct supervise_opts so;
	struct outcome *res;
	int control_sock;
	struct cgroup_run cg;
	struct host_id_lease ids;	/* a root caller's: held until the jail is gone */
	bool have_cgroup;
	bool reaped;		/* supervise() waited for the helper */
	bool collect_dirs;	/* eo->collect_dirs */
	bool tty;		/* eo->tty: the spec asks pid 1 for a pty */
	struct forkserver *fs;	/* eo->fs */
	uint8_t *spec;		/* the encoded spec, until the watch wrote it */
	size_t spec_len;
	bool changes_data;	/* eo->changes_data */
	unsigned concurrency;	/* eo->concurrency */
	struct user_caps_memo *caps_memo; /* eo->caps_memo */
	struct jail_timings tm;	/* our steps: the watch starts res afresh */
};

static struct exec_run *run_new(const struct plan *plan, struct outcome *res)
{
	struct exec_run *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	x->plan = plan;
	x->res = res;
	x->control_sock = -1;
	x->cg.dir_fd = -1;
	x->ids.lock_fd = -1;
	x->so.control_fd = -1;
	x->jp = (struct jail_proc){ .pid = -1, .pidfd = -1, .status_rd = -1, .stdin_wr = -1,
				    .stdout_rd = -1, .stderr_rd = -1, .exit_rd = -1,
				    .spec_wr = -1 };
	return x;
}

static void run_leave_cgroup(struct exec_run *x)
{
	struct cgroup_usage cu;

	if (!x->have_cgroup)
		return;
	cgroup_finish(&x->cg, &cu);
	x->have_cgroup = false;
}

/* What a run holds besides the jail itself, which exec_finish ends. */
static void run_free(struct exec_run *x)
{
	if (!x)
		return;
	if (x->control_sock >= 0)
		close(x->control_sock);
	run_leave_cgroup(x);
	layout_free(&x->layout);
	free(x->spec);
	host_ids_release(&x->ids); /* the helper is reaped or was never started */
	free(x);
}

static void run_freep(struct exec_run **x)
{
	run_free(*x);
}

/* Our own failure before the jail runs: *res says which, in words when
 * detail is given, settled like any outcome. Returns r. */
static int start_failed(const struct plan *plan, struct outcome *res, enum hutch_err err, int r,
			const char *detail)
{
	res->status = OUTCOME_FAILED;
	res->err = err;
	if (detail)
		snprintf(res->detail, sizeof(res->detail), "%s", detail);
	classify_output(plan, NULL, res);
	return r;
}

_Static_assert(HUTCH_SPEC_MAX_MOUNTS == 256 && HUTCH_SPEC_MAX_BYTES == 64u << 20,
	       "the words of prepare_spec name these limits");

/* Step 1: cgroup v2 limits where a delegated subtree lets us (arranged
 * on first use: we move into its leaf); the policy decides whether their
 * absence is fatal (probe_requirements), and then says why. */
static int prepare_cgroup(struct exec_run *x, struct spawn_stdio *io)
{
	const struct plan *plan = x->plan;
	struct cgroup_info ci;
	char why[OUTCOME_DETAIL_MAX] = "";
	int r = -1;

	if (cgroup_detect(&ci, why, sizeof(why)) == 0 && cgroup_arrange(&ci, why, sizeof(why)) == 0) {
		r = cgroup_prepare(&ci, plan->limits.memory_bytes, plan->limits.processes, 0,
				   &x->cg);
		if (r < 0)
			snprintf(why, sizeof(why), "cgroup: cannot make a run's cgroup in %.100s (%s)",
				 ci.path, strerrorname_np(-r) ? strerrorname_np(-r) : "?");
	}
	if (r == 0) {
		io->cgroup_fd = x->cg.dir_fd;
		x->have_cgroup = true;
	} else if (plan->require_cgroup) {
		return start_failed(plan, x->res, HUTCH_ERR_SANDBOX_UNAVAILABLE, -ENOTSUP, why);
	}
	return 0;
}

/* With the cgroup in force, memory.max and pids.max are the jail's
 * limits: they count what all its processes really use (memory: anonymous
 * pages, page cache, tmpfs files, kernel memory; pids: every process and
 * thread). The memory rlimit (HUTCH_RLIM_AS: RLIMIT_DATA, with RLIMIT_AS
 * 16 GiB above it, hutch-exec's privileges.c) counts each process alone,
 * and RLIMIT_NPROC the user's processes, not the jail's: both are lifted
 * then. Without the cgroup they are the limits. */
static void set_memory_rlimits(struct exec_run *x)
{
	const struct plan_limits *l = &x->plan->limits;
	bool cg = x->have_cgroup;

	x->layout.sp.rlimit[HUTCH_RLIM_AS] =
		cg || !l->memory_bytes ? HUTCH_RLIM_INFINITY : l->memory_bytes;
	x->layout.sp.rlimit[HUTCH_RLIM_NPROC] =
		cg || !l->processes ? HUTCH_RLIM_INFINITY : l->processes;
}

/* A root caller's jail runs as host ids of its own (jail/host-ids.h),
 * the policy's user inside: per-user counts, signals and files are then
 * the jail's alone. The lease lives as long as x. */
static int lease_host_ids(struct exec_run *x)
{
	char why[OUTCOME_DETAIL_MAX] = "";
	/* an early helper's lease (exec_early_start) when it came with one */
	int r = x->ids.lock_fd >= 0 ? 0 : host_ids_acquire(&x->ids, why, sizeof(why));

	if (r < 0)
		return start_failed(x->plan, x->res, HUTCH_ERR_SANDBOX_UNAVAILABLE, r, why);
	x->layout.sp.uid_outside = x->ids.uid;
	x->layout.sp.gid_outside = x->ids.gid;
	return 0;
}

/* Step 2: the seccomp program, the jail's layout (kept in x until the end)
 * and the spec encoded from it. The filter has one owner at a time: ours
 * here, the layout's once layout_build took it. */
static int prepare_spec(struct exec_run *x, bool explain, uint8_t **ret_spec, size_t *ret_len)
{
	const struct plan *plan = x->plan;
	_cleanup_free_ uint8_t *filter = NULL;
	uint8_t *compiled = NULL;
	size_t filter_len = 0, bad = 0;
	int r;

	/* --explain: the same program, whose allowed open and exec calls
	 * wait for the listener's "continue" (run/explain.h). */
	r = (explain ? filter_compile_explained : filter_compile_cached)(
		plan->seccomp, plan->seccomp_names, plan->n_seccomp_names, plan->allow_ptrace,
		&compiled, &filter_len, &bad);
	if (r < 0) /* compiled is written on success only */
		return start_failed(plan, x->res,
				    r == -ENOENT ? HUTCH_ERR_POLICY_INVALID : HUTCH_ERR_INTERNAL, r,
				    NULL);
	filter = compiled;
	r = layout_build(plan, geteuid() == 0, &filter, filter_len, &x->layout);
	if (r == 0)
		set_memory_rlimits(x);
	if (r == 0 && geteuid() == 0 && (r = lease_host_ids(x)) < 0)
		return r;
	if (r == 0)
		user_caps_size(geteuid() == 0, x->concurrency, x->caps_memo,
			       x->layout.sp.user_cap);
	if (r == -E2BIG) /* a policy may allow more input files than a jail holds */
		return start_failed(plan, x->res, HUTCH_ERR_INVALID_REQUEST, r,
				    "more than 256 mounts in the jail (its own, the policy's "
				    "binds, one per input file and one per bind)");
	if (r < 0)
		return start_failed(plan, x->res, HUTCH_ERR_INTERNAL, r, NULL);
	if (x->tty)
		x->layout.sp.flags |= HUTCH_SPEC_TTY;
	r = spec_encode(&x->layout.sp, ret_spec, ret_len);
	if (r == -E2BIG)
		return start_failed(plan, x->res, HUTCH_ERR_INVALID_REQUEST, r,
				    "the jail's specification is over 64 MiB (input files, "
				    "arguments and environment together)");
	if (r < 0)
		return start_failed(plan, x->res, HUTCH_ERR_INTERNAL, r, NULL);
	return 0;
}

/* Step 3: the control socket. pid 1 sends the seccomp listener (denial
 * reports) and, when files are collected, the work dir on it. Our end
 * stays in x; *ret_child_end goes to the helper and is the caller's to
 * close once it is spawned. */
static int open_control(struct exec_run *x, int *ret_child_end)
{
	int sock[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sock) < 0)
		return start_failed(x->plan, x->res, HUTCH_ERR_INTERNAL, -errno, NULL);
	x->control_sock = sock[0];
	*ret_child_end = sock[1];
	return 0;
}

/* The forkserver's child when there is one that works, else our own. */
static int spawn_one(struct forkserver *fs, const char *helper, const uint8_t *spec,
		     size_t spec_len, const struct spawn_stdio *io, struct jail_proc *jp)
{
	if (fs && fs->pid >= 0) {
		int r = forkserver_spawn(fs, spec, spec_len, io, jp);

		/* Only a forkserver that broke falls back; a refusal (no
		 * room, clone3 refused the cgroup) is the answer. */
		if (r == 0 || fs->pid >= 0)
			return r;
	}
	return spawn_helper(helper, spec, spec_len, io, jp);
}

/* Step 4: hutch-exec, started inside the cgroup when there is one. */
static int spawn_jail(struct exec_run *x, uint8_t **spec, size_t *spec_len,
		      struct spawn_stdio *io)
{
	const char *helper = execute_helper_path();
	int r = spawn_one(x->fs, helper, *spec, *spec_len, io, &x->jp);

	if (r < 0 && x->have_cgroup && !x->plan->require_cgroup) {
		/* The subtree would not take the helper (clone3 refused it):
		 * best effort means running on rlimits alone, as reported,
		 * with the spec's memory and process rlimits back. */
		run_leave_cgroup(x);
		io->cgroup_fd = -1;
		set_memory_rlimits(x);
		free(*spec);
		*spec = NULL;
		r = spec_encode(&x->layout.sp, spec, spec_len);
		if (r == 0)
			r = spawn_one(x->fs, helper, *spec, *spec_len, io, &x->jp);
	}
	if (r < 0)
		return start_failed(x->plan, x->res, HUTCH_ERR_SPAWN_ERROR, r, NULL);
	return 0;
}

/* Step 5: what the supervisor watches for, from the plan and the caller. */
static void set_supervise_opts(struct exec_run *x, const struct exec_opts *eo)
{
	const struct plan *plan = x->plan;
	struct supervise_opts *so = &x->so;

	so->wall_ms = plan->limits.wall_ms;
	so->idle_ms = plan->limits.idle_ms;
	so->kill_grace_ms = eo->kill_grace_ms ? eo->kill_grace_ms : 2000;
	so->stdout_bytes = plan->limits.stdout_bytes;
	so->stderr_bytes = plan->limits.stderr_bytes;
	so->passthrough = eo->passthrough;
	so->stdin_src_fd = eo->forward_stdin && !plan->stdin_given ? eo->stdin_fd : -1;
	so->stdin_data = plan->stdin_given
				 ? (plan->stdin_data ? plan->stdin_data : (const uint8_t *)"")
				 : NULL;
	so->stdin_len = plan->stdin_given ? plan->stdin_len : 0;
	so->truncate_on_overflow = plan->overflow_truncate;
	so->frame_mode = plan->stdout_mode == STDOUT_FRAME;
	so->control_fd = TAKE_FD(x->control_sock); /* the watch owns it from here */
	so->memfd_sealed = filter_memfd_sealed(plan->seccomp, plan->seccomp_names,
					       plan->n_seccomp_names);
	so->explain = eo->explain;
	if (eo->explain)
		so->n_explain_calls = filter_explain_calls(plan->seccomp, plan->seccomp_names,
							   plan->n_seccomp_names, so->explain_calls);
	/* Kept output ends up in a result document, whose caps bound the
	 * rendering (result_fit) and never exceed RESULT_STREAM_MAX_BYTES:
	 * the supervisor kills or stops keeping once it is certainly past. */
	if (!eo->passthrough) {
		so->rendered_caps = true;
		so->stdout_bytes = result_stream_cap(so->stdout_bytes);
		so->stderr_bytes = result_stream_cap(so->stderr_bytes);
	}
	if (eo->unbounded_stdout)
		so->stdout_bytes = 0;
	so->tty = eo->tty;
	so->proxy = plan->network == NET_PROXY ? &plan->proxy : NULL;
	so->tty_size_fd = eo->tty ? eo->stdin_fd : -1;
	so->spec = x->spec;	/* what of it jp.spec_wr still owes the helper */
	so->spec_len = x->spec_len;
}

/* Everything up to a running jail, in the steps above. On failure *res
 * says why (a refused jail is not a failure here: the helper runs and
 * reports it), and nothing of the run is left. */
int exec_start(const struct plan *plan, const struct exec_opts *eo, struct outcome *res,
	       struct exec_run **ret)
{
	_cleanup_(run_freep) struct exec_run *x = NULL;
	_cleanup_free_ uint8_t *spec = NULL;
	_cleanup_close_ int child_control = -1;
	struct exec_early *early = eo->early; /* ours from here, used or discarded */
	struct spawn_stdio io = { .pipe_stdin = eo->forward_stdin || plan->stdin_given,
				  .control_sock = -1, .cgroup_fd = -1 };
	size_t spec_len = 0;
	int r;

	memset(res, 0, sizeof(*res));
	res->status = OUTCOME_FAILED; /* until classify_outcome says otherwise */
	res->workdir_fd = -1;
	timings_begin(&res->timings);	/* spec, then spawn up to pid 1's record */
	io.null_stdin = !io.pipe_stdin;
	if (access(execute_helper_path(), X_OK) < 0)
		r = start_failed(plan, res, HUTCH_ERR_HELPER_NOT_FOUND, -ENOENT, NULL);
	else if (!(x = run_new(plan, res)))
		r = start_failed(plan, res, HUTCH_ERR_INTERNAL, -ENOMEM, NULL);
	else {
		x->collect_dirs = eo->collect_dirs;
		x->changes_data = eo->changes_data;
		x->tty = eo->tty;
		x->fs = eo->fs;
		x->concurrency = eo->concurrency ? eo->concurrency : USER_CAPS_CLI_CONCURRENCY;
		x->caps_memo = eo->caps_memo;
		if (early) /* its lease is the run's, adopted or not */
			early_take_lease(early, &x->ids);
		r = prepare_cgroup(x, &io); /* before the spec: it sets the rlimits */
	}
	if (r == 0)
		r = prepare_spec(x, eo->explain, &spec, &spec_len);
	if (r == 0)
		timings_mark(&res->timings, TIMING_SPEC);
	/* --tty keeps the path its terminal hand-over was proven on */
	if (r == 0) {
		io.bind_fds = x->layout.bind_fds;
		io.n_bind_fds = x->layout.n_bind_fds;
		io.prefix_spec = &x->layout.sp;	/* a pool builds its prefix ahead */
		io.n_prefix = x->layout.n_prefix;
	}
	if (r == 0 && early && io.pipe_stdin && io.cgroup_fd < 0 && !x->tty && !io.n_bind_fds) {
		early_adopt(TAKE_PTR(early), spec, spec_len, &x->jp, &x->control_sock);
	} else if (r == 0) {
		exec_early_discard(TAKE_PTR(early));
		if ((r = open_control(x, &child_control)) == 0) {
			io.control_sock = child_control;
			r = spawn_jail(x, &spec, &spec_len, &io);
		}
	}
	exec_early_discard(early);
	if (r == 0 && eo->drop_privileges && (r = least_privilege_drop()) < 0) {
		(void)jail_kill_and_reap(&x->jp, 0, NULL); /* fail closed */
		return start_failed(plan, res, HUTCH_ERR_INTERNAL, r,
				    "cannot drop the capabilities hutch no longer needs");
	}
	if (r < 0)
		return r;
	x->spec = TAKE_PTR(spec); /* the watch writes what the pipe did not take */
	x->spec_len = spec_len;
	set_supervise_opts(x, eo);
	x->tm = res->timings;
	*ret = TAKE_PTR(x);
	return 0;
}

void exec_move(struct exec_run *x, const struct plan *plan, struct outcome *res)
{
	x->plan = plan;
	x->res = res;
	if (x->watch)
		watch_move_outcome(x->watch, res);
}

struct jail_watch *exec_watch(struct exec_run *x)
{
	if (!x->watch && x->jp.spec_wr < 0) {
		free(x->spec); /* written whole at the start: the usual case */
		x->spec = NULL;
		x->so.spec = NULL;
		x->so.spec_len = 0;
	}
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

/* The overlays' upper layers, as frozen as the work dir; their files
 * share the collect budget with what --collect brought back, since one
 * result carries both. */
static void read_changes(struct exec_run *x, const struct collected *files,
			 const atomic_bool *cancel)
{
	uint64_t left = x->plan->collect_max_bytes;

	for (size_t i = 0; i < files->n; i++)
		left -= files->files[i].len <= left ? files->files[i].len : left;
	if (changes_read_cancellable(x->plan, x->res, x->plan->export_changes || x->changes_data,
				     left, cancel) < 0)
		change_set_free(&x->res->changes);	/* no memory, or cancelled: none */
}

/* Our steps, then pid 1's record if it came (the watch read it), which
 * charges the spawn from our last step to the helper's start. */
static void take_timings(struct exec_run *x)
{
	struct hutch_timings rec = x->res->timings.helper;
	bool have = x->res->timings.have_helper;

	x->res->timings = x->tm;
	if (have)
		(void)timings_take_record(&x->res->timings, &rec, sizeof(rec));
}

void exec_finish_jail(struct exec_run *x)
{
	struct outcome *res = x->res;
	struct cgroup_usage cu;

	if (x->watch) {
		watch_finish(x->watch); /* kills and reaps what is left */
	} else {
		/* No watch was made (no memory): nothing may outlive us. */
		if (x->so.control_fd >= 0)
			close(x->so.control_fd);
		if (!x->reaped && x->jp.pidfd >= 0)
			(void)jail_kill_and_reap(&x->jp, 0, NULL);
	}
	/* pid 1 is reaped only once its pid namespace is empty, and no
	 * process leaves one: the ids go back marked clean (host-ids.h). */
	x->ids.jail_gone = x->jp.helper_waited && (x->layout.sp.flags & HUTCH_SPEC_NS_PID);
	jail_proc_close(&x->jp);
	take_timings(x);
	if (x->have_cgroup) {
		res->cgroup_applied = true;
		cgroup_finish(&x->cg, &cu);
		res->oom_kills = cu.oom_kills;
		res->memory_peak_bytes = cu.peak_bytes;
		res->forks_refused = cu.forks_refused;
		res->memory_limit_bytes = x->plan->limits.memory_bytes;
		x->have_cgroup = false;
	}
	if (res->have_record && res->record.code == HUTCH_EXEC_FAILED &&
	    jail_exec_diagnose(x->plan, res->record.err, res->exec_why, sizeof(res->exec_why)) < 0)
		res->exec_why[0] = '\0';
	classify_outcome(x->plan, &x->layout.sp, res);
	if (classify_jail_refused(res)) /* the host changed since the probe */
		probe_forget(x->plan->digest);
	explain_finish(x->plan, res);
}

bool exec_has_files(const struct exec_run *x)
{
	return x->plan->n_collect || x->res->n_overlay_fds;
}

void exec_finish_files(struct exec_run *x, struct collected *ret_files,
		       const atomic_bool *cancel)
{
	struct outcome *res = x->res;

	memset(ret_files, 0, sizeof(*ret_files));
	/* The helper has exited: the jail is empty, its work dir frozen. */
	if (x->plan->n_collect && !offload_stop(cancel)) {
		struct collect_limits lim = { .max_count = x->plan->collect_max_count,
					      .max_bytes = x->plan->collect_max_bytes,
					      .walk_dirs = x->collect_dirs };

		collect_files(res->workdir_fd, x->plan->collect, x->plan->n_collect, &lim,
			      ret_files);
	}
	if (res->workdir_fd >= 0)
		close(res->workdir_fd);
	res->workdir_fd = -1;
	read_changes(x, ret_files, cancel);
}

void exec_free(struct exec_run *x)
{
	run_free(x);
}

void exec_finish(struct exec_run *x, struct collected *ret_files)
{
	exec_finish_jail(x);
	exec_finish_files(x, ret_files, NULL);
	exec_free(x);
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
