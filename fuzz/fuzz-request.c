/* fuzz-request.c: libFuzzer harness for the request document: strict JSON,
 * request validation, then narrowing under the shipped default policy
 * (parsed once at start-up). Built by `make fuzz` only, never installed. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "doc/plan.h"
#include "doc/policy-load.h"
#include "doc/policy.h"
#include "doc/request.h"
#include "doc/verror.h"
#include "jail/narrow.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct policy default_policy;

static void release_policy(void)
{
	policy_free(&default_policy);
}

/* HUTCH_FUZZ_POLICY names another policy file; the default is the source
 * tree's policy/default.json, baked in by the Makefile. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *path = getenv("HUTCH_FUZZ_POLICY");
	struct verrors e = { 0 };

	(void)argc;
	(void)argv;
	if (!path)
		path = HUTCH_FUZZ_POLICY_FILE;
	if (policy_load(path, &default_policy, &e) < 0) {
		fprintf(stderr, "fuzz-request: cannot load policy %s\n", path);
		abort();
	}
	atexit(release_policy);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct request req = { 0 };
	struct plan plan = { 0 };
	struct verrors e = { 0 };

	if (request_parse((const char *)data, size, &req, &e) < 0) {
		/* A refusal always says why. */
		if (e.n == 0)
			abort();
		return 0;
	}
	if (narrow(&req, &default_policy, &plan, &e) == 0)
		plan_free(&plan);
	else if (e.n == 0)
		abort();
	request_free(&req);
	return 0;
}
