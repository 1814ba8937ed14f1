/* run-output-dir.h: `hutch run --output-dir` and --collect without --json:
 * the output directory opened before the run, the collected files written
 * into it after, and one line on stderr for each one that was not.
 * Frontend only. */
#ifndef HUTCH_RUN_OUTPUT_DIR_H
#define HUTCH_RUN_OUTPUT_DIR_H

#include <stddef.h>

#include "doc/outcome.h"
#include "doc/plan.h"

/* Write what was collected (nothing when the outcome withholds output)
 * and say which entries were not written. Returns how many were not. */
size_t run_output_dir_write(int out_fd, const struct plan *plan, const struct outcome *o,
			    struct collected *files);

#endif
