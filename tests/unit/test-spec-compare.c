/* test-spec-compare.c: unit tests of spec_prefix_equal (shared/spec-compare.c),
 * the check a pooled jail's pid 1 makes before it hands a job the mounts
 * it built ahead: equal specs agree; a change in any one header field
 * (flags, each id, the hostname) or in any one field of a mount inside
 * the prefix (kind, flags, mode, size, inodes, source, target, data bytes
 * and length) disagrees; a change past the prefix does not matter; a
 * spec with fewer mounts than the prefix disagrees. spec_whole_equal, the
 * check of a job against a whole template (its root and Landlock rules
 * built ahead): the template's marker, every flag Landlock reads, the
 * count of mounts, and each field of every mount. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "spec-compare.h"

#include "cunit-main.h"

#define N_MOUNTS 3

struct pair {
	struct spec a, b;
	struct spec_mount ma[N_MOUNTS], mb[N_MOUNTS];
	char src_b[16], tgt_b[16], host_b[16];
	uint8_t data_b[8];
};

static const uint8_t data[] = { 'r', 'o', 'o', 't', '\n' };

/* a and b equal field by field, b's strings and data in buffers of its
 * own (equal bytes, other addresses: compared by content). */
static void pair_init(struct pair *p)
{
	static const struct spec_mount m[N_MOUNTS] = {
		{ .kind = HUTCH_MOUNT_BIND, .flags = HUTCH_MF_OPTIONAL, .source = "/usr",
		  .target = "/usr" },
		{ .kind = HUTCH_MOUNT_FILE, .mode = 0644, .source = "", .target = "/etc/passwd",
		  .data = data, .data_len = sizeof(data) },
		{ .kind = HUTCH_MOUNT_TMPFS, .flags = HUTCH_MF_RW, .mode = 01777,
		  .size_bytes = 1 << 20, .inodes = 100, .source = "", .target = "/tmp" },
	};

	memset(p, 0, sizeof(*p));
	memcpy(p->ma, m, sizeof(m));
	memcpy(p->mb, m, sizeof(m));
	strcpy(p->src_b, "/usr");
	strcpy(p->tgt_b, "/usr");
	strcpy(p->host_b, "hutch");
	memcpy(p->data_b, data, sizeof(data));
	p->mb[0].source = p->src_b;
	p->mb[0].target = p->tgt_b;
	p->mb[1].data = p->data_b;
	p->a = (struct spec){ .flags = HUTCH_SPEC_NS_PID | HUTCH_SPEC_NS_NET,
			      .uid_inside = 1000, .gid_inside = 1001, .uid_outside = 1002,
			      .gid_outside = 1003, .hostname = "hutch", .cwd = "/",
			      .n_mounts = N_MOUNTS, .mounts = p->ma };
	p->b = p->a;
	p->b.hostname = p->host_b;
	p->b.mounts = p->mb;
}

static void test_equal(void)
{
	struct pair p;

	pair_init(&p);
	CU_ASSERT_TRUE(spec_prefix_equal(&p.a, &p.b, N_MOUNTS));
	CU_ASSERT_TRUE(spec_prefix_equal(&p.a, &p.b, 0));
	/* what the prefix does not cover: argv, env, cwd, limits */
	p.b.cwd = "/work";
	p.b.rlimit[HUTCH_RLIM_CPU] = 7;
	CU_ASSERT_TRUE(spec_prefix_equal(&p.a, &p.b, N_MOUNTS));
}

static void test_header_fields(void)
{
	struct pair p;

	pair_init(&p);
	p.b.flags |= HUTCH_SPEC_NET_LOOPBACK;
	CU_ASSERT_FALSE(spec_prefix_equal(&p.a, &p.b, 0));
	pair_init(&p);
	p.b.uid_inside++;
	CU_ASSERT_FALSE(spec_prefix_equal(&p.a, &p.b, 0));
	pair_init(&p);
	p.b.gid_inside++;
	CU_ASSERT_FALSE(spec_prefix_equal(&p.a, &p.b, 0));
	pair_init(&p);
	p.b.uid_outside++;
	CU_ASSERT_FALSE(spec_prefix_equal(&p.a, &p.b, 0));
	pair_init(&p);
	p.b.gid_outside++;
	CU_ASSERT_FALSE(spec_prefix_equal(&p.a, &p.b, 0));
	pair_init(&p);
	p.host_b[0] = 'H';
	CU_ASSERT_FALSE(spec_prefix_equal(&p.a, &p.b, 0));
	pair_init(&p);
	p.b.hostname = "hutch2";	/* a longer one with the same start */
	CU_ASSERT_FALSE(spec_prefix_equal(&p.a, &p.b, 0));
}

