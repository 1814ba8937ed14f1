/* classify.h: the one place a run's outcome is settled. The helper's
 * record and wait status become a status and an error code; the frame
 * grammar, the rendered caps and the partial-output rule decide what a
 * result document shows; a failure is put into words. The result writer
 * (doc/result.c) serialises that verdict and decides nothing. Pure code;
 * frontend only. */
#ifndef HUTCH_CLASSIFY_H
#define HUTCH_CLASSIFY_H

#include <stdbool.h>

#include "spec.h"
#include "doc/outcome.h"
#include "doc/plan.h"

/* Settle *o once the jail is gone: status, exit_code or signal, err and
 * limit are final after it, and show_out, show_err, output_withheld and
 * detail say what a document shows. sp: the spec the helper was sent, for
 * the paths a record's mount index names ("bind of /srv/data: ENOENT");
 * NULL says "mount 3" instead. */
void classify_outcome(const struct plan *plan, const struct spec *sp, struct outcome *o);

/* The part of classify_outcome after the exit status: the frame grammar
 * (which may turn an exit into protocol_error or crash), the rendered caps
 * (result_fit: truncate, or output_overflow), the partial-output rule, and
 * the record's words. For an outcome whose status and err already say how
 * the run ended: a failure of our own before spawning, or a unit test's
 * synthetic run. */
void classify_output(const struct plan *plan, const struct spec *sp, struct outcome *o);

/* The helper refused the jail at a mechanism (its record says which):
 * sandbox_unavailable found at run time, after a probe had passed. The
 * cached probe verdict no longer holds (probe_forget). */
bool classify_jail_refused(const struct outcome *o);

#endif
