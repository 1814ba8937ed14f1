/* fuzz-policy-extends.c: libFuzzer harness for a policy that extends
 * another (frontend/doc/policy-extends.c). The input is the child's text,
 * as if read from policy/fuzz-child.json; parents are found by name or
 * path in the source tree's policy/ (default, strict, network) as
 * policy_load finds them. A resolved policy's canonical form must parse
 * again to itself; a refusal must carry errors, each naming a file and a
 * pointer. Built by `make fuzz` only, never installed. */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc/policy-extends.h"
#include "doc/policy-load.h"
#include "doc/policy.h"
#include "doc/verror.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The directory of the shipped default, on HUTCH_POLICY_PATH (read once). */
static const char *policy_dir(void)
{
	static char dir[4096];
	char *slash;

	if (dir[0])
		return dir;
	snprintf(dir, sizeof(dir), "%s", HUTCH_FUZZ_POLICY_FILE);
	if (!(slash = strrchr(dir, '/')))
		abort();
	*slash = '\0';
	if (setenv("HUTCH_POLICY_PATH", dir, 1) < 0)
		abort();
	return dir;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct policy p = { 0 }, again = { 0 };
	struct verrors e = { 0 }, e2 = { 0 };
	char shown[4200];

	if (size > POLICY_MAX_BYTES)
		return 0; /* policy_load refuses these before parsing */
	snprintf(shown, sizeof(shown), "%s/fuzz-child.json", policy_dir());
	if (policy_resolve((const char *)data, size, "fuzz",
			   &(struct policy_source){ shown, 0, 0, -1 }, &p, &e) < 0) {
		if (e.n == 0)
			abort();
		for (size_t i = 0; i < e.n; i++)
			if (!e.items[i].file || !e.items[i].reason ||
			    (e.items[i].pointer[0] && e.items[i].pointer[0] != '/'))
				abort(); /* an error that cannot say where it is */
		return 0;
	}
	if (!p.canonical)
		abort();
	if (policy_parse(p.canonical, strlen(p.canonical), "fuzz", &again, &e2) < 0)
		abort(); /* the resolved canonical form is refused */
	if (strcmp(p.canonical, again.canonical) != 0)
		abort();
	policy_free(&again);
	policy_free(&p);
	return 0;
}
