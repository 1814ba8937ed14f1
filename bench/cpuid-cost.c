/* cpuid-cost.c: what one CPUID instruction costs here, for costs.sh. On a
 * VM CPUID traps to the hypervisor, and glibc's start-up runs it many
 * times (init_cpu_features, and leaf 4 or 0x8000001D for the cache
 * sizes), so its price per instruction says how much of a glibc exec the
 * probes are. Times N CPUIDs of leaf 4 (deterministic cache parameters,
 * subleaf 0, as glibc's intel cache probe asks) in a tight loop, in
 * batches of 100 on the thread's CPU clock (a trap is charged to the
 * thread; a preemption is not), and prints the median batch's
 * microseconds per CPUID; "-" where there is no CPUID.
 *
 *   cpuid-cost [N]     (default 2000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench-median.h"

#define BATCH 100

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 2000;
	double batch[1000];
	int b = 0;

	if (n < BATCH || n / BATCH > 1000) {
		fprintf(stderr, "usage: cpuid-cost [N: %d to %d]\n", BATCH, BATCH * 1000);
		return 64;
	}
#if defined(__x86_64__) || defined(__i386__)
	for (; b < n / BATCH; b++) {
		double t0 = now_us();

		for (int i = 0; i < BATCH; i++) {
			unsigned eax = 4, ebx, ecx = 0, edx;

			__asm__ volatile("cpuid" : "+a"(eax), "=b"(ebx), "+c"(ecx), "=d"(edx));
		}
		batch[b] = (now_us() - t0) / BATCH;
	}
	printf("%.3f\n", median(batch, b));
#else
	(void)batch;
	(void)b;
	(void)now_us;
	printf("-\n");
#endif
	return 0;
}
