/* test-layout.c: unit tests of the plan -> spec step (frontend/jail/layout.c):
 * a small plan's mounts in the order hutch-exec enacts them, with their
 * flags, modes and sizes; namespaces, ids and rlimits; who owns the
 * seccomp program; and the mount limit, which fails without touching the
 * caller's filter (issue 10: a policy allowing many input files once made
 * layout_build free it, and its caller free it again). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hutch-abi.h"
#include "spec.h"
#include "jail/layout.h"

#include "cunit-main.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static char *argv_true[] = { "/bin/true", NULL };
static char *envp_path[] = { "PATH=/usr/bin:/bin", NULL };

static struct plan_mount policy_binds[] = {
	{ .source = "/usr", .target = "/usr", .exec = true },
	{ .source = "/etc/ld.so.cache", .target = "/etc/ld.so.cache" },
};

static struct plan_mount request_binds[] = {
	{ .source = "/srv/data", .target = "/data", .rw = true },
};

/* A plan as narrowing leaves it, without the host-dependent /bin, /lib...
 * links (usr_symlinks), so the mount list is the same on every host. */
static struct plan small_plan(struct plan_file *files, size_t n_files)
{
	static char *collect[] = { "out.txt", NULL };

	return (struct plan){
		.argv = argv_true, .argc = 1, .envp = envp_path, .envc = 1,
		.cwd = "/work", .work_dir = "/work", .hostname = "hutch",
		.network = NET_NONE, .landlock = LANDLOCK_BEST_EFFORT,
		.policy_binds = policy_binds, .n_policy_binds = ARRAY_SIZE(policy_binds),
		.mounts = request_binds, .n_mounts = ARRAY_SIZE(request_binds),
		.files = files, .n_files = n_files, .collect = collect, .n_collect = 1,
		.jail_uid = HUTCH_DEFAULT_JAIL_ID, .jail_gid = HUTCH_DEFAULT_JAIL_ID,
		.limits = { .wall_ms = 30000, .cpu_ms = 1500, .memory_bytes = 1 << 30,
			    .file_size_bytes = 0, .processes = 256, .open_files = 1024,
			    .tmp_bytes = 1 << 20, .work_bytes = 2 << 20, .tmp_inodes = 500,
			    .work_inodes = 300 },
	};
}

/* A stand-in seccomp program: two instructions' worth of bytes. */
static uint8_t *new_filter(void)
{
	uint8_t *f = malloc(16);

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	memset(f, 0x5a, 16);
	return f;
}

static const struct {
	uint8_t kind;
	const char *target, *source;	/* source: NULL for "" */
	uint16_t flags;
	uint32_t mode;
} want_mounts[] = {
	/* the policy's binds, optional (a host may lack one) */
	{ HUTCH_MOUNT_BIND, "/usr", "/usr", HUTCH_MF_OPTIONAL | HUTCH_MF_EXEC, 0 },
	{ HUTCH_MOUNT_BIND, "/etc/ld.so.cache", "/etc/ld.so.cache", HUTCH_MF_OPTIONAL, 0 },
	/* synthetic /etc files */
	{ HUTCH_MOUNT_FILE, "/etc/passwd", NULL, 0, 0644 },
	{ HUTCH_MOUNT_FILE, "/etc/group", NULL, 0, 0644 },
	{ HUTCH_MOUNT_FILE, "/etc/hosts", NULL, 0, 0644 },
	{ HUTCH_MOUNT_FILE, "/etc/nsswitch.conf", NULL, 0, 0644 },
	{ HUTCH_MOUNT_PROC, "/proc", NULL, 0, 0 },
	/* a minimal /dev */
	{ HUTCH_MOUNT_DIR, "/dev", NULL, 0, 0755 },
	{ HUTCH_MOUNT_BIND, "/dev/null", "/dev/null", HUTCH_MF_RW | HUTCH_MF_DEV, 0 },
	{ HUTCH_MOUNT_BIND, "/dev/zero", "/dev/zero", HUTCH_MF_RW | HUTCH_MF_DEV, 0 },
	{ HUTCH_MOUNT_BIND, "/dev/full", "/dev/full", HUTCH_MF_RW | HUTCH_MF_DEV, 0 },
	{ HUTCH_MOUNT_BIND, "/dev/random", "/dev/random", HUTCH_MF_RW | HUTCH_MF_DEV, 0 },
	{ HUTCH_MOUNT_BIND, "/dev/urandom", "/dev/urandom", HUTCH_MF_RW | HUTCH_MF_DEV, 0 },
	{ HUTCH_MOUNT_SYMLINK, "/dev/fd", "/proc/self/fd", 0, 0 },
	{ HUTCH_MOUNT_SYMLINK, "/dev/stdin", "/proc/self/fd/0", 0, 0 },
	{ HUTCH_MOUNT_SYMLINK, "/dev/stdout", "/proc/self/fd/1", 0, 0 },
	{ HUTCH_MOUNT_SYMLINK, "/dev/stderr", "/proc/self/fd/2", 0, 0 },
	{ HUTCH_MOUNT_SYMLINK, "/dev/shm", "/tmp", 0, 0 },
	{ HUTCH_MOUNT_DEVPTS, "/dev/pts", NULL, 0, 0666 },
	{ HUTCH_MOUNT_SYMLINK, "/dev/ptmx", "pts/ptmx", 0, 0 },
	/* /tmp and the work dir, which sends its root fd: files are collected */
	{ HUTCH_MOUNT_TMPFS, "/tmp", NULL, HUTCH_MF_RW, 01777 },
	{ HUTCH_MOUNT_TMPFS, "/work", NULL, HUTCH_MF_RW | HUTCH_MF_SEND_FD, 0755 },
	/* the staged input file, then the request's bind */
	{ HUTCH_MOUNT_FILE, "/work/in.txt", NULL, 0, 0644 },
	{ HUTCH_MOUNT_BIND, "/data", "/srv/data", HUTCH_MF_RW | HUTCH_MF_IDMAP, 0 },
};

