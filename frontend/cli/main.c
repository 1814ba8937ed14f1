/* main.c: hutch, the frontend: verb dispatch, --help and --version.
 * Frontend only. */
#include "config.h"

#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "cli/cmd-policy.h"
#include "cli/cmd-probe.h"
#include "cli/cmd-run.h"
#include "run/probe.h"
#include "serve/serve.h"

static const char usage[] =
	"Usage: hutch run [OPTIONS] [--] COMMAND [ARG...]   run one command in a jail\n"
	"       hutch run --request FILE|-                  same, from a JSON request document\n"
	"       hutch serve [--fd N | --socket PATH]        framed protocol for daemons\n"
	"       hutch probe [--policy NAME] [--json]        what this kernel can enforce\n"
	"       hutch policy list | show NAME | check FILE | digest NAME\n"
	"       hutch --help | --version\n"
	"\n"
	"See hutch(1), hutch-policy(5), hutch-protocol(7), hutch-exec(8).\n";

static int version(void)
{
	const struct scmp_version *v = seccomp_version();

	printf("hutch %s\n", HUTCH_VERSION);
	printf("libseccomp %u.%u.%u (native, x32, x86)\n", v->major, v->minor, v->micro);
	printf("landlock: ABI 1-7 known; this kernel offers ABI %d\n", probe_landlock_abi());
	printf("helper: %s\n", HUTCH_HELPER_PATH);
	printf("policies: %s, %s\n", HUTCH_ADMIN_POLICY_DIR, HUTCH_POLICY_DIR);
	return EXIT_SUCCESS;
}

int main(int argc, char **argv)
{
	/* A dead reader is an EPIPE we handle, never a death. */
	signal(SIGPIPE, SIG_IGN);
	if (argc < 2) {
		fputs(usage, stderr);
		return HUTCH_EXIT_FAILURE;
	}
	if (strcmp(argv[1], "run") == 0)
		return cmd_run(argc - 1, argv + 1);
	if (strcmp(argv[1], "probe") == 0)
		return cmd_probe(argc - 1, argv + 1);
	if (strcmp(argv[1], "serve") == 0)
		return cmd_serve(argc - 1, argv + 1);
	if (strcmp(argv[1], "policy") == 0)
		return cmd_policy(argc - 1, argv + 1);
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0)
		return fputs(usage, stdout), EXIT_SUCCESS;
	if (strcmp(argv[1], "--version") == 0)
		return version();
	fprintf(stderr, "hutch: unknown command '%.40s'\nTry 'hutch --help'.\n", argv[1]);
	return HUTCH_EXIT_FAILURE;
}
