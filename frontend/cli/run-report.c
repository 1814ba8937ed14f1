/* run-report.c: how `hutch run` reports a run: the result document,
 * printed (--json) or written to --result-fd, the error line and the
 * --explain lines on stderr, and the exit status; a request error made
 * from options is said in the words of the command line. Frontend only. */
#include "config.h"

#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "fd-util.h"
#include "cli/run-options.h"
#include "cli/run-report.h"
#include "doc/policy.h"
#include "doc/result.h"
#include "doc/result-net.h"
#include "doc/text.h"
#include "doc/units.h"
#include "doc/verror.h"

/* What is printed when json-c can render no document at all (it cannot
 * allocate): the shape of any failed result, from fixed text. */
static const char unrenderable[] =
	"{\"version\":1,\"status\":\"failed\",\"exit_code\":null,\"signal\":null,"
	"\"error\":{\"code\":\"internal\",\"message\":\"internal error: cannot render the result\"},"
	"\"stdout\":{\"text\":\"\",\"truncated\":true,\"bytes\":0},"
	"\"stderr\":{\"text\":\"\",\"truncated\":true,\"bytes\":0},"
	"\"files\":[],\"usage\":null,\"jail\":null}";

/* The document as one line, rendered only when it goes somewhere (a
 * plain run's is read, not printed). json-c returns NULL when it cannot
 * render (memory; a document past its int lengths, which the rendered
 * caps rule out): then the fixed failure, never strlen(NULL). */
static void emit(struct run_cli *c, struct json_object *doc)
{
	int fd = c->result_fd >= 0 ? c->result_fd : c->json ? 1 : -1;
	size_t len = 0;
	const char *text;

	if (fd < 0)
		return;
	text = doc ? json_object_to_json_string_length(
			     doc, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len)
		   : NULL;
	if (!text) {
		text = unrenderable;
		len = strlen(unrenderable);
	}
	(void)fd_write_all(fd, text, len);
	(void)fd_write_all(fd, "\n", 1);
}

/* Print the document (or the error line) and say what to exit with. */
int run_finish(struct run_cli *c, struct json_object *doc)
{
	int status = result_exit_status(doc);

	emit(c, doc);
	if (c->explain && doc) {
		result_print_explain(doc);
		result_print_network_explain(doc);
	}
	if (!c->json && doc) {
		result_print_error(doc);
		result_print_network_hint(doc, c->explain);
	}
	else if (!c->json)
		fputs("hutch: internal: internal error: cannot render the result\n", stderr);
	json_object_put(doc);
	return c->json ? EXIT_SUCCESS : status;
}

/* A limit's value in the units its option takes: "1h", "16G", "1024". */
static void format_limit(const struct limit_flag *f, uint64_t v, char *buf, size_t cap)
{
	size_t len = strlen(f->field);

	if (f->is_duration)
		units_format_duration(v, buf, cap);
	else if (len > 6 && strcmp(f->field + len - 6, "_bytes") == 0)
		units_format_size(v, buf, cap);
	else
		snprintf(buf, cap, "%" PRIu64, v);
}

/* "--timeout 2h is above the policy's maximum of 1h", "--timeout 0: out
 * of range; accepted: 1ms to 168h": a limit's error in the words of the
 * command line. False when no option set it. */