static void test_small_plan(void)
{
	struct plan_file files[] = { { .name = "in.txt", .data = (uint8_t *)"hi\n", .len = 3 } };
	struct plan plan = small_plan(files, ARRAY_SIZE(files));
	struct layout *l = calloc(1, sizeof(*l));
	uint8_t *filter = new_filter(), *given = filter;
	const struct spec *sp;

	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	CU_ASSERT_EQUAL_FATAL(layout_build(&plan, true, &filter, 16, l), 0);
	sp = &l->sp;
	/* the filter changed hands: the layout's now, and in the spec */
	CU_ASSERT_PTR_NULL(filter);
	CU_ASSERT_PTR_EQUAL(l->filter, given);
	CU_ASSERT_PTR_EQUAL(sp->filter, given);
	CU_ASSERT_EQUAL(sp->filter_len, 16);

	CU_ASSERT_EQUAL_FATAL(sp->n_mounts, ARRAY_SIZE(want_mounts));
	for (size_t i = 0; i < ARRAY_SIZE(want_mounts); i++) {
		const struct spec_mount *m = &sp->mounts[i];

		if (m->kind != want_mounts[i].kind || strcmp(m->target, want_mounts[i].target) != 0)
			fprintf(stderr, "\n  mount %zu: kind %u at %s\n", i, m->kind, m->target);
		CU_ASSERT_EQUAL(m->kind, want_mounts[i].kind);
		CU_ASSERT_STRING_EQUAL(m->target, want_mounts[i].target);
		CU_ASSERT_STRING_EQUAL(m->source,
				       want_mounts[i].source ? want_mounts[i].source : "");
		CU_ASSERT_EQUAL(m->flags, want_mounts[i].flags);
		CU_ASSERT_EQUAL(m->mode, want_mounts[i].mode);
	}
	/* sizes: both bounds of each tmpfs, the bytes of each file */
	CU_ASSERT_EQUAL(sp->mounts[20].size_bytes, 1 << 20);
	/* passwd and group list root first; nsswitch asks only files */
	CU_ASSERT_NSTRING_EQUAL(sp->mounts[2].data, "root:x:0:0:root:/root:/bin/sh\n", 30);
	CU_ASSERT_NSTRING_EQUAL(sp->mounts[3].data, "root:x:0:\n", 10);
	CU_ASSERT_NSTRING_EQUAL(sp->mounts[5].data, "passwd: files\ngroup: files\n", 27);
	CU_ASSERT_EQUAL(sp->mounts[20].inodes, 500);
	CU_ASSERT_EQUAL(sp->mounts[21].size_bytes, 2 << 20);
	CU_ASSERT_EQUAL(sp->mounts[21].inodes, 300);
	CU_ASSERT_EQUAL(sp->mounts[22].data_len, 3);
	CU_ASSERT_EQUAL(memcmp(sp->mounts[22].data, "hi\n", 3), 0);
	CU_ASSERT_EQUAL(sp->mounts[2].data_len, strlen((const char *)sp->mounts[2].data));
	CU_ASSERT_EQUAL(strncmp((const char *)sp->mounts[2].data,
				"root:x:0:0:root:/root:/bin/sh\n"
				"nobody:x:65534:65534:hutch jail:/work:/bin/sh\n",
				sp->mounts[2].data_len), 0);

	/* namespaces: all but the network's sharing; Landlock, seccomp */
	CU_ASSERT_EQUAL(sp->flags, HUTCH_SPEC_NS_PID | HUTCH_SPEC_NS_NET | HUTCH_SPEC_NS_IPC |
					   HUTCH_SPEC_NS_UTS | HUTCH_SPEC_NS_CGROUP |
					   HUTCH_SPEC_LANDLOCK | HUTCH_SPEC_LANDLOCK_NET |
					   HUTCH_SPEC_SECCOMP | HUTCH_SPEC_SECCOMP_NOTIFY);
	/* root runs the jail as the policy's user */
	CU_ASSERT_EQUAL(sp->uid_inside, HUTCH_DEFAULT_JAIL_ID);
	CU_ASSERT_EQUAL(sp->uid_outside, HUTCH_DEFAULT_JAIL_ID);
	CU_ASSERT_EQUAL(sp->gid_inside, HUTCH_DEFAULT_JAIL_ID);
	/* rlimits: CPU in whole seconds rounded up; FSIZE 0 is a real 0 */
	CU_ASSERT_EQUAL(sp->rlimit[HUTCH_RLIM_AS], 1 << 30);
	CU_ASSERT_EQUAL(sp->rlimit[HUTCH_RLIM_CPU], 2);
	CU_ASSERT_EQUAL(sp->rlimit[HUTCH_RLIM_FSIZE], 0);
	CU_ASSERT_EQUAL(sp->rlimit[HUTCH_RLIM_NOFILE], 1024);
	CU_ASSERT_EQUAL(sp->rlimit[HUTCH_RLIM_NPROC], 256);
	CU_ASSERT_STRING_EQUAL(sp->hostname, "hutch");
	CU_ASSERT_STRING_EQUAL(sp->cwd, "/work");
	CU_ASSERT_EQUAL(sp->argc, 1);
	CU_ASSERT_PTR_EQUAL(sp->argv, argv_true);
	CU_ASSERT_EQUAL(sp->envc, 1);

	/* and the decoder takes what the layout makes */
	{
		uint8_t *buf = NULL;
		size_t len = 0;
		struct spec back;

		CU_ASSERT_EQUAL_FATAL(spec_encode(sp, &buf, &len), 0);
		CU_ASSERT_EQUAL_FATAL(spec_decode(buf, len, &back), 0);
		CU_ASSERT_EQUAL(back.n_mounts, sp->n_mounts);
		CU_ASSERT_STRING_EQUAL(back.mounts[23].source, "/srv/data");
		spec_release(&back);
		free(buf);
	}
	layout_free(l);
	CU_ASSERT_PTR_NULL(l->filter);
	layout_free(l); /* idempotent */
	free(l);
}

