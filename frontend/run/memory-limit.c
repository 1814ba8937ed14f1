/* memory-limit.c: a run that ended at its memory limit (memory-limit.h).
 * Without a cgroup nothing records that an allocation failed, so the
 * verdict needs both an abnormal end (a non-zero exit, or SIGABRT, SIGSEGV,
 * SIGBUS, SIGTRAP, SIGILL, SIGKILL) and a runtime's out-of-memory words in
 * the last 8 KiB of stderr (or of stdout, where it was read rather than
 * spliced to a pass-through destination). It misses a program that fails silently or
 * in its own words, and can blame the limit for an out-of-memory that
 * was not ours (a program that says so for another reason). max_rss says
 * nothing here: a refused allocation was never resident. Frontend only. */
#include "config.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "doc/units.h"
#include "run/memory-limit.h"

void memory_tail_keep(struct capture *c, const uint8_t *data, size_t n)
{
	if (n >= CAPTURE_TAIL) {
		memcpy(c->tail, data + n - CAPTURE_TAIL, CAPTURE_TAIL);
		c->tail_len = CAPTURE_TAIL;
		return;
	}
	if (c->tail_len + n > CAPTURE_TAIL) {
		size_t drop = c->tail_len + n - CAPTURE_TAIL;

		memmove(c->tail, c->tail + drop, c->tail_len - drop);
		c->tail_len -= drop;
	}
	memcpy(c->tail + c->tail_len, data, n);
	c->tail_len += n;
}

/* What runtimes print when an allocation fails: glibc's strerror(ENOMEM),
 * C++, V8 and Node, the JVM, Go, Python, Rust, Ruby, ASan, and shells. */
static const char *const words[] = {
	"Cannot allocate memory",
	"Not enough space",		/* musl's ENOMEM; the JVM's commit_memory warning */
	"errno=12",			/* the JVM */
	"std::bad_alloc",
	"Allocation failed",		/* V8: "Zone Allocation failed", "... heap" */
	"out of memory",		/* Go "runtime: ...", V8 "Fatal process ..." */
	"Out of memory",
	"OutOfMemoryError",		/* the JVM */
	"insufficient memory",		/* the JVM's fatal error report */
	"MemoryError",			/* Python */
	"memory allocation of",		/* Rust: "memory allocation of N bytes failed" */
	"failed to allocate",		/* ASan and many C programs */
	"NoMemoryError",		/* Ruby */
	NULL,
};

static const char *found(const struct capture *c)
{
	for (size_t i = 0; words[i]; i++)
		if (memmem(c->tail, c->tail_len, words[i], strlen(words[i])))
			return words[i];
	return NULL;
}

/* stderr, or stdout where it was read (not spliced through): the JVM
 * prints its fatal error report there. */
static const char *found_any(const struct outcome *o)
{
	const char *w = found(&o->errc);

	return w ? w : found(&o->out);
}

/* AddressSanitizer reserves its shadow memory at start: one private
 * writable MAP_NORESERVE mapping of terabytes (0xdfff0001000 bytes on
 * x86_64, gcc 12), which RLIMIT_DATA counts whole. When that reservation
 * fails it says this, and no --memory accepted (1T at most) would let it
 * start: the advice to raise --memory would send a caller round in a
 * circle. */
static bool sanitizer_shadow(const struct outcome *o)
{
	static const char w[] = "ReserveShadowMemoryRange";

	return memmem(o->errc.tail, o->errc.tail_len, w, sizeof(w) - 1) ||
	       memmem(o->out.tail, o->out.tail_len, w, sizeof(w) - 1);
}

static bool ended_badly(const struct outcome *o)
{
	if (o->status == OUTCOME_EXITED)
		return o->exit_code != 0;
	if (o->status != OUTCOME_SIGNALED)
		return false;
	return o->signal == SIGABRT || o->signal == SIGSEGV || o->signal == SIGBUS ||
	       o->signal == SIGTRAP || o->signal == SIGILL || o->signal == SIGKILL;
}

void settle_memory_limit(const struct plan *plan, struct outcome *o)
{
	char lim[32], max[32];
	const char *w = NULL;

	if (plan->limits.memory_bytes == 0)
		return;
	if (o->cgroup_applied) {
		if (o->oom_kills == 0)
			return;
	} else if (!ended_badly(o) || !(w = found_any(o))) {
		return;
	}
	o->memory_limit = true;
	units_format_size(plan->limits.memory_bytes, lim, sizeof(lim));
	units_format_size(plan->memory_max, max, sizeof(max));
	if (w && sanitizer_shadow(o))
		snprintf(o->memory_detail, sizeof(o->memory_detail),
			 "the command is built with AddressSanitizer: its shadow memory, terabytes "
			 "reserved at start, fits under no RLIMIT_DATA that --memory can set (here %s "
			 "per process), so no --memory SIZE helps; run it where hutch has a delegated "
			 "cgroup (hutch(1), cgroup)", lim);
	else if (w)
		snprintf(o->memory_detail, sizeof(o->memory_detail),
			 "the command ended after an allocation failed (its output says \"%s\") "
			 "under the memory limit of %s per process (RLIMIT_DATA); raise it with "
			 "--memory SIZE (limits.memory_bytes), up to the policy's %s",
			 w, lim, max);
	else
		snprintf(o->memory_detail, sizeof(o->memory_detail),
			 "the kernel killed the command at the jail's memory limit of %s (cgroup "
			 "memory.max); raise it with --memory SIZE (limits.memory_bytes), up to "
			 "the policy's %s", lim, max);
}
