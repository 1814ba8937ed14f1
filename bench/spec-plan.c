/* spec-plan.c: aid for bench/steps.sh. Reads a jail spec (as the frontend
 * sends hutch-exec on fd 3) on stdin and prints, for kernel-steps.c, what
 * its jail is made of: flags, ids, hostname, cwd, limits and one line per
 * mount (kind, flags in hex, mode in octal, size, inodes, data length,
 * source or "-", target), tab-free so that sscanf reads it. Writes the
 * spec's seccomp program to FILTER and the helper's own base program
 * (helper/base-filter.c, compiled in unchanged) to BASE, raw BPF.
 *
 *   spec-plan FILTER BASE <spec.bin >plan.txt
 *
 * Built against the tree's shared/spec-codec.c and helper/base-filter.c;
 * run it on a tree that matches the binaries measured. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/filter.h>

#include "spec.h"

const struct sock_filter *base_filter(size_t *ret_len);

static void put(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
		fprintf(stderr, "spec-plan: %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

int main(int argc, char **argv)
{
	static uint8_t in[HUTCH_SPEC_MAX_BYTES];
	const struct sock_filter *bf;
	size_t len = 0, n_base;
	struct spec sp;
	ssize_t n;
	int r;

	if (argc != 3) {
		fprintf(stderr, "usage: spec-plan FILTER BASE <spec >plan\n");
		return 64;
	}
	while ((n = read(0, in + len, sizeof(in) - len)) > 0)
		len += (size_t)n;
	r = spec_decode(in, len, &sp);
	if (r < 0) {
		fprintf(stderr, "spec-plan: cannot decode the spec: %s\n", strerror(-r));
		return 1;
	}
	printf("flags %x\nids %u %u %u %u\nhostname %s\ncwd %s\n", sp.flags, sp.uid_inside,
	       sp.gid_inside, sp.uid_outside, sp.gid_outside, sp.hostname[0] ? sp.hostname : "-",
	       sp.cwd);
	printf("rlimit");
	for (int i = 0; i < HUTCH_RLIM_COUNT; i++)
		printf(" %llu", (unsigned long long)sp.rlimit[i]);
	printf("\nucap");
	for (int i = 0; i < HUTCH_UCAP_COUNT; i++)
		printf(" %llu", (unsigned long long)sp.user_cap[i]);
	printf("\n");
	for (uint32_t i = 0; i < sp.n_mounts; i++) {
		const struct spec_mount *m = &sp.mounts[i];

		if (strpbrk(m->source, " \t\n") || strpbrk(m->target, " \t\n")) {
			fprintf(stderr, "spec-plan: a path with blanks: %s\n", m->target);
			return 1;
		}
		printf("mount %u %x %o %llu %llu %u %s %s\n", m->kind, m->flags, m->mode,
		       (unsigned long long)m->size_bytes, (unsigned long long)m->inodes,
		       m->data_len, m->source[0] ? m->source : "-", m->target);
	}
	put(argv[1], sp.filter, sp.filter_len);
	bf = base_filter(&n_base);
	put(argv[2], bf, n_base * sizeof(*bf));
	fprintf(stderr, "spec-plan: %u mounts, filter %u insns, base filter %zu insns\n",
		sp.n_mounts, sp.filter_len / 8, n_base);
	spec_release(&sp);
	return 0;
}