/* Not root: the caller's own ids, mapped to themselves; a plan with
 * no limit set is unlimited, host network shares the namespace, and no
 * filter means no seccomp flags. */
static void test_unprivileged_unlimited(void)
{
	struct plan plan = small_plan(NULL, 0);
	struct layout *l = calloc(1, sizeof(*l));

	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	plan.limits = (struct plan_limits){ 0 };
	plan.network = NET_HOST;
	plan.landlock = LANDLOCK_OFF;
	plan.n_collect = 0;
	CU_ASSERT_EQUAL_FATAL(layout_build(&plan, false, NULL, 0, l), 0);
	CU_ASSERT_EQUAL(l->sp.uid_inside, (uint32_t)getuid());
	CU_ASSERT_EQUAL(l->sp.uid_outside, (uint32_t)getuid());
	CU_ASSERT_EQUAL(l->sp.gid_inside, (uint32_t)getgid());
	CU_ASSERT_EQUAL(l->sp.flags, HUTCH_SPEC_NS_PID | HUTCH_SPEC_NS_IPC | HUTCH_SPEC_NS_UTS |
					     HUTCH_SPEC_NS_CGROUP);
	CU_ASSERT_PTR_NULL(l->sp.filter);
	CU_ASSERT_EQUAL(l->sp.rlimit[HUTCH_RLIM_AS], HUTCH_RLIM_INFINITY);
	CU_ASSERT_EQUAL(l->sp.rlimit[HUTCH_RLIM_CPU], HUTCH_RLIM_INFINITY);
	CU_ASSERT_EQUAL(l->sp.rlimit[HUTCH_RLIM_NOFILE], HUTCH_RLIM_INFINITY);
	CU_ASSERT_EQUAL(l->sp.rlimit[HUTCH_RLIM_NPROC], HUTCH_RLIM_INFINITY);
	CU_ASSERT_EQUAL(l->sp.rlimit[HUTCH_RLIM_FSIZE], 0);
	CU_ASSERT_EQUAL(l->sp.n_mounts, ARRAY_SIZE(want_mounts) - 1); /* no input file */
	CU_ASSERT_EQUAL(l->sp.mounts[21].flags, HUTCH_MF_RW);	      /* nothing collected */
	layout_free(l);
	free(l);
}

