/* fuzz-policy.c: libFuzzer harness for policy files. A policy that parses
 * has a canonical form that must parse again to the very same canonical
 * text: the digest keys the probe cache on it, so it has to be a fixed
 * point. Built by `make fuzz` only, never installed. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "doc/policy-load.h"
#include "doc/policy.h"
#include "doc/verror.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct policy p = { 0 }, again = { 0 };
	struct verrors e = { 0 }, e2 = { 0 };

	if (size > POLICY_MAX_BYTES)
		return 0; /* policy_load refuses these before parsing */
	if (policy_parse((const char *)data, size, "fuzz", &p, &e) < 0) {
		if (e.n == 0)
			abort();
		return 0;
	}
	if (!p.canonical)
		abort();
	if (policy_parse(p.canonical, strlen(p.canonical), "fuzz", &again, &e2) < 0)
		abort(); /* our own canonical form is refused */
	if (strcmp(p.canonical, again.canonical) != 0)
		abort(); /* canonical form is not a fixed point */
	policy_free(&again);
	policy_free(&p);
	return 0;
}