static bool say_limit(const struct run_cli *c, const struct verror *v, const char *field)
{
	char lo[32], hi[32];

	for (size_t i = 0; i < N_LIMIT_FLAGS; i++) {
		const struct limit_flag *f = &run_limit_flags[i];
		uint64_t max;
		int k;

		if (strcmp(f->field, field) != 0 || !c->typed[i])
			continue;
		for (k = 0; k < LIM_COUNT && strcmp(limit_defs[k].name, field) != 0; k++)
			;
		if (k == LIM_COUNT)
			break;
		max = limit_defs[k].max;
		if (c->pol && c->pol->limits[k].max < max)
			max = c->pol->limits[k].max;
		format_limit(f, limit_defs[k].min, lo, sizeof(lo));
		format_limit(f, max, hi, sizeof(hi));
		if (c->pol && strcmp(v->reason, "above the policy's maximum") == 0)
			fprintf(stderr, "hutch: %s: %s %s is above the policy's maximum of %s\n",
				hutch_err_name(v->code), f->flag, c->typed[i], hi);
		else
			fprintf(stderr, "hutch: %s: %s %s: %s; accepted: %s to %s%s\n",
				hutch_err_name(v->code), f->flag, c->typed[i], v->reason, lo, hi,
				c->pol ? "" : ", within the policy's maximum");
		return true;
	}
	return false;
}

/* The option a pointer into the request names, or NULL. */
static const char *flag_for(const struct run_cli *c, const char *ptr, char *buf, size_t cap)
{
	static const char *const plain[][2] = {
		{ "/cwd", "--cwd" },	 { "/network", "--network" }, { "/collect", "--collect" },
		{ "/files", "--input" }, { "/policy", "--policy" },   { "/stdout_mode", "--frame" },
		{ "/argv", "COMMAND" },	 { "/allow_hosts", "--allow-host" }, { "/hide", "--hide" },
		{ "/allow_private", "--allow-private" },
	};
	unsigned long n;
	char *end;

	if (strncmp(ptr, "/env/", 5) == 0) {
		snprintf(buf, cap, "--env %s", ptr + 5);
		return buf;
	}
	if (strncmp(ptr, "/mounts/", 8) == 0) {
		n = strtoul(ptr + 8, &end, 10);
		if (n >= c->n_mounts || n >= MOUNT_FLAGS_MAX)
			return "--ro/--rw/--overlay";
		snprintf(buf, cap, "%s %s%s%s", c->mount_flag[n], c->mount_typed[n],
			 *end == '/' ? ": " : "", *end == '/' ? end + 1 : "");
		return buf;
	}
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		if (strncmp(ptr, plain[i][0], strlen(plain[i][0])) == 0 &&
		    (ptr[strlen(plain[i][0])] == '\0' || ptr[strlen(plain[i][0])] == '/'))
			return plain[i][1];
	return NULL;
}

/* A request error from options, said on stderr as the options were
 * typed, after its code ("hutch: policy_violation: --env NAME: ..."). False for --request documents and pointers no option sets: the
 * document's own line (code, message, pointer) is printed then. */
static bool say_as_typed(const struct run_cli *c, const struct verror *v)
{
	char buf[PATH_MAX + 64], shown[PATH_MAX + 64];
	char words[VERROR_ACCEPTED_MAX + VERROR_ALLOWED_BY_MAX + 256];
	const char *flag;

	if (c->request_file || c->json)
		return false;
	if (strncmp(v->pointer, "/limits/", 8) == 0)
		return say_limit(c, v, v->pointer + 8);
	flag = flag_for(c, v->pointer, buf, sizeof(buf));
	if (!flag)
		return false;
	verror_message(v, words, sizeof(words));
	text_shown(shown, sizeof(shown), flag);	/* --overlay PATH: as typed */
	fprintf(stderr, "hutch: %s: %s: %s\n", hutch_err_name(v->code), shown, words);
	return true;
}

int run_fail_with(struct run_cli *c, const struct verrors *e, const struct jail_report *jr)
{
	const struct verror *v = &e->items[0];
	struct json_object *doc = result_for_verror(v, jr);
	int status;

	/* An error inside a policy file names the file of its extends chain;
	 * its pointer is into that policy, not the request, so it is never
	 * said as an option. */
	if (!doc || v->file || !say_as_typed(c, v))
		return run_finish(c, doc);
	status = result_exit_status(doc); /* said above: the document only goes to --result-fd */
	emit(c, doc);
	json_object_put(doc);
	return status;
}
