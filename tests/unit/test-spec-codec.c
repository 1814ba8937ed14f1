/* test-spec-codec.c: unit tests of the jail-spec codec (shared/spec-codec.c):
 * round trips, golden bytes, the argv and env rules a table cannot say,
 * and spec_path_is_clean. Decodes read exact-size heap copies, so
 * sanitizers see any overread. Each field's rules are in test-spec-rules.c;
 * framing, lying lengths, caps and corruption in test-spec-frames.c; the
 * fixtures in spec-fixtures.c. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"

#include "cunit-main.h"
#include "spec-fixtures.h"

/* ---- round trips ---- */

static int points_into(const void *p, const uint8_t *buf, size_t len)
{
	const uint8_t *q = p;

	return q >= buf && q < buf + len;
}

static void test_round_trip_realistic(void)
{
	struct fixture f;
	struct wire w;
	struct decoded d;
	uint8_t *again;
	size_t again_len;

	fixture_init(&f);
	wire_encode(&f.sp, &w);
	CU_ASSERT_EQUAL_FATAL(decode_copy(w.buf, w.len, &d), 0);
	assert_spec_equal(&f.sp, &d.sp);

	/* The decoded spec borrows from the buffer rather than copying. */
	CU_ASSERT(points_into(d.sp.hostname, d.copy, w.len));
	CU_ASSERT(points_into(d.sp.cwd, d.copy, w.len));
	CU_ASSERT(points_into(d.sp.mounts[M_FILE].data, d.copy, w.len));
	CU_ASSERT(points_into(d.sp.argv[0], d.copy, w.len));
	CU_ASSERT(points_into(d.sp.envp[0], d.copy, w.len));
	CU_ASSERT(points_into(d.sp.filter, d.copy, w.len));

	/* Re-encoding gives the same bytes: the wire form is canonical. */
	CU_ASSERT_EQUAL_FATAL(spec_encode(&d.sp, &again, &again_len), 0);
	CU_ASSERT_EQUAL(again_len, w.len);
	CU_ASSERT(again_len == w.len && memcmp(again, w.buf, w.len) == 0);
	free(again);
	decoded_free(&d);
	wire_free(&w);
}

static void test_round_trip_minimal(void)
{
	char *argv[] = { "x", NULL };
	struct spec sp = minimal_spec(argv);
	struct wire w;
	struct decoded d;

	wire_encode(&sp, &w);
	CU_ASSERT_EQUAL_FATAL(decode_copy(w.buf, w.len, &d), 0);
	assert_spec_equal(&sp, &d.sp);
	CU_ASSERT_EQUAL(d.sp.n_mounts, 0);
	CU_ASSERT_PTR_NOT_NULL(d.sp.mounts);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d.sp.envp);
	CU_ASSERT_PTR_NULL(d.sp.envp[0]);
	decoded_free(&d);
	wire_free(&w);
}