/* n input files, named f0, f1, ... */
static struct plan_file *make_files(size_t n)
{
	struct plan_file *f = calloc(n, sizeof(*f));

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	for (size_t i = 0; i < n; i++) {
		CU_ASSERT_FATAL(asprintf(&f[i].name, "f%zu", i) > 0);
		f[i].data = (uint8_t *)"x";
		f[i].len = 1;
	}
	return f;
}

static void free_files(struct plan_file *f, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(f[i].name);
	free(f);
}

/* One input file past the limit fails with -E2BIG; the filter stays the
 * caller's, the same allocation, freed here once (ASan and valgrind see a
 * second free), and the layout holds nothing (LeakSanitizer sees a
 * string kept). Exactly the limit still builds. */
static void test_mount_limit(void)
{
	/* the small plan's mounts besides its input files */
	const size_t fixed = ARRAY_SIZE(want_mounts) - 1;
	const size_t fit = HUTCH_SPEC_MAX_MOUNTS - fixed;
	static const size_t counts[] = { 300, 256 };
	struct layout *l = calloc(1, sizeof(*l));

	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	for (size_t k = 0; k < ARRAY_SIZE(counts) + 1; k++) {
		size_t n = k < ARRAY_SIZE(counts) ? counts[k] : fit + 1;
		struct plan_file *files = make_files(n);
		struct plan plan = small_plan(files, n);
		uint8_t *filter = new_filter(), *given = filter;

		CU_ASSERT_EQUAL(layout_build(&plan, true, &filter, 16, l), -E2BIG);
		CU_ASSERT_PTR_EQUAL(filter, given);
		CU_ASSERT_EQUAL(filter[15], 0x5a); /* not freed: still readable */
		CU_ASSERT_PTR_NULL(l->filter);
		CU_ASSERT_EQUAL(l->n_strings, 0);
		free(filter);
		free_files(files, n);
	}
	{
		struct plan_file *files = make_files(fit);
		struct plan plan = small_plan(files, fit);
		uint8_t *filter = new_filter();

		CU_ASSERT_EQUAL(layout_build(&plan, true, &filter, 16, l), 0);
		CU_ASSERT_EQUAL(l->sp.n_mounts, HUTCH_SPEC_MAX_MOUNTS);
		CU_ASSERT_PTR_NULL(filter);
		layout_free(l);
		free_files(files, fit);
	}
	free(l);
}

/* Binds of passed descriptors: flagged HUTCH_MF_FD, their descriptors
 * listed in mount order for the helper's fds 7 and up; more than 16
 * fail (-E2BIG) rather than becoming binds by path. */
