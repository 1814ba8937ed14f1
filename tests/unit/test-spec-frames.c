/* test-spec-frames.c: unit tests of the jail-spec codec (shared/spec-codec.c)
 * against bytes that are not a valid spec: the header and length framing,
 * truncation at every byte, trailing bytes, lying counts and lengths (the
 * decoder's allocations watched), counts at their caps, the total and file
 * size limits, and every single-byte corruption. Fixtures: spec-fixtures.c. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"

#include "cunit-main.h"
#include "spec-fixtures.h"

/* ---- watching the decoder's allocations ---- */

/* The decoder allocates its three arrays with calloc(). This definition
 * interposes libc's (the executable comes first in symbol lookup) and, while
 * a test watches, records the largest request. Memory still comes from
 * malloc(), so libc's free() releases it. malloc is called through a
 * volatile pointer so the compiler cannot fold malloc+memset back into a
 * call to calloc, that is, to us. */
static void *(*volatile real_malloc)(size_t) = malloc;
static int calloc_watching;
static size_t calloc_largest, calloc_calls;

void *calloc(size_t n, size_t size)
{
	size_t bytes;
	void *p;

	if (__builtin_mul_overflow(n, size, &bytes)) {
		errno = ENOMEM;
		return NULL;
	}
	if (calloc_watching) {
		calloc_calls++;
		if (bytes > calloc_largest)
			calloc_largest = bytes;
	}
	p = real_malloc(bytes ? bytes : 1);
	if (p)
		memset(p, 0, bytes);
	return p;
}

static void calloc_watch(void)
{
	calloc_largest = calloc_calls = 0;
	calloc_watching = 1;
}

static size_t calloc_unwatch(void)
{
	calloc_watching = 0;
	return calloc_largest;
}

/* ---- header and length framing ---- */

static void test_peek_length(void)
{
	struct fixture f;
	struct wire w;
	uint32_t total;

	fixture_init(&f);
	wire_encode(&f.sp, &w);
	for (size_t n = 0; n < HUTCH_SPEC_HEADER_BYTES; n++) {
		uint8_t *hdr = malloc(n ? n : 1);

		CU_ASSERT_PTR_NOT_NULL_FATAL(hdr);
		memcpy(hdr, w.buf, n);
		total = 7;
		CU_ASSERT_EQUAL(spec_peek_length(hdr, n, &total), -EBADMSG);
		CU_ASSERT_EQUAL(total, 7);
		free(hdr);
	}
	total = 0;
	CU_ASSERT_EQUAL(spec_peek_length(w.buf, HUTCH_SPEC_HEADER_BYTES, &total), 0);
	CU_ASSERT_EQUAL(total, w.len);
	total = 0;
	CU_ASSERT_EQUAL(spec_peek_length(w.buf, w.len, &total), 0);
	CU_ASSERT_EQUAL(total, w.len);
	wire_free(&w);
}