/* The decoder reads bytes, not words: an odd address must not matter. */
static void test_round_trip_unaligned(void)
{
	struct fixture f;
	struct wire w;
	struct spec out;
	uint8_t *odd;

	fixture_init(&f);
	wire_encode(&f.sp, &w);
	odd = malloc(w.len + 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(odd);
	memcpy(odd + 1, w.buf, w.len);
	CU_ASSERT_EQUAL_FATAL(spec_decode(odd + 1, w.len, &out), 0);
	assert_spec_equal(&f.sp, &out);
	spec_release(&out);
	free(odd);
	wire_free(&w);
}

/* The wire layout pinned byte by byte, so both binaries agree across
 * releases; little-endian throughout. */
static void test_golden_bytes(void)
{
	static const uint8_t golden[] = {
		0x48, 0x53, 0x50, 0x31, 0x03, 0x00, 0x00, 0x00, /* "HSP1", v3, zero */
		0xc2, 0x00, 0x00, 0x00,				/* total_len 194 */
		0x01, 0x02, 0x00, 0x00,				/* flags PID|SECCOMP */
		0xe8, 0x03, 0x00, 0x00, 0xe9, 0x03, 0x00, 0x00, /* uid/gid inside */
		0xa0, 0x86, 0x01, 0x00, 0x78, 0x56, 0x34, 0x12, /* uid/gid outside */
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, /* AS */
		0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* CPU */
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* FSIZE */
		0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* NOFILE */
		0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* NPROC */
		0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* inotify instances */
		0x00, 0x40, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* inotify watches */
		0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, /* message-queue bytes */
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* pending signals */
		0x01, 0x00, 0x00, 0x00, 'h', 0x00,		/* hostname */
		0x01, 0x00, 0x00, 0x00, '/', 0x00,		/* cwd */
		0x01, 0x00, 0x00, 0x00,				/* n_mounts */
		0x02, 0x00, 0x03, 0x00, 0xff, 0x03, 0x00, 0x00, /* tmpfs, RW|EXEC, 01777 */
		0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, /* size */
		0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* inodes */
		0x00, 0x00, 0x00, 0x00, 0x00,			/* source "" */
		0x02, 0x00, 0x00, 0x00, '/', 't', 0x00,	/* target */
		0x00, 0x00, 0x00, 0x00,				/* data */
		0x01, 0x00, 0x00, 0x00,				/* argc */
		0x01, 0x00, 0x00, 0x00, 'x', 0x00,
		0x01, 0x00, 0x00, 0x00,				/* envc */
		0x03, 0x00, 0x00, 0x00, 'A', '=', 'b', 0x00,
		0x08, 0x00, 0x00, 0x00,				/* filter */
		0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0x7f,
	};
	char *argv[] = { "x", NULL }, *envp[] = { "A=b", NULL };
	struct spec_mount m = {
		.kind = HUTCH_MOUNT_TMPFS, .flags = HUTCH_MF_RW | HUTCH_MF_EXEC, .mode = 01777,
		.size_bytes = 0x10000, .inodes = 0x200, .source = "", .target = "/t",
	};
	struct spec sp = {
		.flags = HUTCH_SPEC_NS_PID | HUTCH_SPEC_SECCOMP,
		.uid_inside = 1000, .gid_inside = 1001,
		.uid_outside = 100000, .gid_outside = 0x12345678,
		.rlimit = { 0x0102030405060708ull, 5, HUTCH_RLIM_INFINITY, 256, 32 },
		.user_cap = { 32, 16384, 65536, HUTCH_RLIM_INFINITY },
		.hostname = "h", .cwd = "/",
		.n_mounts = 1, .mounts = &m,
		.argc = 1, .argv = argv, .envc = 1, .envp = envp,
		.filter = (const uint8_t *)"\x06\0\0\0\0\0\xff\x7f", .filter_len = 8,
	};
	uint8_t *buf;
	size_t len;
	struct decoded d;

	CU_ASSERT_EQUAL(sizeof(golden), 194);
	CU_ASSERT_EQUAL_FATAL(spec_encode(&sp, &buf, &len), 0);
	CU_ASSERT_EQUAL(len, sizeof(golden));
	CU_ASSERT(len == sizeof(golden) && memcmp(buf, golden, len) == 0);
	free(buf);

	CU_ASSERT_EQUAL_FATAL(decode_copy(golden, sizeof(golden), &d), 0);
	assert_spec_equal(&sp, &d.sp);
	decoded_free(&d);
}

/* argc == 0 and NULL entries, which the table cannot express. */
static void test_argv_rules(void)
{
	struct fixture f;
	struct wire w;
	uint8_t zero[4] = { 0 };

	fixture_init(&f);
	f.sp.argc = 0;
	f.argv[0] = NULL;
	CU_ASSERT_EQUAL(encode_rc(&f.sp), -EINVAL);

	fixture_init(&f);
	f.argv[1] = NULL; /* argc still counts it */
	CU_ASSERT_EQUAL(encode_rc(&f.sp), -EINVAL);

	fixture_init(&f);
	f.envp[2] = NULL;
	CU_ASSERT_EQUAL(encode_rc(&f.sp), -EINVAL);

	/* env may be empty; argv may not */
	fixture_init(&f);
	f.sp.envc = 0;
	f.envp[0] = NULL;
	CU_ASSERT_EQUAL(encode_rc(&f.sp), 0);

	fixture_init(&f);
	wire_encode(&f.sp, &w);
	wire_splice(&w, w.at.argc, w.at.envc - w.at.argc, zero, sizeof(zero));
	CU_ASSERT_EQUAL(decode_rc(w.buf, w.len), -EBADMSG);
	wire_free(&w);
}

/* ---- spec_path_is_clean ---- */

static void test_path_is_clean(void)
{
	static const struct {
		const char *path;
		int clean, clean_or_root; /* allow_root 0, 1 */
	} paths[] = {
		{ "/", 0, 1 },
		{ "", 0, 0 },
		{ "a", 0, 0 },
		{ ".", 0, 0 },
		{ "relative/x", 0, 0 },
		{ "/a", 1, 1 },
		{ "/a/b", 1, 1 },
		{ "/usr/lib/x86_64-linux-gnu", 1, 1 },
		{ "/...", 1, 1 },
		{ "/.a", 1, 1 },
		{ "/a.", 1, 1 },
		{ "/..a", 1, 1 },
		{ "/a..", 1, 1 },
		{ "/a/.b/..c/...", 1, 1 },
		{ "/a/", 0, 0 },
		{ "/a/b/", 0, 0 },
		{ "//", 0, 0 },
		{ "///", 0, 0 },
		{ "//a", 0, 0 },
		{ "/a//b", 0, 0 },
		{ "/.", 0, 0 },
		{ "/..", 0, 0 },
		{ "/./", 0, 0 },
		{ "/a/.", 0, 0 },
		{ "/a/..", 0, 0 },
		{ "/./a", 0, 0 },
		{ "/../a", 0, 0 },
		{ "/a/./b", 0, 0 },
		{ "/a/../b", 0, 0 },
		{ "a/../b", 0, 0 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(paths); i++) {
		expect_rc("allow_root=0", paths[i].path, spec_path_is_clean(paths[i].path, 0),
			  paths[i].clean);
		expect_rc("allow_root=1", paths[i].path, spec_path_is_clean(paths[i].path, 1),
			  paths[i].clean_or_root);
	}
}

static const struct unit_case cases[] = {
	{ "round trip: realistic spec", test_round_trip_realistic },
	{ "round trip: minimal spec", test_round_trip_minimal },
	{ "round trip: unaligned buffer", test_round_trip_unaligned },
	{ "golden bytes", test_golden_bytes },
	{ "argv and env rules", test_argv_rules },
	{ "spec_path_is_clean", test_path_is_clean },
	{ NULL, NULL },
};

UNIT_MAIN("spec-codec")
