/* cmd-policy.c: `hutch policy list | show NAME | check FILE | digest NAME`.
 * Frontend only. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "errors.h"
#include "cli/cmd-policy.h"
#include "doc/json-util.h"
#include "doc/policy-extends.h"
#include "doc/policy-load.h"
#include "doc/policy-review.h"
#include "doc/policy.h"
#include "doc/text.h"
#include "run/execute.h"

static const char policy_usage[] =
	"Usage: hutch policy list\n"
	"       hutch policy show NAME|FILE\n"
	"       hutch policy check [--strict] FILE|NAME\n"
	"       hutch policy digest NAME|FILE\n"
	"\n"
	"list    the policies found, admin directory first, and where each comes from\n"
	"show    the resolved policy (extends applied) in canonical form, what its digest covers\n"
	"check   validate a policy file (a path, or a file in the current directory),\n"
	"        else the installed policy of that name; every error with its file and pointer,\n"
	"        then a warning for each grant a reviewer would flag (exit 1 with --strict)\n"
	"digest  the policy's digest (sha256 of the canonical form and hutch-exec's identity)\n";

/* Every error on its own line: the file it is in (the policy, or the
 * parent in its extends chain that holds the member; the policy's own
 * file as the caller typed it), the pointer in that file, and why. */
static int report(const char *typed, const char *loaded, int r, const struct verrors *e)
{
	char real[PATH_MAX], shown[PATH_MAX];
	bool have_real = strchr(loaded, '/') && realpath(loaded, real);

	/* A path as typed, or found, is any bytes: one line of text. */
	text_shown(shown, sizeof(shown), typed);
	typed = shown;
	if (r == -ENOENT && e->n == 0) {
		fprintf(stderr, "hutch policy: %s\n", policy_missing_reason(typed));
		return r;
	}
	for (size_t i = 0; i < e->n; i++) {
		const char *f = e->items[i].file ? e->items[i].file : typed;
		char words[VERROR_ACCEPTED_MAX + VERROR_ALLOWED_BY_MAX + 256], file[PATH_MAX];

		if (have_real && strcmp(f, real) == 0)
			f = typed;
		text_shown(file, sizeof(file), f);
		f = file;
		/* With what was given and what is accepted, where known. */
		verror_message(&e->items[i], words, sizeof(words));
		fprintf(stderr, "hutch policy: %s: %s: %s\n", f,
			e->items[i].pointer[0] ? e->items[i].pointer : "/", words);
	}
	if (e->dropped)
		fprintf(stderr, "hutch policy: %s: %zu more errors not shown\n", typed, e->dropped);
	if (e->n == 0)
		fprintf(stderr, "hutch policy: %s: cannot be read\n", typed);
	return r;
}

/* typed: the argument as given; loaded: what is loaded for it. */
static int load_as(const char *typed, const char *loaded, struct policy *pol)
{
	struct verrors e = { 0 };
	int r = policy_load(loaded, pol, &e);

	return r < 0 ? report(typed, loaded, r, &e) : 0;
}

static int load_or_report(const char *name, struct policy *pol)
{
	return load_as(name, name, pol);
}

/* check FILE: a file that exists is a file even without a slash (as
 * ./FILE); anything else is looked up as a policy name. */
static int check(const char *arg, struct policy *pol)
{
	char local[PATH_MAX];
	struct stat st;

	if (!strchr(arg, '/') && lstat(arg, &st) < 0 && !policy_name_valid(arg))
		return fprintf(stderr, "hutch policy: %s: no such file\n", arg), -ENOENT;
	if (strchr(arg, '/') || lstat(arg, &st) < 0)
		return load_or_report(arg, pol);
	if (snprintf(local, sizeof(local), "./%s", arg) >= (int)sizeof(local))
		return fprintf(stderr, "hutch policy: check: path too long\n"), -ENAMETOOLONG;
	return load_as(arg, local, pol);
}