static void test_bad_header(void)
{
	static const struct {
		const char *name;
		size_t off, width;
		uint32_t value;
		int peek_rc; /* total_len values peek allows but decode cannot */
	} hdr_cases[] = {
		{ "magic: 0", 0, 4, 0, -EBADMSG },
		{ "magic: off by one bit", 0, 4, HUTCH_SPEC_MAGIC ^ 1, -EBADMSG },
		{ "magic: byte-swapped", 0, 4, 0x48535031u, -EBADMSG },
		{ "magic: status record's", 0, 4, 0x48535431u, -EBADMSG },
		{ "magic: all ones", 0, 4, UINT32_MAX, -EBADMSG },
		{ "version: 0", 4, 2, 0, -EBADMSG },
		{ "version: 1 (no inode counts)", 4, 2, 1, -EBADMSG },
		{ "version: 2 (no user caps)", 4, 2, 2, -EBADMSG },
		{ "version: 4", 4, 2, 4, -EBADMSG },
		{ "version: byte-swapped", 4, 2, 0x0100, -EBADMSG },
		{ "version: 0xffff", 4, 2, 0xffff, -EBADMSG },
		{ "reserved: 1", 6, 2, 1, -EBADMSG },
		{ "reserved: 0x100", 6, 2, 0x100, -EBADMSG },
		{ "reserved: 0x8000", 6, 2, 0x8000, -EBADMSG },
		{ "total_len: 0", 8, 4, 0, -EBADMSG },
		{ "total_len: 11", 8, 4, HUTCH_SPEC_HEADER_BYTES - 1, -EBADMSG },
		{ "total_len: 12", 8, 4, HUTCH_SPEC_HEADER_BYTES, 0 },
		{ "total_len: max", 8, 4, HUTCH_SPEC_MAX_BYTES, 0 },
		{ "total_len: max + 1", 8, 4, HUTCH_SPEC_MAX_BYTES + 1, -EBADMSG },
		{ "total_len: 0x80000000", 8, 4, 0x80000000u, -EBADMSG },
		{ "total_len: all ones", 8, 4, UINT32_MAX, -EBADMSG },
	};
	struct fixture f;
	struct wire w;

	fixture_init(&f);
	wire_encode(&f.sp, &w);
	for (size_t i = 0; i < ARRAY_SIZE(hdr_cases); i++) {
		uint8_t *b = malloc(w.len);
		uint32_t total = 7;
		int r;

		CU_ASSERT_PTR_NOT_NULL_FATAL(b);
		memcpy(b, w.buf, w.len);
		if (hdr_cases[i].width == 4)
			wr32(b + hdr_cases[i].off, hdr_cases[i].value);
		else
			wr16(b + hdr_cases[i].off, (uint16_t)hdr_cases[i].value);
		r = spec_peek_length(b, w.len, &total);
		expect_rc("peek", hdr_cases[i].name, r, hdr_cases[i].peek_rc);
		CU_ASSERT_EQUAL(total, r == 0 ? hdr_cases[i].value : 7);
		expect_rc("decode", hdr_cases[i].name, decode_rc(b, w.len), -EBADMSG);
		free(b);
	}

	/* total_len one off either way, with the real length in hand. */
	for (int delta = -1; delta <= 1; delta += 2) {
		uint8_t *b = malloc(w.len);

		CU_ASSERT_PTR_NOT_NULL_FATAL(b);
		memcpy(b, w.buf, w.len);
		wr32(b + 8, (uint32_t)((long)w.len + delta));
		CU_ASSERT_EQUAL(decode_rc(b, w.len), -EBADMSG);
		free(b);
	}
	wire_free(&w);
}

/* Every proper prefix fails, whether total_len still announces the whole
 * spec or was patched to match the prefix. */
static void test_truncation_every_byte(void)
{
	struct fixture f;
	struct wire w;
	size_t failures = 0;

	fixture_init(&f);
	wire_encode(&f.sp, &w);
	for (size_t n = 0; n < w.len; n++) {
		uint8_t *b = malloc(n ? n : 1);
		int r1, r2 = -EBADMSG;

		CU_ASSERT_PTR_NOT_NULL_FATAL(b);
		memcpy(b, w.buf, n);
		r1 = decode_rc(b, n);
		if (n >= HUTCH_SPEC_HEADER_BYTES) {
			wr32(b + 8, (uint32_t)n);
			r2 = decode_rc(b, n);
		}
		if (r1 != -EBADMSG || r2 != -EBADMSG) {
			fprintf(stderr, "\n    prefix of %zu/%zu bytes: %d, patched %d\n", n, w.len,
				r1, r2);
			failures++;
		}
		free(b);
	}
	CU_ASSERT_EQUAL(failures, 0);
	wire_free(&w);
}

static void test_trailing_bytes(void)
{
	static const uint8_t extras[] = { 0x00, 0x01, 0xff };
	struct fixture f;
	struct wire w;

	fixture_init(&f);
	wire_encode(&f.sp, &w);
	for (size_t i = 0; i < ARRAY_SIZE(extras); i++) {
		uint8_t *b = malloc(w.len + 8);

		CU_ASSERT_PTR_NOT_NULL_FATAL(b);
		memcpy(b, w.buf, w.len);
		memset(b + w.len, extras[i], 8);
		/* total_len still says len: the extra byte is not announced */
		CU_ASSERT_EQUAL(decode_rc(b, w.len + 1), -EBADMSG);
		/* total_len announces it: still nothing may follow the filter */
		wr32(b + 8, (uint32_t)w.len + 1);
		CU_ASSERT_EQUAL(decode_rc(b, w.len + 1), -EBADMSG);
		wr32(b + 8, (uint32_t)w.len + 8);
		CU_ASSERT_EQUAL(decode_rc(b, w.len + 8), -EBADMSG);
		free(b);
	}
	wire_free(&w);
}

/* ---- lying counts and lengths ---- */

/* Decode w with the u32 at off replaced by v. Allocations must stay in
 * proportion to the input: a pointer per 4 bytes is more than any valid
 * spec needs, and far less than a lying count would ask for. */