static void test_bind_fds(void)
{
	struct plan_mount rb[HUTCH_BIND_FDS_MAX + 1];
	struct layout *l = calloc(1, sizeof(*l));
	struct plan plan = small_plan(NULL, 0);
	const struct spec_mount *m;

	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	memset(rb, 0, sizeof(rb));
	rb[0] = (struct plan_mount){ .source = "/srv/a", .target = "/a", .by_fd = true, .fd = 40 };
	rb[1] = (struct plan_mount){ .source = "/srv/b", .target = "/b", .fd = -1 };
	rb[2] = (struct plan_mount){ .source = "/srv/c", .target = "/c", .rw = true,
				     .by_fd = true, .fd = 41 };
	plan.mounts = rb;
	plan.n_mounts = 3;
	CU_ASSERT_EQUAL_FATAL(layout_build(&plan, true, NULL, 0, l), 0);
	CU_ASSERT_EQUAL(l->n_bind_fds, 2);
	CU_ASSERT_EQUAL(l->bind_fds[0], 40);
	CU_ASSERT_EQUAL(l->bind_fds[1], 41);
	m = &l->sp.mounts[l->sp.n_mounts - 3];
	CU_ASSERT_STRING_EQUAL(m[0].source, "/srv/a");
	CU_ASSERT_EQUAL(m[0].flags, HUTCH_MF_FD);
	CU_ASSERT_EQUAL(m[1].flags, 0);
	CU_ASSERT_EQUAL(m[2].flags, HUTCH_MF_RW | HUTCH_MF_IDMAP | HUTCH_MF_FD);
	layout_free(l);

	for (size_t i = 0; i <= HUTCH_BIND_FDS_MAX; i++) {
		static char targets[HUTCH_BIND_FDS_MAX + 1][8];

		snprintf(targets[i], sizeof(targets[i]), "/m%zu", i);
		rb[i] = (struct plan_mount){ .source = "/srv/a", .target = targets[i],
					     .by_fd = true, .fd = 40 + (int)i };
	}
	plan.n_mounts = HUTCH_BIND_FDS_MAX;
	CU_ASSERT_EQUAL(layout_build(&plan, false, NULL, 0, l), 0);
	CU_ASSERT_EQUAL(l->n_bind_fds, HUTCH_BIND_FDS_MAX);
	layout_free(l);
	plan.n_mounts = HUTCH_BIND_FDS_MAX + 1;
	CU_ASSERT_EQUAL(layout_build(&plan, false, NULL, 0, l), -E2BIG);
	free(l);
}

/* The policy's prefix (layout.h n_prefix): everything before the work
 * dir when its tmpfs is sent back (files collected), through the work
 * dir when not; never a request's file or bind. */
static void test_prefix(void)
{
	struct plan_file files[] = { { .name = "in.txt", .data = (uint8_t *)"hi\n", .len = 3 } };
	struct plan plan = small_plan(files, ARRAY_SIZE(files));
	struct layout *l = calloc(1, sizeof(*l));

	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	CU_ASSERT_EQUAL_FATAL(layout_build(&plan, false, NULL, 0, l), 0);
	CU_ASSERT_EQUAL(l->n_prefix, 21);	/* /tmp is the last of it */
	CU_ASSERT_STRING_EQUAL(l->sp.mounts[l->n_prefix - 1].target, "/tmp");
	layout_free(l);
	plan.n_collect = 0;	/* the work dir's tmpfs stays in the jail */
	CU_ASSERT_EQUAL_FATAL(layout_build(&plan, false, NULL, 0, l), 0);
	CU_ASSERT_EQUAL(l->n_prefix, 22);
	CU_ASSERT_STRING_EQUAL(l->sp.mounts[l->n_prefix - 1].target, "/work");
	CU_ASSERT_STRING_EQUAL(l->sp.mounts[l->n_prefix].target, "/work/in.txt");
	layout_free(l);
	free(l);
}

static const struct unit_case cases[] = {
	{ "the policy's prefix, with and without a work dir sent back", test_prefix },
	{ "a small plan: mounts in order, flags, ids, rlimits, the filter taken",
	  test_small_plan },
	{ "unprivileged, unlimited, host network, no filter", test_unprivileged_unlimited },
	{ "past 256 mounts: -E2BIG, the caller's filter untouched", test_mount_limit },
	{ "binds of descriptors: flagged, listed in order, at most 16", test_bind_fds },
	{ NULL, NULL },
};

UNIT_MAIN("layout")
