/* spec-ablate.c: profiling aid for bench/profile.sh. Reads a jail spec (as
 * the frontend sends hutch-exec on fd 3) on stdin, switches features off,
 * writes the re-encoded spec on stdout. Replaying the variants through
 * hutch-exec side by side attributes its time to features.
 *
 * Built against the tree's shared/spec-codec.c; it changes nothing there.
 *   -n  no network namespace (and no Landlock network rules)
 *   -i  no IPC namespace      -u  no UTS namespace      -c  no cgroup namespace
 *   -s  a trivial seccomp filter (allow all, no listener)   -l  no Landlock
 *   -d  no /dev (the tmpfs, its binds, links and /dev/shm)
 *   -e  no /etc entries (binds and synthetic files)
 *   -t  no /tmp tmpfs
 *   -m  minimal mounts: only what /bin/true needs (the /usr bind, the
 *       merged-/usr symlinks, /proc and the working directory)
 *   -v  describe the spec on stderr */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "spec.h"

static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static const char *kind_name(uint8_t k)
{
	static const char *const names[] = { "?", "bind", "tmpfs", "proc", "symlink", "file", "dir" };

	return k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

int main(int argc, char **argv)
{
	bool no_dev = false, no_etc = false, no_tmp = false, minimal = false, verbose = false;
	uint32_t clear = 0;
	uint8_t *in = NULL, *out = NULL;
	size_t len = 0, cap = 0, out_len = 0;
	struct spec sp;
	int opt, r;

	while ((opt = getopt(argc, argv, "niucsldetmv")) != -1) {
		switch (opt) {
		case 'n':
			clear |= HUTCH_SPEC_NS_NET | HUTCH_SPEC_NET_LOOPBACK | HUTCH_SPEC_LANDLOCK_NET;
			break;
		case 'i':
			clear |= HUTCH_SPEC_NS_IPC;
			break;
		case 'u':
			clear |= HUTCH_SPEC_NS_UTS;
			break;
		case 'c':
			clear |= HUTCH_SPEC_NS_CGROUP;
			break;
		case 's':
			clear |= HUTCH_SPEC_SECCOMP;
			break;
		case 'l':
			clear |= HUTCH_SPEC_LANDLOCK | HUTCH_SPEC_LANDLOCK_REQUIRED |
				 HUTCH_SPEC_LANDLOCK_NET;
			break;
		case 'd':
			no_dev = true;
			break;
		case 'e':
			no_etc = true;
			break;
		case 't':
			no_tmp = true;
			break;
		case 'm':
			minimal = true;
			break;
		case 'v':
			verbose = true;
			break;
		default:
			fprintf(stderr, "usage: spec-ablate [-niucsldetmv] <spec >spec\n");
			return 2;
		}
	}

	for (;;) {
		ssize_t n;

		if (len == cap) {
			cap = cap ? cap * 2 : 65536;
			in = realloc(in, cap);
			if (!in)
				return 1;
		}
		n = read(0, in + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			perror("spec-ablate: read");
			return 1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	r = spec_decode(in, len, &sp);
	if (r < 0) {
		fprintf(stderr, "spec-ablate: cannot decode the spec: %s\n", strerror(-r));
		return 1;
	}

	/* -s: hutch-exec refuses a spec without a filter (no filter, no jail),
	 * so the spec's program becomes one that allows everything, without
	 * a listener: what is left is the base filter and one trivial load. */
	sp.flags &= ~(clear & ~HUTCH_SPEC_SECCOMP);
	if (clear & HUTCH_SPEC_SECCOMP) {
		static const struct sock_filter allow[] = {
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};

		sp.flags &= ~HUTCH_SPEC_SECCOMP_NOTIFY;
		sp.filter = (const uint8_t *)allow;
		sp.filter_len = sizeof(allow);
	}
	{
		uint32_t k = 0;

		for (uint32_t i = 0; i < sp.n_mounts; i++) {
			const struct spec_mount *m = &sp.mounts[i];
			bool keep = true;

			if (no_dev && under(m->target, "/dev"))
				keep = false;
			if (no_etc && under(m->target, "/etc"))
				keep = false;
			if (no_tmp && under(m->target, "/tmp"))
				keep = false;
			if (minimal)
				keep = (m->kind == HUTCH_MOUNT_BIND && strcmp(m->target, "/usr") == 0) ||
				       (m->kind == HUTCH_MOUNT_SYMLINK && strchr(m->target + 1, '/') == NULL) ||
				       m->kind == HUTCH_MOUNT_PROC || strcmp(m->target, sp.cwd) == 0;
			if (keep)
				sp.mounts[k++] = *m;
		}
		sp.n_mounts = k;
	}
	if (verbose) {
		fprintf(stderr, "spec: flags 0x%x, uid %u->%u, filter %u insns, %u mounts:\n",
			sp.flags, sp.uid_inside, sp.uid_outside, sp.filter_len / 8, sp.n_mounts);
		for (uint32_t i = 0; i < sp.n_mounts; i++)
			fprintf(stderr, "  %-7s %s%s%s\n", kind_name(sp.mounts[i].kind),
				sp.mounts[i].target, sp.mounts[i].source[0] ? " <- " : "",
				sp.mounts[i].source);
	}

	r = spec_encode(&sp, &out, &out_len);
	if (r < 0) {
		fprintf(stderr, "spec-ablate: cannot encode: %s\n", strerror(-r));
		return 1;
	}
	if (fwrite(out, 1, out_len, stdout) != out_len || fflush(stdout) != 0) {
		perror("spec-ablate: write");
		return 1;
	}
	spec_release(&sp);
	free(in);
	free(out);
	return 0;
}
