/* cmd-run.c: `hutch run`. Options become a request document (so the CLI
 * and --request share one validator: run-options.c), the document is
 * narrowed by its policy into a plan, the plan runs, and the outcome
 * becomes a result document, printed (--json), written to --result-fd, or
 * turned into an exit status (run-report.c). This file is the steps, in
 * order. Frontend only. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "errors.h"
#include "fd-util.h"
#include "cli/cmd-run.h"
#include "cli/file-words.h"
#include "cli/run-changes-dir.h"
#include "cli/run-options.h"
#include "cli/run-output-dir.h"
#include "cli/run-report.h"
#include "cli/run-tty.h"
#include "doc/json-util.h"
#include "doc/policy-accepts.h"
#include "doc/policy-choice.h"
#include "doc/policy.h"
#include "doc/request.h"
#include "doc/result.h"
#include "jail/cgroup.h"
#include "jail/narrow.h"
#include "jail/policy-cache.h"
#include "jail/plan-json.h"
#include "run/early.h"
#include "run/execute.h"
#include "run/jail-report.h"
#include "run/probe.h"

/* What the steps of cmd_run fill in turn; run_job_done releases it on
 * every path. jr points into pol and digest. */
struct run_job {
	struct request req;
	struct policy pol;
	struct plan plan;
	struct verrors e;
	struct jail_report jr;
	char digest[72];
	struct exec_early *early;	/* the helper, started first; NULL once used */
	struct jail_timings tm;		/* our steps up to the run's (jail.timings) */
};

static void run_job_done(struct run_job *j)
{
	exec_early_discard(j->early);
	plan_free(&j->plan);
	policy_free(&j->pol);
	request_free(&j->req);
}

/* Step 1: the request, from --request or from the document the options
 * built (consumed here either way). */
static int job_read_request(struct run_cli *c, struct run_job *j)
{
	int r = c->request_file ? file_read_request(c->request_file, &j->req, &j->e)
				: request_from_json(c->doc, &j->req, &j->e);

	json_object_put(TAKE_PTR(c->doc));
	return r;
}

/* Step 2: the policy the request may use, and what the result's jail
 * report says of it. */
static int job_choose_policy(struct run_cli *c, struct run_job *j)
{
	int r;

	c->choice.cache = policy_cache();	/* parsed once per file and build */
	r = policy_choose(&c->choice, j->req.policy, &j->pol, &j->e);
	if (r < 0)
		return r;
	c->pol = &j->pol;
	jail_report_from_policy(&j->jr, &j->pol, NULL);
	if (j->req.network_set)
		j->jr.network = j->req.network; /* what it asked for, until narrowed */
	return 0;
}

/* Step 2b, interactive use: --tty passes the caller's TERM, so that
 * full-screen programs work, unless the request sets one or the policy
 * refuses the name (then the jail goes without, as without --tty). The
 * window size follows through pty-relay.c. */
static int job_tty_term(const struct run_cli *c, struct run_job *j)
{
	const char *term = getenv("TERM");

	if (!c->tty || c->request_file || !term || !*term || strlen(term) > 128 ||
	    !policy_env_allowed(&j->pol, "TERM"))
		return 0;
	if (request_add_env(&j->req, "TERM", term) < 0)
		return verror_add(&j->e, HUTCH_ERR_INTERNAL, "", "out of memory");
	return 0;
}

/* Step 3: the policy's digest, which names hutch-exec. A helper we
 * cannot execute is not found either: left to the probe, it would pass
 * for a failed sandbox (sandbox_probe_failed, 71). */
static int job_digest(struct run_job *j)
{
	if (policy_digest(&j->pol, execute_helper_path(), j->digest) < 0 ||
	    access(execute_helper_path(), X_OK) < 0)
		return verror_add(&j->e, HUTCH_ERR_HELPER_NOT_FOUND, "",
				  "cannot stat or execute hutch-exec");
	j->jr.digest = j->digest;
	return 0;
}

