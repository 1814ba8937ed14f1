/* cmd-probe.c: `hutch probe`: each mechanism this kernel offers and the
 * policy's canary (run/probe.c finds them), as a table or a JSON report.
 * Frontend only. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "errors.h"
#include "cli/cmd-probe.h"
#include "doc/json-util.h"
#include "doc/policy-extends.h"
#include "doc/policy-load.h"
#include "doc/policy.h"
#include "doc/text.h"
#include "jail/cache.h"
#include "run/execute.h"
#include "run/least-privilege.h"
#include "run/probe.h"

static void report_row(struct json_object *arr, const struct probe_mech *m, bool tty)
{
	if (arr) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "mechanism", json_object_new_string(m->name));
		json_object_object_add(o, "available", json_object_new_boolean(m->available));
		json_object_object_add(o, "detail", json_object_new_string(m->detail));
		json_object_array_add(arr, o);
		return;
	}
	printf("%-16s %s%-11s%s %s\n", m->name, tty ? (m->available ? "\033[32m" : "\033[31m") : "",
	       m->available ? "available" : "unavailable", tty ? "\033[0m" : "", m->detail);
}

static const char probe_usage[] =
	"Usage: hutch probe [--policy NAME|FILE] [--json]\n"
	"\n"
	"Report each sandbox mechanism this kernel offers and run the policy's canary.\n"
	"\n"
	"  --policy NAME|FILE     policy whose jail to verify (default: default)\n"
	"  --json                 print a JSON report\n"
	"  -h, --help             show this help\n"
	"\n"
	"Exit status: 0 when the policy's jail engages, 71 when it cannot, 125 on usage errors.\n";

/* What a root frontend keeps once its helper runs (run/least-privilege.c):
 * [{"name": ..., "why": ...}]. */
static struct json_object *kept_json(void)
{
	struct json_object *a = json_object_new_array();
	const struct kept_cap *k;
	size_t n = least_privilege_kept(&k);

	for (size_t i = 0; i < n; i++) {
		struct json_object *o = json_object_new_object();

		json_object_object_add(o, "name", json_object_new_string(k[i].name));
		json_object_object_add(o, "why", json_object_new_string(k[i].why));
		json_object_array_add(a, o);
	}
	return a;
}

static void print_kept(void)
{
	const struct kept_cap *k;
	size_t n = least_privilege_kept(&k);

	printf("run as root, hutch keeps once its helper runs (every other capability "
	       "dropped, bounding set too):\n");
	for (size_t i = 0; i < n; i++)
		printf("  %s: %s\n", k[i].name, k[i].why);
}

/* The report after the rows: the policy's verdict, a cache that is not
 * used (another user may have made /dev/shm/hutch-UID first: runs stay
 * correct, only slower) and what root keeps. */
static void print_json(struct json_object *doc, struct json_object *arr,
		       const struct policy *pol, const char *digest, bool ok)
{
	char buf[PATH_MAX + 256];
	const char *cache_why = cache_problem(buf, sizeof(buf));

	json_object_object_add(doc, "version", json_object_new_int(1));
	json_object_object_add(doc, "policy", json_object_new_string(pol->name));
	json_object_object_add(doc, "digest", json_object_new_string(digest));
	json_object_object_add(doc, "usable", json_object_new_boolean(ok));
	json_object_object_add(doc, "mechanisms", arr);
	json_object_object_add(doc, "kept_capabilities", kept_json());
	json_object_object_add(doc, "cache_problem",
			       cache_why ? json_object_new_string(cache_why) : NULL);
	printf("%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY |
							    JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(doc);
}

static void print_text(const struct policy *pol, const char *digest, bool ok)
{
	char buf[PATH_MAX + 256];
	const char *cache_why = cache_problem(buf, sizeof(buf));

	printf("policy %s (%s): %s\n", pol->name, digest, ok ? "usable" : "NOT usable");
	if (cache_why)
		printf("cache %s\n", cache_why);
	print_kept();
}

/* The policy that would not load, on one line of text (a path as typed
 * is any bytes). */
static int say_load_error(const char *policy_name, int r, const struct verrors *e)
{
	char file[PATH_MAX], reason[PATH_MAX + 256];

	text_shown(file, sizeof(file), e->n && e->items[0].file ? e->items[0].file : "--policy");
	text_shown(reason, sizeof(reason), r == -ENOENT && !e->n ? policy_missing_reason(policy_name)
					   : e->n ? e->items[0].reason : "cannot be read");
	fprintf(stderr, "hutch probe: %s: %s%s%s\n", file, e->n ? e->items[0].pointer : "",
		e->n && e->items[0].pointer[0] ? ": " : "", reason);
	return HUTCH_EXIT_FAILURE;
}

int cmd_probe(int argc, char **argv)
{
	static const struct option opts[] = { { "policy", required_argument, NULL, 'p' },
					      { "json", no_argument, NULL, 'j' },
					      { "help", no_argument, NULL, 'h' },
					      { NULL, 0, NULL, 0 } };
	const char *policy_name = "default";
	struct json_object *doc = NULL, *arr = NULL;
	struct policy pol = { 0 };
	struct verrors e = { 0 };
	struct probe_mech m[PROBE_MECHANISMS + 1];
	bool json = false, tty = isatty(1), ok;
	char digest[72] = "", why[320] = "";
	int opt, r, n;

	optind = 1;
	opterr = 0; /* said below, as "hutch probe", not getopt's "probe" */
	while ((opt = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		if (opt == 'p')
			policy_name = optarg;
		else if (opt == 'j')
			json = true;
		else if (opt == 'h')
			return fputs(probe_usage, stdout), EXIT_SUCCESS;
		else
			return fprintf(stderr, "hutch probe: unknown option or missing value '%.*s'\n"
					       "Try 'hutch probe --help'.\n",
				       (int)strcspn(argv[optind - 1], "="), argv[optind - 1]),
			       HUTCH_EXIT_FAILURE;
	}
	if (optind < argc)
		return fprintf(stderr, "hutch probe: unexpected argument\nTry 'hutch probe --help'.\n"),
		       HUTCH_EXIT_FAILURE;

	n = probe_mechanisms(m);

	r = policy_load(policy_name, &pol, &e);
	if (r < 0)
		return say_load_error(policy_name, r, &e);
	policy_digest(&pol, execute_helper_path(), digest);
	ok = probe_requirements(&pol, why, sizeof(why)) == 0 && probe_canary(&pol, why, sizeof(why)) == 0;
	m[n].name = "canary";
	m[n].available = ok;
	snprintf(m[n].detail, sizeof(m[n].detail), "%s", ok ? "the policy's jail engaged" : why);
	n++;

	if (json) {
		doc = json_object_new_object();
		arr = json_object_new_array();
	} else {
		printf("%-16s %-11s %s\n", "MECHANISM", "STATE", "DETAIL");
	}
	for (int i = 0; i < n; i++)
		report_row(arr, &m[i], tty && !json);
	if (json)
		print_json(doc, arr, &pol, digest, ok);
	else
		print_text(&pol, digest, ok);
	policy_free(&pol);
	return ok ? EXIT_SUCCESS : HUTCH_EXIT_REFUSED;
}
