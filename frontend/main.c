/* main.c: hutch, the frontend: verb dispatch. Frontend only. */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "errors.h"
#include "run.h"

int main(int argc, char **argv)
{
	/* A dead reader is an EPIPE we handle, never a death. */
	signal(SIGPIPE, SIG_IGN);
	if (argc >= 2 && strcmp(argv[1], "run") == 0)
		return cmd_run(argc - 1, argv + 1);
	fprintf(stderr, "usage: hutch run [--] COMMAND [ARG...]\n");
	return HUTCH_EXIT_FAILURE;
}