/* Step 4: the request narrowed by the policy into the plan. */
static int job_narrow(struct run_job *j)
{
	int r = narrow(&j->req, &j->pol, &j->plan, &j->e);

	if (r < 0) {
		/* The caller may pick another policy: say which would do. */
		policy_accepts_elsewhere(&j->e, &j->req, j->pol.name);
		return r;
	}
	j->plan.digest = strdup(j->digest);
	jail_report_add_plan(&j->jr, &j->plan);
	return 0;
}

/* --dry-run: the plan, pretty-printed, instead of running it. */
static int print_plan(const struct run_job *j)
{
	_cleanup_json_ struct json_object *d = plan_to_json(&j->plan, &j->pol);
	const char *t = d ? json_object_to_json_string_ext(d, JSON_C_TO_STRING_PRETTY |
								 JSON_C_TO_STRING_NOSLASHESCAPE)
			  : NULL;

	if (!t) {
		fputs("hutch: internal: internal error: cannot render the plan\n", stderr);
		return HUTCH_EXIT_FAILURE;
	}
	printf("%s\n", t);
	return EXIT_SUCCESS;
}

/* Step 5: the mechanisms the policy requires, and the canary for this
 * digest. HUTCH_ERR_NONE when the jail engages, else why[] says why not. */
static enum hutch_err job_probe_gate(const struct run_job *j, char *why, size_t why_size)
{
	int r;

	if (probe_requirements(&j->pol, why, why_size) < 0)
		return HUTCH_ERR_SANDBOX_UNAVAILABLE;
	r = probe_ensure(&j->pol, j->digest, why, why_size);
	if (r < 0)
		return r == PROBE_UNAVAILABLE ? HUTCH_ERR_SANDBOX_UNAVAILABLE
					      : HUTCH_ERR_SANDBOX_PROBE_FAILED;
	return HUTCH_ERR_NONE;
}

/* --changes-dir reports on the plan's overlays: there must be one. */
static int run_open_changes_dir(struct run_cli *c, const struct run_job *j)
{
	bool any = false;

	for (size_t i = 0; i < j->plan.n_mounts; i++)
		any = any || j->plan.mounts[i].overlay;
	if (!any)
		return run_usage_error("--changes-dir", "the run has no --overlay whose changes to write");
	return file_open_dir("--changes-dir", c->changes_dir, &c->changes_dir_fd);
}

/* Step 5b, outputs to the host: without --json, --collect writes into
 * --output-dir (default "."), opened before any jail exists. */
static int job_open_output_dir(struct run_cli *c, const struct run_job *j)
{
	if (c->output_dir && c->json)
		return run_usage_error("--output-dir", "has no effect with --json or --request "
						   "(the files are in the result document)");
	if (c->changes_dir && run_open_changes_dir(c, j) < 0)
		return -EINVAL;
	if (c->json || (!c->output_dir && j->plan.n_collect == 0))
		return 0;
	return file_open_dir("--output-dir", c->output_dir ? c->output_dir : ".",
			     &c->output_dir_fd);
}

/* Step 5c, interactive use: --tty needs our stdin to be a terminal and
 * output that is the terminal's, not a document or a frame. */
static int job_check_tty(const struct run_cli *c, const struct run_job *j)
{
	if (!c->tty)
		return 0;
	if (c->json || c->result_fd >= 0)
		return run_usage_error("--tty", "cannot go with --json, --request or --result-fd "
					    "(the terminal is the output)");
	if (j->plan.stdout_mode == STDOUT_FRAME)
		return run_usage_error("--tty", "cannot go with --frame");
	if (!isatty(0))
		return run_usage_error("--tty", "standard input is not a terminal; run without --tty");
	return 0;
}

/* Step 6: run the plan and emit its result. Frame mode passes output
 * through only once the frame is whole and the command succeeded: the
 * payload, without its header. */