static int decode_with_u32(const struct wire *w, size_t off, uint32_t v)
{
	uint8_t *b = malloc(w->len);
	size_t largest;
	int r;

	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	memcpy(b, w->buf, w->len);
	wr32(b + off, v);
	calloc_watch();
	r = decode_rc(b, w->len);
	largest = calloc_unwatch();
	if (r != -EBADMSG || largest > w->len / 4 * sizeof(char *))
		fprintf(stderr, "\n    u32 at %zu set to %u: got %d, calloc'd up to %zu\n", off,
			v, r, largest);
	CU_ASSERT(largest <= w->len / 4 * sizeof(char *));
	free(b);
	return r;
}

/* The watch above sees the decoder's allocations at all, or it proves
 * nothing. */
static void test_calloc_is_watched(void)
{
	struct fixture f;
	struct wire w;

	fixture_init(&f);
	wire_encode(&f.sp, &w);
	calloc_watch();
	CU_ASSERT_EQUAL(decode_rc(w.buf, w.len), 0);
	calloc_unwatch();
	CU_ASSERT_EQUAL(calloc_calls, 3); /* mounts, argv, envp */
	CU_ASSERT_EQUAL(calloc_largest, N_GOOD_MOUNTS * sizeof(struct spec_mount));
	wire_free(&w);
}

/* Counts and lengths that overrun what is left must fail as malformed, and
 * before allocating for them: a count the remaining bytes cannot hold never
 * reaches calloc, so -ENOMEM here would mean the decoder trusted it. */
static void test_oversized_counts_and_lengths(void)
{
	struct fixture f;
	struct wire w;
	/* every u32 length and count: strs first, then blobs, then counts */
	size_t fields[2 + 3 * N_GOOD_MOUNTS + ARRAY_SIZE(good_argv) + ARRAY_SIZE(good_envp) + 4];
	size_t n_fields = 0, n_strs, count_at[3];

	fixture_init(&f);
	wire_encode(&f.sp, &w);
	fields[n_fields++] = w.at.hostname;
	fields[n_fields++] = w.at.cwd;
	for (unsigned i = 0; i < N_GOOD_MOUNTS; i++) {
		fields[n_fields++] = w.at.m[i].source;
		fields[n_fields++] = w.at.m[i].target;
	}
	for (unsigned i = 0; i < f.sp.argc; i++)
		fields[n_fields++] = w.at.argv[i];
	for (unsigned i = 0; i < f.sp.envc; i++)
		fields[n_fields++] = w.at.envp[i];
	n_strs = n_fields;
	for (unsigned i = 0; i < N_GOOD_MOUNTS; i++)
		fields[n_fields++] = w.at.m[i].data;
	fields[n_fields++] = w.at.filter;
	fields[n_fields++] = count_at[0] = w.at.n_mounts;
	fields[n_fields++] = count_at[1] = w.at.argc;
	fields[n_fields++] = count_at[2] = w.at.envc;
	CU_ASSERT_FATAL(n_fields <= ARRAY_SIZE(fields));

	/* Any length or count past the remaining bytes. */
	for (size_t k = 0; k < n_fields; k++) {
		uint32_t left = (uint32_t)(w.len - fields[k] - 4);
		const uint32_t huge[] = {
			left + 1, left + 5, HUTCH_SPEC_MAX_BYTES, 0x7fffffffu,
			0x80000000u, 0xfffffffeu, UINT32_MAX,
		};

		for (size_t v = 0; v < ARRAY_SIZE(huge); v++)
			CU_ASSERT_EQUAL(decode_with_u32(&w, fields[k], huge[v]), -EBADMSG);
	}

	/* A str length one off puts the NUL inside it or takes a byte that
	 * is not a NUL as the terminator. */
	for (size_t k = 0; k < n_strs; k++) {
		uint32_t orig = rd32(w.buf + fields[k]);

		CU_ASSERT_EQUAL(decode_with_u32(&w, fields[k], orig + 1), -EBADMSG);
		if (orig > 0)
			CU_ASSERT_EQUAL(decode_with_u32(&w, fields[k], orig - 1), -EBADMSG);
	}

	/* Counts within or at their caps that the remaining bytes cannot hold:
	 * a str needs at least 5 bytes, a mount at least 38. */
	for (size_t k = 0; k < 3; k++) {
		uint32_t left = (uint32_t)(w.len - count_at[k] - 4);
		const uint32_t many[] = {
			left / 5 + 1, left / 2, left, HUTCH_SPEC_MAX_MOUNTS, HUTCH_SPEC_MAX_MOUNTS + 1,
			HUTCH_SPEC_MAX_ENVC, HUTCH_SPEC_MAX_ENVC + 1, HUTCH_SPEC_MAX_ARGC,
			HUTCH_SPEC_MAX_ARGC + 1,
		};

		for (size_t v = 0; v < ARRAY_SIZE(many); v++)
			CU_ASSERT_EQUAL(decode_with_u32(&w, count_at[k], many[v]), -EBADMSG);
	}
	wire_free(&w);
}