/* Each field of each mount inside the prefix, one at a time. */
static void test_mount_fields(void)
{
	for (uint32_t i = 0; i < N_MOUNTS; i++) {
		struct pair p;

		pair_init(&p);
		p.mb[i].kind = HUTCH_MOUNT_DIR;
		CU_ASSERT_FALSE(spec_prefix_equal(&p.a, &p.b, N_MOUNTS));
		pair_init(&p);
		p.mb[i].flags ^= HUTCH_MF_EXEC;
		CU_ASSERT_FALSE(spec_prefix_equal(&p.a, &p.b, N_MOUNTS));
		pair_init(&p);
		p.mb[i].mode ^= 02;
		CU_ASSERT_FALSE(spec_prefix_equal(&p.a, &p.b, N_MOUNTS));
		pair_init(&p);
		p.mb[i].size_bytes++;
		CU_ASSERT_FALSE(spec_prefix_equal(&p.a, &p.b, N_MOUNTS));
		pair_init(&p);
		p.mb[i].inodes++;
		CU_ASSERT_FALSE(spec_prefix_equal(&p.a, &p.b, N_MOUNTS));
		pair_init(&p);
		p.mb[i].source = "/opt";
		CU_ASSERT_FALSE(spec_prefix_equal(&p.a, &p.b, N_MOUNTS));
		pair_init(&p);
		p.mb[i].target = "/srv";
		CU_ASSERT_FALSE(spec_prefix_equal(&p.a, &p.b, N_MOUNTS));
		pair_init(&p);
		p.mb[i].data = data;
		p.mb[i].data_len = sizeof(data) - 1;	/* length alone */
		if (p.ma[i].data_len != p.mb[i].data_len)
			CU_ASSERT_FALSE(spec_prefix_equal(&p.a, &p.b, N_MOUNTS));
	}
}

/* The same length, one byte other: compared by content, not address. */
static void test_data_bytes(void)
{
	struct pair p;

	pair_init(&p);
	CU_ASSERT_TRUE(spec_prefix_equal(&p.a, &p.b, N_MOUNTS));
	p.data_b[sizeof(data) - 1] = '!';
	CU_ASSERT_FALSE(spec_prefix_equal(&p.a, &p.b, N_MOUNTS));
	CU_ASSERT_TRUE(spec_prefix_equal(&p.a, &p.b, 1));	/* past the prefix */
}

static void test_past_prefix_and_count(void)
{
	struct pair p;

	pair_init(&p);
	p.mb[2].size_bytes++;
	CU_ASSERT_FALSE(spec_prefix_equal(&p.a, &p.b, 3));
	CU_ASSERT_TRUE(spec_prefix_equal(&p.a, &p.b, 2));
	pair_init(&p);
	p.b.n_mounts = 2;	/* the job has fewer mounts than the template built */
	CU_ASSERT_FALSE(spec_prefix_equal(&p.a, &p.b, 3));
	CU_ASSERT_FALSE(spec_prefix_equal(&p.b, &p.a, 3));
	CU_ASSERT_TRUE(spec_prefix_equal(&p.a, &p.b, 2));
}

/* Where the root is staged (/tmp), under it, and "/": what a pooled
 * jail with its prefix built would clone of its own root. */
static void test_staged_sources(void)
{
	struct pair p;

	CU_ASSERT_TRUE(spec_source_staged("/"));
	CU_ASSERT_TRUE(spec_source_staged("/tmp"));
	CU_ASSERT_TRUE(spec_source_staged("/tmp/x/y"));
	CU_ASSERT_FALSE(spec_source_staged("/tmpx"));
	CU_ASSERT_FALSE(spec_source_staged("/var/tmp"));
	CU_ASSERT_FALSE(spec_source_staged("/usr"));
	pair_init(&p);
	CU_ASSERT_FALSE(spec_own_sources_staged(&p.a, 0));
	p.ma[0].source = "/tmp/data";	/* a bind's */
	CU_ASSERT_TRUE(spec_own_sources_staged(&p.a, 0));
	CU_ASSERT_FALSE(spec_own_sources_staged(&p.a, 1));	/* in the prefix: built before */
	pair_init(&p);
	p.ma[2].kind = HUTCH_MOUNT_OVERLAY;	/* an overlay's lower */
	p.ma[2].source = "/";
	CU_ASSERT_TRUE(spec_own_sources_staged(&p.a, 2));
	p.ma[2].kind = HUTCH_MOUNT_SYMLINK;	/* a link's text is no source */
	CU_ASSERT_FALSE(spec_own_sources_staged(&p.a, 2));
}

/* p.b as a whole template made from p.a (forkserver-template.c). */
static void whole_init(struct pair *p)
{
	pair_init(p);
	p->a.flags |= HUTCH_SPEC_LANDLOCK | HUTCH_SPEC_LANDLOCK_NET;
	p->b.flags = p->a.flags | HUTCH_SPEC_TEMPLATE_WHOLE;
}

