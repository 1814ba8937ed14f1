/* run-changes-dir.h: `hutch run --changes-dir DIR`: the overlays' change
 * set written for review before it is applied: DIR/changes.json (every
 * entry, deletions included, each written file named in it) and under
 * DIR/files/ each added or changed file and directory at its jail path.
 * Frontend only. */
#ifndef HUTCH_RUN_CHANGES_DIR_H
#define HUTCH_RUN_CHANGES_DIR_H

#include <stddef.h>

#include "doc/outcome.h"

/* Write o's change set (nothing of a run whose outputs are withheld but
 * the manifest) and say on stderr which entries were not written.
 * Returns how many were not. */
size_t run_changes_dir_write(int out_fd, struct outcome *o);

#endif