/* ---- limits: counts at their caps pass, one more fails ---- */

enum counted { C_MOUNTS, C_ARGV, C_ENVP };

static const struct {
	const char *name;
	enum counted what;
	uint32_t cap;
} count_caps[] = {
	{ "mounts", C_MOUNTS, HUTCH_SPEC_MAX_MOUNTS },
	{ "argv", C_ARGV, HUTCH_SPEC_MAX_ARGC },
	{ "env", C_ENVP, HUTCH_SPEC_MAX_ENVC },
};

static void set_count(struct spec *sp, enum counted what, uint32_t n)
{
	switch (what) {
	case C_MOUNTS:
		sp->n_mounts = n;
		break;
	case C_ARGV:
		sp->argc = n;
		break;
	case C_ENVP:
		sp->envc = n;
		break;
	}
}

/* Duplicate the first entry of a list on the wire and count it: the result
 * is a well-formed spec whose only change is one more entry. */
static void forge_one_more(struct wire *w, enum counted what)
{
	size_t count_off = 0, first = 0, second = 0;

	switch (what) {
	case C_MOUNTS:
		count_off = w->at.n_mounts;
		first = w->at.m[0].rec;
		second = w->at.m[1].rec;
		break;
	case C_ARGV:
		count_off = w->at.argc;
		first = w->at.argv[0];
		second = w->at.argv[1];
		break;
	case C_ENVP:
		count_off = w->at.envc;
		first = w->at.envp[0];
		second = w->at.envp[1];
		break;
	}
	wr32(w->buf + count_off, rd32(w->buf + count_off) + 1);
	wire_splice(w, first, 0, w->buf + first, second - first);
}

static void test_count_caps(void)
{
	size_t most = HUTCH_SPEC_MAX_ARGC + 2;
	struct spec_mount *mounts = calloc(most, sizeof(*mounts));
	char **argv = calloc(most, sizeof(*argv)), **envp = calloc(most, sizeof(*envp));

	CU_ASSERT_FATAL(mounts && argv && envp);
	for (size_t i = 0; i < most; i++) {
		mounts[i] = (struct spec_mount){
			.kind = HUTCH_MOUNT_DIR, .mode = 0755, .source = "", .target = "/d",
		};
		argv[i] = "x";
		envp[i] = "A=b";
	}

	for (size_t i = 0; i < ARRAY_SIZE(count_caps); i++) {
		struct spec sp = minimal_spec(argv);
		uint32_t cap = count_caps[i].cap;
		struct wire w;

		sp.mounts = mounts;
		sp.envp = envp;
		sp.argc = 2; /* so that forge_one_more always has a second entry */
		sp.envc = 2;
		sp.n_mounts = 2;

		set_count(&sp, count_caps[i].what, cap);
		expect_rc("encode at cap", count_caps[i].name, encode_rc(&sp), 0);
		set_count(&sp, count_caps[i].what, cap + 1);
		expect_rc("encode past cap", count_caps[i].name, encode_rc(&sp), -EINVAL);
		set_count(&sp, count_caps[i].what, UINT32_MAX);
		expect_rc("encode all ones", count_caps[i].name, encode_rc(&sp), -EINVAL);

		/* The forgery itself is sound: cap - 1 plus one decodes. */
		set_count(&sp, count_caps[i].what, cap - 1);
		wire_encode(&sp, &w);
		forge_one_more(&w, count_caps[i].what);
		expect_rc("decode forged cap", count_caps[i].name, decode_rc(w.buf, w.len), 0);
		wire_free(&w);

		set_count(&sp, count_caps[i].what, cap);
		wire_encode(&sp, &w);
		expect_rc("decode at cap", count_caps[i].name, decode_rc(w.buf, w.len), 0);
		forge_one_more(&w, count_caps[i].what);
		expect_rc("decode past cap", count_caps[i].name, decode_rc(w.buf, w.len),
			  -EBADMSG);
		wire_free(&w);
	}
	free(mounts);
	free(argv);
	free(envp);
}

/* ---- sizes: the 64 MiB spec and the 32 MiB file ---- */

