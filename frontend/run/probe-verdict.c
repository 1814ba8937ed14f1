/* probe-verdict.c: the name of a digest's cached probe verdict, and
 * dropping it when a run finds the host changed (probe-verdict.h). Apart
 * from probe.c so that execute.c, which the canary itself runs through,
 * can drop a verdict without including the probe. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "jail/cache.h"
#include "run/probe-verdict.h"

/* The cache entry of this digest's verdict. It holds for this caller in
 * this user namespace only: root in a rootless container is not root on
 * the host. False for a digest that is not ours. */
bool probe_verdict_name(const char *digest, char *name, size_t cap)
{
	char ns[64] = "";
	ssize_t k;

	if (!digest || strncmp(digest, "sha256:", 7) != 0)
		return false;
	k = readlink("/proc/self/ns/user", ns, sizeof(ns) - 1);
	ns[k > 0 ? k : 0] = '\0';
	snprintf(name, cap, "probe-%.64s-%u-%.20s", digest + 7, (unsigned)geteuid(),
		 ns[0] ? strchr(ns, '[') ? strchr(ns, '[') + 1 : ns : "x");
	name[strcspn(name, "]")] = '\0';
	return true;
}

static unsigned forgotten;

void probe_forget(const char *digest)
{
	char name[128];

	forgotten++;
	if (probe_verdict_name(digest, name, sizeof(name)))
		cache_remove(name);
}

unsigned probe_generation(void)
{
	return forgotten;
}
