/* classify.c: a finished run's outcome, settled (see classify.h). Every
 * decision about what happened and what a document shows is made here,
 * in this order: how the run ended, the frame grammar, the caps, the
 * partial-output rule, the words. Frontend only; pure code. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>

#include "status.h"
#include "doc/result.h"
#include "doc/units.h"
#include "run/classify.h"
#include "run/memory-limit.h"

/* A setup step that failed: the host refusing one of the jail's
 * mechanisms (a mount denied, a namespace refused) is
 * sandbox_unavailable, as the probe would have said; a step about the
 * request or the helper itself (chdir, a bind source, the spec) is
 * spawn_error; an unexecutable helper is helper_not_found. */
static enum hutch_err setup_failure(const struct hutch_status *r)
{
	/* A --cwd the jail lacks is the request's fault (125), not a
	 * refused jail (71): narrow.c catches most before any jail. */
	if ((r->stage == STAGE_CHDIR || r->stage == STAGE_CWD_CHECK) &&
	    (r->err == ENOENT || r->err == ENOTDIR))
		return HUTCH_ERR_INVALID_REQUEST;
	if (r->stage == STAGE_HELPER_EXEC && (r->err == ENOENT || r->err == EACCES))
		return HUTCH_ERR_HELPER_NOT_FOUND;
	return status_stage_mechanism(r->stage) ? HUTCH_ERR_SANDBOX_UNAVAILABLE
						: HUTCH_ERR_SPAWN_ERROR;
}

bool classify_jail_refused(const struct outcome *o)
{
	return o->status == OUTCOME_FAILED && o->have_record &&
	       o->err == HUTCH_ERR_SANDBOX_UNAVAILABLE;
}

/* The record in words; a refused mechanism is named first, "mounts:
 * making mount propagation private: EPERM". */
static void describe_record(const struct spec *sp, struct outcome *o)
{
	const char *mech = status_stage_mechanism(o->record.stage);
	size_t n = 0;

	if (classify_jail_refused(o) && mech)
		n = (size_t)snprintf(o->detail, sizeof(o->detail), "%s: ", mech);
	(void)status_describe(&o->record, sp, o->detail + n, sizeof(o->detail) - n);
}