static void test_whole_equal(void)
{
	struct pair p;

	whole_init(&p);
	CU_ASSERT_TRUE(spec_whole_equal(&p.a, &p.b));
	/* the job's own parts: not in the template */
	p.a.cwd = "/work";
	p.a.rlimit[HUTCH_RLIM_NOFILE] = 9;
	p.a.user_cap[HUTCH_UCAP_SIGPENDING] = 3;
	CU_ASSERT_TRUE(spec_whole_equal(&p.a, &p.b));
	/* the marker: the template's alone */
	whole_init(&p);
	p.b.flags &= ~HUTCH_SPEC_TEMPLATE_WHOLE;	/* a prefix template */
	CU_ASSERT_FALSE(spec_whole_equal(&p.a, &p.b));
	whole_init(&p);
	p.a.flags |= HUTCH_SPEC_TEMPLATE_WHOLE;	/* a job claiming it */
	CU_ASSERT_FALSE(spec_whole_equal(&p.a, &p.b));
	/* a whole template is no prefix template of its job either */
	whole_init(&p);
	CU_ASSERT_FALSE(spec_prefix_equal(&p.a, &p.b, N_MOUNTS));
}

/* What landlock_prepare reads: each Landlock flag, either way; and the
 * other flags and header fields as spec_prefix_equal has them. */
static void test_whole_flags(void)
{
	static const uint32_t bits[] = { HUTCH_SPEC_LANDLOCK, HUTCH_SPEC_LANDLOCK_REQUIRED,
					 HUTCH_SPEC_LANDLOCK_NET, HUTCH_SPEC_NET_LOOPBACK,
					 HUTCH_SPEC_NS_NET, HUTCH_SPEC_TTY };

	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		struct pair p;

		whole_init(&p);
		p.a.flags ^= bits[i];
		CU_ASSERT_FALSE(spec_whole_equal(&p.a, &p.b));
		whole_init(&p);
		p.b.flags ^= bits[i];
		CU_ASSERT_FALSE(spec_whole_equal(&p.a, &p.b));
	}
	{
		struct pair p;

		whole_init(&p);
		p.a.uid_inside++;
		CU_ASSERT_FALSE(spec_whole_equal(&p.a, &p.b));
		whole_init(&p);
		p.b.gid_outside++;
		CU_ASSERT_FALSE(spec_whole_equal(&p.a, &p.b));
		whole_init(&p);
		p.host_b[0] = 'H';
		CU_ASSERT_FALSE(spec_whole_equal(&p.a, &p.b));
	}
}

/* What landlock_add_rules and the root read: the count of mounts (a job
 * with one of its own more, or one fewer) and each field of each. */
static void test_whole_mounts(void)
{
	struct pair p;

	whole_init(&p);
	p.a.n_mounts = N_MOUNTS - 1;
	CU_ASSERT_FALSE(spec_whole_equal(&p.a, &p.b));
	whole_init(&p);
	p.b.n_mounts = N_MOUNTS - 1;	/* the job has one past the template */
	CU_ASSERT_FALSE(spec_whole_equal(&p.a, &p.b));
	for (uint32_t i = 0; i < N_MOUNTS; i++) {
		whole_init(&p);
		p.mb[i].kind = HUTCH_MOUNT_DIR;
		CU_ASSERT_FALSE(spec_whole_equal(&p.a, &p.b));
		whole_init(&p);
		p.mb[i].flags ^= HUTCH_MF_RW;
		CU_ASSERT_FALSE(spec_whole_equal(&p.a, &p.b));
		whole_init(&p);
		p.mb[i].flags ^= HUTCH_MF_EXEC;
		CU_ASSERT_FALSE(spec_whole_equal(&p.a, &p.b));
		whole_init(&p);
		p.mb[i].mode ^= 02;
		CU_ASSERT_FALSE(spec_whole_equal(&p.a, &p.b));
		whole_init(&p);
		p.mb[i].size_bytes++;
		CU_ASSERT_FALSE(spec_whole_equal(&p.a, &p.b));
		whole_init(&p);
		p.mb[i].inodes++;
		CU_ASSERT_FALSE(spec_whole_equal(&p.a, &p.b));
		whole_init(&p);
		p.mb[i].source = "/opt";
		CU_ASSERT_FALSE(spec_whole_equal(&p.a, &p.b));
		whole_init(&p);
		p.mb[i].target = "/srv";
		CU_ASSERT_FALSE(spec_whole_equal(&p.a, &p.b));
	}
	whole_init(&p);
	p.data_b[0] = 'R';
	CU_ASSERT_FALSE(spec_whole_equal(&p.a, &p.b));
}

static const struct unit_case cases[] = {
	{ "whole: equal, the marker the template's alone", test_whole_equal },
	{ "whole: each Landlock flag and header field differs", test_whole_flags },
	{ "whole: the count and each mount field differ", test_whole_mounts },
	{ "sources where the root is staged", test_staged_sources },
	{ "equal specs agree", test_equal },
	{ "each header field differs", test_header_fields },
	{ "each mount field differs", test_mount_fields },
	{ "data compared by its bytes", test_data_bytes },
	{ "past the prefix; fewer mounts", test_past_prefix_and_count },
	{ NULL, NULL },
};

UNIT_MAIN("spec-compare")
