/* run-report.h: how `hutch run` reports a run (run-report.c), for
 * cmd-run.c's steps. Frontend only. */
#ifndef HUTCH_RUN_REPORT_H
#define HUTCH_RUN_REPORT_H

struct jail_report;
struct json_object;
struct run_cli;
struct verrors;

/* Print the document (or the error line) and say what to exit with;
 * doc is consumed (NULL: the fixed failure). */
int run_finish(struct run_cli *c, struct json_object *doc);

/* The first of e as the result document, said as the options were typed
 * when options built the request; the exit status. jr may be NULL. */
int run_fail_with(struct run_cli *c, const struct verrors *e, const struct jail_report *jr);

#endif