static int job_execute(struct run_cli *c, struct run_job *j)
{
	struct exec_opts eo = {
		.passthrough = !c->json || c->result_fd >= 0,
		.forward_stdin = !c->request_file && !j->plan.stdin_given,
		.early = TAKE_PTR(j->early),
		.explain = c->explain,
		.collect_dirs = c->output_dir_fd >= 0,
		.tty = c->tty,
		.changes_data = c->changes_dir_fd >= 0,
		.drop_privileges = true, /* the probe's canary has run */
	};
	struct outcome o;
	struct collected files;
	struct json_object *doc;
	size_t off, len;
	int status;
	bool unwritten;

	if (c->tty && run_tty_enter(0) < 0) {
		fputs("hutch run: --tty: cannot set the terminal's mode\n", stderr);
		return HUTCH_EXIT_FAILURE;
	}
	execute_plan(&j->plan, &eo, &o, &files);
	run_tty_restore();
	/* Before the error line, so it comes last; a file asked for and
	 * not written fails a run that otherwise succeeded. */
	unwritten = c->output_dir_fd >= 0 &&
		    run_output_dir_write(c->output_dir_fd, &j->plan, &o, &files) > 0;
	if (c->changes_dir_fd >= 0 && run_changes_dir_write(c->changes_dir_fd, &o) > 0)
		unwritten = true;
	jail_report_add_timings(&j->jr, &j->tm, &o.timings);
	doc = result_for_outcome(&j->plan, &o, &files, &j->jr);
	if (eo.passthrough && j->plan.stdout_mode == STDOUT_FRAME &&
	    o.status == OUTCOME_EXITED && o.exit_code == 0 &&
	    result_check_frame(&o.out, &off, &len) == HUTCH_ERR_NONE)
		(void)fd_write_all(1, o.out.buf + off, len);
	status = run_finish(c, doc);
	if (unwritten && status == EXIT_SUCCESS)
		status = HUTCH_EXIT_FAILURE;
	outcome_free(&o);
	collected_free(&files);
	return status;
}

int cmd_run(int argc, char **argv)
{
	struct run_cli c = { 0 };
	_cleanup_(run_job_done) struct run_job j = { .jr.cgroup = "unavailable" };
	enum hutch_err pe;
	char why[256] = "";
	int r;

	timings_begin(&j.tm);
	cgroup_detect_remember_failure(); /* one run: looked at once, not per step */
	r = run_parse_options(argc, argv, &c);
	if (r != 0) {
		json_object_put(c.doc);
		return r > 0 ? EXIT_SUCCESS : HUTCH_EXIT_FAILURE;
	}
	timings_mark(&j.tm, TIMING_REQUEST);
	/* The helper's exec overlaps everything up to job_execute. */
	if (!c.dry_run && !c.request_file)
		j.early = exec_early_start(execute_helper_path());
	timings_mark(&j.tm, TIMING_SPAWN);
	if (job_read_request(&c, &j) < 0)
		return run_fail_with(&c, &j.e, NULL);
	timings_mark(&j.tm, TIMING_REQUEST);
	if (job_choose_policy(&c, &j) < 0)
		return run_fail_with(&c, &j.e, NULL);
	if (job_tty_term(&c, &j) < 0)
		return run_fail_with(&c, &j.e, &j.jr);
	if (job_digest(&j) < 0)
		return run_fail_with(&c, &j.e, &j.jr);
	timings_mark(&j.tm, TIMING_POLICY);
	if (job_narrow(&j) < 0)
		return run_fail_with(&c, &j.e, &j.jr);
	timings_mark(&j.tm, TIMING_PLAN);
	if (c.dry_run)
		return print_plan(&j);
	if (job_check_tty(&c, &j) < 0 || job_open_output_dir(&c, &j) < 0)
		return HUTCH_EXIT_FAILURE;
	pe = job_probe_gate(&j, why, sizeof(why));
	timings_mark(&j.tm, TIMING_PROBE);
	if (pe == HUTCH_ERR_NONE)
		r = job_execute(&c, &j);
	else
		r = run_finish(&c, result_for_error(pe, NULL, NULL, why, &j.jr));
	if (c.output_dir_fd >= 0)
		close(c.output_dir_fd);
	if (c.changes_dir_fd >= 0)
		close(c.changes_dir_fd);
	return r;
}
