/* run-options.h: `hutch run`'s options as run-options.c parses them, for
 * cmd-run.c's steps and run-report.c's messages (internal to cli/'s run
 * files). Frontend only. */
#ifndef HUTCH_RUN_OPTIONS_H
#define HUTCH_RUN_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>

#include "doc/policy-choice.h"

struct json_object;
struct policy;

/* The options that set a request's limits: a message names the flag and
 * the value as typed, never the field (wall_ms). The definition's count
 * must match N_LIMIT_FLAGS, or its type conflicts with this one. */
struct limit_flag {
	const char *field, *flag;
	bool is_duration;
};
#define N_LIMIT_FLAGS 9
extern const struct limit_flag run_limit_flags[N_LIMIT_FLAGS];
#define MOUNT_FLAGS_MAX 64

struct run_cli {
	const char *typed[N_LIMIT_FLAGS];	/* each limit's value as typed */
	const char *mount_typed[MOUNT_FLAGS_MAX]; /* --ro/--rw/--overlay arguments, in order */
	const char *mount_flag[MOUNT_FLAGS_MAX];	/* which of the three */
	size_t n_mounts;
	struct policy_choice choice;
	const char *request_file;
	bool json, dry_run, any_request_option, explain;
	int result_fd;
	struct json_object *doc;	/* built from options */
	const struct policy *pol;	/* once chosen: its maxima for messages */
	bool oom;			/* json-c could not allocate a member */
	/* outputs to the host: where --collect writes without --json */
	const char *output_dir;
	int output_dir_fd;
	const char *changes_dir;	/* --changes-dir */
	int changes_dir_fd;
	/* interactive use: --tty */
	bool tty;
};

/* One line naming the option or argument and the problem, then a hint;
 * -EINVAL. */
int run_usage_error(const char *what, const char *problem);

/* 0 with *c filled (c->doc is the caller's either way), 1 after --help,
 * or -errno with the problem said. */
int run_parse_options(int argc, char **argv, struct run_cli *c);

#endif
