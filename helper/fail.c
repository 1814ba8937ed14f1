/* fail.c: the helper's only way to report: one fixed-size record on the
 * close-on-exec status pipe, then exit 71. Async-signal-safe, no allocation,
 * never request content (indexes only). */
#include "config.h"

#include <unistd.h>

#include "hutch-abi.h"
#include "helper.h"

/* An early-cloned pid 1 not yet released (ahead.c): it goes first, so
 * that no refusal leaves it behind. 0: none. */
static pid_t kill_first;

void fail_kill_first(pid_t child)
{
	kill_first = child;
}

/* A pooled jail's outer process before its job (pool.c): its record goes
 * to sink, which does not return. Only for the process that set it: a
 * pid 1 cloned meanwhile inherits the pointer and must not use it. */
static void (*fail_sink)(const struct hutch_status *st);
static pid_t fail_sink_pid;

void fail_redirect(void (*sink)(const struct hutch_status *st))
{
	fail_sink = sink;
	fail_sink_pid = sink ? getpid() : 0;
}

static struct hutch_status record(enum hutch_status_code code, enum hutch_stage stage,
				  uint32_t item, int err)
{
	return (struct hutch_status){
		.magic = HUTCH_STATUS_MAGIC,
		.code = (uint16_t)code,
		.stage = (uint16_t)stage,
		.item = item,
		.err = err,
	};
}

void record_to(int status_fd, enum hutch_status_code code, enum hutch_stage stage,
	       uint32_t item, int err)
{
	struct hutch_status st = record(code, stage, item, err);
	ssize_t n = write(status_fd, &st, sizeof(st));

	(void)n; /* frontend gone? its exit status still says "refused" */
}

_Noreturn void fail_to(int status_fd, enum hutch_status_code code, enum hutch_stage stage,
		       uint32_t item, int err)
{
	if (kill_first > 0)
		kill_child(kill_first);
	if (fail_sink && getpid() == fail_sink_pid) {
		struct hutch_status st = record(code, stage, item, err);

		fail_sink(&st);
	}
	record_to(status_fd, code, stage, item, err);
	_exit(HUTCH_EXIT_SETUP);
}

_Noreturn void fail_code(enum hutch_status_code code, enum hutch_stage stage, uint32_t item,
			 int err)
{
	fail_to(HUTCH_STATUS_FD, code, stage, item, err);
}

_Noreturn void fail(enum hutch_stage stage, uint32_t item, int err)
{
	fail_code(stage == STAGE_EXEC ? HUTCH_EXEC_FAILED : HUTCH_SETUP_FAILED, stage, item, err);
}
