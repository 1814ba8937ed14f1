/* filter-cost.c: profiling aid for bench/profile.sh. Times the frontend's
 * seccomp compilation (frontend/jail/filter.c with libseccomp, built from the
 * tree's sources unchanged): the first call in a fresh process, which is
 * what every `hutch run` pays, and the median of later calls.
 * Usage: filter-cost [ITERS]; with 0, one call and no output (for timing
 * the whole process: load libseccomp, compile once, exit). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jail/filter.h"

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double one(size_t *len)
{
	uint8_t *bpf = NULL;
	size_t bad = 0;
	double t0 = now_us(), t1;
	int r = filter_compile(SECCOMP_DENY_LIST, NULL, 0, false, &bpf, len, &bad);

	t1 = now_us();
	if (r < 0) {
		fprintf(stderr, "filter-cost: filter_compile: %s\n", strerror(-r));
		exit(1);
	}
	free(bpf);
	return t1 - t0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 50;
	double first, *t;
	size_t len = 0;

	if (n < 1) {
		one(&len);
		return 0;
	}
	t = calloc((size_t)n, sizeof(double));
	if (!t)
		return 1;
	first = one(&len);
	for (int i = 0; i < n; i++)
		t[i] = one(&len);
	qsort(t, (size_t)n, sizeof(double), cmp);
	printf("filter_compile (default deny list): first call %.0fus, then median %.0fus "
	       "(min %.0fus) over %d; program %zu insns\n",
	       first, t[n / 2], t[0], n, len / 8);
	free(t);
	return 0;
}