static void test_total_and_file_limits(void)
{
	uint8_t *data = calloc(1, HUTCH_SPEC_MAX_FILE_BYTES + 1);
	char *argv[] = { "x", NULL };
	struct spec_mount m[2] = {
		{ .kind = HUTCH_MOUNT_FILE, .source = "", .target = "/a", .data = data,
		  .data_len = HUTCH_SPEC_MAX_FILE_BYTES },
		{ .kind = HUTCH_MOUNT_FILE, .source = "", .target = "/b", .data = data },
	};
	struct spec sp = minimal_spec(argv);
	struct wire w;
	uint8_t *buf;
	size_t len, base;
	struct spec out;
	uint32_t total;

	CU_ASSERT_PTR_NOT_NULL_FATAL(data);
	sp.mounts = m;
	sp.n_mounts = 2;
	CU_ASSERT_EQUAL_FATAL(spec_encode(&sp, &buf, &base), 0);
	free(buf);

	/* Exactly HUTCH_SPEC_MAX_BYTES encodes, decodes and peeks. */
	m[1].data_len = (uint32_t)(HUTCH_SPEC_MAX_BYTES - base);
	CU_ASSERT_EQUAL_FATAL(spec_encode(&sp, &buf, &len), 0);
	CU_ASSERT_EQUAL(len, HUTCH_SPEC_MAX_BYTES);
	CU_ASSERT_EQUAL(spec_peek_length(buf, len, &total), 0);
	CU_ASSERT_EQUAL(total, HUTCH_SPEC_MAX_BYTES);
	CU_ASSERT_EQUAL(spec_decode(buf, len, &out), 0);
	spec_release(&out);
	free(buf);

	/* One byte more is too big. */
	m[1].data_len++;
	CU_ASSERT_EQUAL(encode_rc(&sp), -E2BIG);

	/* A file over 32 MiB is refused though the spec would fit. */
	m[0].data_len = HUTCH_SPEC_MAX_FILE_BYTES + 1;
	m[1].data_len = 0;
	CU_ASSERT_EQUAL(encode_rc(&sp), -EINVAL);
	m[0].data_len = HUTCH_SPEC_MAX_FILE_BYTES;
	wire_encode(&sp, &w);
	wire_set_blob(&w, w.at.m[0].data, data, HUTCH_SPEC_MAX_FILE_BYTES + 1);
	CU_ASSERT_EQUAL(spec_decode(w.buf, w.len, &out), -EBADMSG);
	wire_free(&w);
	free(data);
}

/* ---- every single-byte corruption ---- */

/* Flip bits in every byte. The decoder must either refuse with -EBADMSG or
 * accept something the encoder would produce byte for byte: it never
 * accepts what the encoder would refuse. */
static void test_single_byte_corruption(void)
{
	static const uint8_t masks[] = { 0x01, 0x02, 0x08, 0x20, 0x40, 0x80, 0xff };
	struct fixture f;
	struct wire w;
	size_t accepted = 0, bad = 0;

	fixture_init(&f);
	wire_encode(&f.sp, &w);
	for (size_t i = 0; i < w.len; i++) {
		for (size_t k = 0; k < ARRAY_SIZE(masks); k++) {
			struct decoded d;
			uint8_t *again;
			size_t again_len;

			w.buf[i] ^= masks[k];
			if (decode_copy(w.buf, w.len, &d) == 0) {
				accepted++;
				if (spec_encode(&d.sp, &again, &again_len) != 0) {
					bad++;
				} else {
					if (again_len != w.len || memcmp(again, w.buf, w.len) != 0)
						bad++;
					free(again);
				}
			} else if (d.r != -EBADMSG) {
				bad++;
			}
			if (bad)
				fprintf(stderr, "\n    byte %zu ^ 0x%02x: rc %d\n", i, masks[k], d.r);
			CU_ASSERT_EQUAL_FATAL(bad, 0);
			decoded_free(&d);
			w.buf[i] ^= masks[k];
		}
	}
	CU_ASSERT(accepted > 0); /* ids, limits, modes and text still vary */
	wire_free(&w);
}

static const struct unit_case cases[] = {
	{ "peek length", test_peek_length },
	{ "bad header", test_bad_header },
	{ "truncation at every byte", test_truncation_every_byte },
	{ "trailing bytes", test_trailing_bytes },
	{ "decoder allocations are watched", test_calloc_is_watched },
	{ "oversized counts and lengths", test_oversized_counts_and_lengths },
	{ "count caps", test_count_caps },
	{ "total and file size limits", test_total_and_file_limits },
	{ "single-byte corruption", test_single_byte_corruption },
	{ NULL, NULL },
};

UNIT_MAIN("spec-frames")
