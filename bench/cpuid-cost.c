/* cpuid-cost.c: what one CPUID instruction costs here, for costs.sh. On a
 * VM CPUID traps to the hypervisor, and glibc's start-up runs it many
 * times (init_cpu_features, and leaf 4 or 0x8000001D for the cache
 * sizes), so its price per instruction says how much of a glibc exec the
 * probes are. Times N CPUIDs of leaf 4 (deterministic cache parameters,
 * subleaf 0, as glibc's intel cache probe asks) in a tight loop and
 * prints the microseconds per CPUID; "-" where there is no CPUID.
 *
 *   cpuid-cost [N]     (default 2000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 2000;
	double t0;

	if (n < 1) {
		fprintf(stderr, "usage: cpuid-cost [N]\n");
		return 64;
	}
#if defined(__x86_64__) || defined(__i386__)
	t0 = now_us();
	for (long i = 0; i < n; i++) {
		unsigned a = 4, b, c = 0, d;

		__asm__ volatile("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	}
	printf("%.3f\n", (now_us() - t0) / (double)n);
#else
	(void)t0;
	printf("-\n");
#endif
	return 0;
}