static int list(void)
{
	const char *const *dirs = policy_search_dirs();
	char seen[64][POLICY_NAME_MAX + 1];
	size_t n_seen = 0;

	for (size_t d = 0; dirs[d]; d++) {
		struct dirent **ents = NULL;
		int n = scandir(dirs[d], &ents, NULL, alphasort);

		for (int i = 0; i < n; i++) {
			const char *fn = ents[i]->d_name;
			size_t len = strlen(fn);
			bool dup = false;

			if (len > 5 && len - 5 <= POLICY_NAME_MAX && strcmp(fn + len - 5, ".json") == 0) {
				char name[POLICY_NAME_MAX + 1];

				snprintf(name, sizeof(name), "%.*s", (int)(len - 5), fn);
				for (size_t k = 0; k < n_seen; k++)
					dup |= strcmp(seen[k], name) == 0;
				printf("%-20s %s/%s%s\n", name, dirs[d], fn, dup ? " (overridden)" : "");
				if (!dup && n_seen < 64)
					snprintf(seen[n_seen++], sizeof(seen[0]), "%s", name);
			}
			free(ents[i]);
		}
		free(ents);
	}
	return EXIT_SUCCESS;
}

/* check's warnings: one line each; the count. */
static size_t warn(const char *typed, const struct policy *pol)
{
	struct policy_warning w[POLICY_REVIEW_MAX];
	size_t n = policy_review(pol, w, POLICY_REVIEW_MAX);

	for (size_t i = 0; i < n && i < POLICY_REVIEW_MAX; i++)
		fprintf(stderr, "hutch policy: %s: warning: %s: %s\n", typed, w[i].pointer, w[i].words);
	return n;
}

/* check [--strict] FILE|NAME: valid with warnings exits 0, or 1 with
 * --strict; invalid exits 125. */
static int check_cmd(int argc, char **argv)
{
	bool strict = argc == 4 && strcmp(argv[2], "--strict") == 0;
	const char *arg = argv[argc - 1];
	struct policy pol = { 0 };
	char shown[PATH_MAX];
	size_t n;

	if (argc == 4 && !strict) {
		fprintf(stderr, "hutch policy: check: unknown option '%.40s'; accepted: --strict\n"
			"Try 'hutch policy --help'.\n", argv[2]);
		return HUTCH_EXIT_FAILURE;
	}
	if (check(arg, &pol) < 0)
		return HUTCH_EXIT_FAILURE;
	text_shown(shown, sizeof(shown), arg);
	printf("%s: valid\n", shown);
	n = warn(shown, &pol);
	policy_free(&pol);
	return strict && n > 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}

int cmd_policy(int argc, char **argv)
{
	struct policy pol = { 0 };
	char digest[72];

	if (argc == 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0))
		return fputs(policy_usage, stdout), EXIT_SUCCESS;
	if (argc == 2 && strcmp(argv[1], "list") == 0)
		return list();
	if ((argc == 3 || argc == 4) && strcmp(argv[1], "check") == 0)
		return check_cmd(argc, argv);
	if (argc != 3) {
		fputs(policy_usage, stderr);
		return HUTCH_EXIT_FAILURE;
	}
	if (strcmp(argv[1], "show") == 0) {
		struct json_object *o;

		if (load_or_report(argv[2], &pol) < 0)
			return HUTCH_EXIT_FAILURE;
		o = json_tokener_parse(pol.canonical);
		printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
								  JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	} else if (strcmp(argv[1], "digest") == 0) {
		if (load_or_report(argv[2], &pol) < 0)
			return HUTCH_EXIT_FAILURE;
		if (policy_digest(&pol, execute_helper_path(), digest) < 0) {
			fprintf(stderr, "hutch policy: cannot stat hutch-exec at %s\n",
				execute_helper_path());
			policy_free(&pol);
			return HUTCH_EXIT_FAILURE;
		}
		printf("%s\n", digest);
	} else {
		fprintf(stderr, "hutch policy: unknown subcommand '%.40s'\nTry 'hutch policy --help'.\n",
			argv[1]);
		return HUTCH_EXIT_FAILURE;
	}
	policy_free(&pol);
	return EXIT_SUCCESS;
}