/* The helper's record, else the wait status, says how the run ended. */
static void settle_exit(struct outcome *o)
{
	int st = o->exit_status_raw;

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
			o->err = setup_failure(&o->record);
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

/* RLIMIT_CPU kills with SIGKILL (soft = hard, helper/privileges.c; an
 * XCPU where a kernel sends it first): a run killed so, whose CPU time
 * came near the limit's whole seconds, ran out of CPU time. The margin is
 * wide because rusage, read after the fact, was measured up to 30% below
 * the kernel's own count on a loaded VM; a SIGKILL from elsewhere after
 * half the limit is the price. */
static void settle_cpu_limit(const struct plan *plan, struct outcome *o)
{
	uint64_t limit_ms = (plan->limits.cpu_ms + 999) / 1000 * 1000;
	char limit[32];

	if (o->status != OUTCOME_SIGNALED || plan->limits.cpu_ms == 0 ||
	    (o->signal != SIGKILL && o->signal != SIGXCPU) || o->oom_kills > 0 ||
	    (o->cpu_user_ms + o->cpu_sys_ms) * 2 < limit_ms)
		return;
	o->status = OUTCOME_FAILED;
	o->err = HUTCH_ERR_TIMEOUT;
	o->limit = "cpu_ms";
	units_format_duration(plan->limits.cpu_ms, limit, sizeof(limit));
	snprintf(o->detail, sizeof(o->detail), "killed at its CPU time limit of %s (--cpu)", limit);
}

/* Frame grammar: exactly one frame, then exit 0; the payload is shown.
 * False when the frame is broken: nothing may then be shown. */
static bool settle_frame(const struct plan *plan, struct outcome *o, struct shown *out)
{
	size_t off = 0, len = 0;

	if (plan->stdout_mode != STDOUT_FRAME || o->status == OUTCOME_FAILED)
		return true;
	if (o->status != OUTCOME_EXITED || o->exit_code != 0)
		o->err = HUTCH_ERR_CRASH;
	else
		o->err = result_check_frame(&o->out, &off, &len);
	if (o->err != HUTCH_ERR_NONE) {
		o->status = OUTCOME_FAILED;
		return false;
	}
	out->off = off;
	out->len = len;
	return true;
}

/* The caps bound the rendered field (result_fit), which also picks text
 * or base64. Past a cap: truncate per the policy, or fail with
 * output_overflow; a frame is never cut, and false says so. */
static bool settle_cap(const struct plan *plan, struct outcome *o, const struct capture *c,
		       struct shown *sh, uint64_t cap, const char *limit, bool frame)
{
	const uint8_t *data = c->buf ? c->buf + sh->off : (const uint8_t *)"";
	uint64_t rendered;
	bool text;
	size_t n = result_fit(data, sh->len, cap, &text, &rendered);

	sh->base64 = !text;
	if (n == sh->len)
		return true;
	sh->len = n;
	sh->truncated = true;
	if (plan->overflow_truncate && !frame)
		return true;
	if (o->status != OUTCOME_FAILED || o->err == HUTCH_ERR_NONE) {
		o->status = OUTCOME_FAILED;
		o->err = HUTCH_ERR_OUTPUT_OVERFLOW;
		o->limit = limit;
	}
	return !frame;
}

/* Which output survives: none after a kill unless the policy keeps
 * partial output, none of a refused jail. */
static bool output_survives(const struct plan *plan, const struct outcome *o)
{
	if (o->status != OUTCOME_FAILED)
		return true;
	if (o->have_record)
		return false;
	return plan->partial_output ||
	       (o->err != HUTCH_ERR_TIMEOUT && o->err != HUTCH_ERR_OUTPUT_OVERFLOW &&
		o->err != HUTCH_ERR_FRAME_OVERSIZED && o->err != HUTCH_ERR_CANCELLED);
}

/* --keep-partial: a run our own kill cut short (a timeout, a cap,
 * cancel) keeps what was captured, up to the caps settle_cap applied; a
 * refused jail or an unexecuted command has nothing of its own to keep. */
static bool cut_short(const struct outcome *o)
{
	return o->status == OUTCOME_FAILED && !o->have_record &&
	       (o->err == HUTCH_ERR_TIMEOUT || o->err == HUTCH_ERR_OUTPUT_OVERFLOW ||
		o->err == HUTCH_ERR_FRAME_OVERSIZED || o->err == HUTCH_ERR_CANCELLED);
}

void classify_output(const struct plan *plan, const struct spec *sp, struct outcome *o)
{
	bool frame = plan->stdout_mode == STDOUT_FRAME, shown;

	o->show_out = (struct shown){ .len = o->out.len, .truncated = o->out.truncated };
	o->show_err = (struct shown){ .len = o->errc.len, .truncated = o->errc.truncated };
	/* Each step runs whatever the one before found: the caps pick the
	 * rendering even of a stream that is then withheld. */
	shown = settle_frame(plan, o, &o->show_out);
	shown = settle_cap(plan, o, &o->out, &o->show_out, plan->limits.stdout_bytes,
			   "stdout_bytes", frame) && shown;
	shown = settle_cap(plan, o, &o->errc, &o->show_err, plan->limits.stderr_bytes,
			   "stderr_bytes", false) && shown;
	o->output_withheld = !(output_survives(plan, o) && shown);
	if (plan->keep_partial && cut_short(o)) {
		o->output_withheld = false;
		/* The frame grammar: exactly one frame or no result, never
		 * part of one; stderr is kept. */
		if (frame)
			o->show_out = (struct shown){ .truncated = true };
	}
	o->partial = !o->output_withheld && cut_short(o);
	/* The record in words; our own failures before spawning wrote theirs. */
	if (o->have_record && o->record.stage == STAGE_EXEC && o->exec_why[0])
		snprintf(o->detail, sizeof(o->detail), "executing the command: %s", o->exec_why);
	else if (o->have_record)
		describe_record(sp, o);
}

void classify_outcome(const struct plan *plan, const struct spec *sp, struct outcome *o)
{
	settle_exit(o);
	settle_cpu_limit(plan, o);
	settle_memory_limit(plan, o);
	classify_output(plan, sp, o);
}
