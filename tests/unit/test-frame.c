/* test-frame.c: unit tests of the frame codec (shared/frame-codec.c) that
 * `hutch serve` and session workers speak: header round trips, every short
 * header, a length over the limit refused before anything is allocated,
 * the limit itself accepted, and the incremental reader fed every way a
 * stream can arrive (every split in two, a byte at a time, frames back to
 * back, trailing bytes left for the next frame). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "frame-codec.h"

#include "cunit-main.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- headers ---- */

static void test_header_round_trip(void)
{
	static const uint32_t lens[] = { 0, 1, 0xff, 0x100, 0x1234, 0x10000, 0xabcdef,
					 0x1000000, 0x7fffffff, 0x80000000u, 0xffffffffu };

	for (size_t i = 0; i < ARRAY_SIZE(lens); i++) {
		uint8_t hdr[FRAME_HEADER_BYTES];
		size_t len = 12345;

		frame_put_header(hdr, lens[i]);
		CU_ASSERT_EQUAL(frame_parse_header(hdr, sizeof(hdr), UINT32_MAX, &len), 0);
		CU_ASSERT_EQUAL(len, lens[i]);
	}
}

/* Big-endian on the wire, whatever the host. */
static void test_header_byte_order(void)
{
	uint8_t hdr[FRAME_HEADER_BYTES];
	const uint8_t want[] = { 0x01, 0x02, 0x03, 0x04 };
	size_t len = 0;

	frame_put_header(hdr, 0x01020304u);
	CU_ASSERT_EQUAL(memcmp(hdr, want, sizeof(want)), 0);
	CU_ASSERT_EQUAL(frame_parse_header(want, 4, UINT32_MAX, &len), 0);
	CU_ASSERT_EQUAL(len, 0x01020304u);
}

/* Fewer than four bytes is never a length, and nothing is written. */
static void test_header_truncated(void)
{
	const uint8_t hdr[FRAME_HEADER_BYTES] = { 0, 0, 0, 1 };

	for (size_t n = 0; n < FRAME_HEADER_BYTES; n++) {
		size_t len = 777;

		CU_ASSERT_EQUAL(frame_parse_header(hdr, n, 100, &len), -EAGAIN);
		CU_ASSERT_EQUAL(len, 777);
	}
}

/* Bytes after the header are not the header's business. */
static void test_header_ignores_following_bytes(void)
{
	const uint8_t buf[] = { 0, 0, 0, 2, 'h', 'i', 0xff, 0xff };
	size_t len = 0;

	CU_ASSERT_EQUAL(frame_parse_header(buf, sizeof(buf), 2, &len), 0);
	CU_ASSERT_EQUAL(len, 2);
}

static void test_header_limit(void)
{
	uint8_t hdr[FRAME_HEADER_BYTES];
	size_t len = 0;

	frame_put_header(hdr, 1024);
	CU_ASSERT_EQUAL(frame_parse_header(hdr, 4, 1024, &len), 0);	/* exactly max */
	CU_ASSERT_EQUAL(len, 1024);
	len = 5;
	frame_put_header(hdr, 1025);
	CU_ASSERT_EQUAL(frame_parse_header(hdr, 4, 1024, &len), -EMSGSIZE); /* max + 1 */
	CU_ASSERT_EQUAL(len, 5);
	frame_put_header(hdr, 0);
	CU_ASSERT_EQUAL(frame_parse_header(hdr, 4, 0, &len), 0);	/* max 0: only empty */
	CU_ASSERT_EQUAL(len, 0);
	frame_put_header(hdr, 1);
	CU_ASSERT_EQUAL(frame_parse_header(hdr, 4, 0, &len), -EMSGSIZE);
}

static void test_frame_refuses_oversize_before_alloc(void)
{
	const uint8_t hdr[4] = { 0x7f, 0xff, 0xff, 0xff };
	const uint8_t all[4] = { 0xff, 0xff, 0xff, 0xff };
	size_t len = 0;

	CU_ASSERT_EQUAL(frame_parse_header(hdr, sizeof(hdr), 96u << 20, &len), -EMSGSIZE);
	CU_ASSERT_EQUAL(len, 0);	/* nothing to allocate for */
	CU_ASSERT_EQUAL(frame_parse_header(all, sizeof(all), UINT32_MAX - 1, &len), -EMSGSIZE);
	CU_ASSERT_EQUAL(len, 0);
}

/* ---- the incremental reader ---- */

#define MAX_FRAMES 8

/* What a reader made of a stream fed in chunks. */
struct got {
	size_t n;
	size_t len[MAX_FRAMES];
	uint8_t *data[MAX_FRAMES];
	enum frame_state last;
	size_t consumed;
};

static void got_free(struct got *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->data[i]);
	memset(g, 0, sizeof(*g));
}

/* Feed one chunk until it is used up, taking every complete frame; stop
 * at the first error state. Checks the reader's bookkeeping on the way. */
static enum frame_state feed_chunk(struct frame_reader *fr, const uint8_t *p, size_t n,
				   struct got *g)
{
	enum frame_state st = FRAME_MORE;
	size_t off = 0;

	do {
		size_t used = (size_t)-1;

		st = frame_reader_feed(fr, p + off, n - off, &used);
		CU_ASSERT_FATAL(used <= n - off);
		off += used;
		g->consumed += used;
		if (st == FRAME_DONE) {
			size_t len = (size_t)-1;
			uint8_t *b = frame_reader_take(fr, &len);

			CU_ASSERT_PTR_NOT_NULL_FATAL(b);
			CU_ASSERT_EQUAL(b[len], '\0');	/* NUL-terminated for text use */
			CU_ASSERT(frame_reader_idle(fr));
			CU_ASSERT_PTR_NULL(fr->buf);
			CU_ASSERT_FATAL(g->n < MAX_FRAMES);
			g->len[g->n] = len;
			g->data[g->n++] = b;
		} else if (st != FRAME_MORE) {
			break;
		} else {
			/* MORE means every byte offered was taken. */
			CU_ASSERT_EQUAL(off, n);
		}
	} while (off < n);
	g->last = st;
	return st;
}

/* Two frames, "hello" and an empty one, then "world!" (with a 0 byte). */
static const uint8_t stream3[] = {
	0, 0, 0, 5, 'h', 'e', 'l', 'l', 'o',
	0, 0, 0, 0,
	0, 0, 0, 6, 'w', 'o', 0, 'l', 'd', '!',
};

static void check_stream3(const struct got *g)
{
	CU_ASSERT_EQUAL_FATAL(g->n, 3);
	CU_ASSERT_EQUAL(g->len[0], 5);
	CU_ASSERT_EQUAL(memcmp(g->data[0], "hello", 5), 0);
	CU_ASSERT_EQUAL(g->len[1], 0);
	CU_ASSERT_EQUAL(g->data[1][0], '\0');
	CU_ASSERT_EQUAL(g->len[2], 6);
	CU_ASSERT_EQUAL(memcmp(g->data[2], "wo\0ld!", 6), 0);
	CU_ASSERT_EQUAL(g->consumed, sizeof(stream3));
}

static void test_reader_every_split(void)
{
	for (size_t k = 0; k <= sizeof(stream3); k++) {
		struct frame_reader fr = { .max = 64 };
		struct got g = { 0 };

		feed_chunk(&fr, stream3, k, &g);
		CU_ASSERT_NOT_EQUAL(g.last, FRAME_OVERSIZED);
		feed_chunk(&fr, stream3 + k, sizeof(stream3) - k, &g);
		/* The last byte of a stream ends a frame (an empty feed after
		 * the whole stream reports MORE: nothing was offered). */
		CU_ASSERT_EQUAL(g.last, k < sizeof(stream3) ? FRAME_DONE : FRAME_MORE);
		check_stream3(&g);
		CU_ASSERT(frame_reader_idle(&fr));
		got_free(&g);
		frame_reader_reset(&fr);
	}
}

/* Every split into three: the header itself may arrive in pieces. */
static void test_reader_every_three_way_split(void)
{
	for (size_t a = 0; a <= sizeof(stream3); a++)
		for (size_t b = a; b <= sizeof(stream3); b++) {
			struct frame_reader fr = { .max = 6 };
			struct got g = { 0 };

			feed_chunk(&fr, stream3, a, &g);
			feed_chunk(&fr, stream3 + a, b - a, &g);
			feed_chunk(&fr, stream3 + b, sizeof(stream3) - b, &g);
			check_stream3(&g);
			got_free(&g);
			frame_reader_reset(&fr);
		}
}

static void test_reader_byte_at_a_time(void)
{
	struct frame_reader fr = { .max = 64 };
	struct got g = { 0 };

	for (size_t i = 0; i < sizeof(stream3); i++) {
		size_t before = g.n;
		bool ends = i == 8 || i == 12 || i == sizeof(stream3) - 1;

		feed_chunk(&fr, stream3 + i, 1, &g);
		/* A frame completes exactly on its last byte, not before. */
		CU_ASSERT_EQUAL(g.n, before + (ends ? 1 : 0));
		/* The reader is idle exactly between frames. */
		CU_ASSERT_EQUAL(frame_reader_idle(&fr) != 0, ends);
	}
	check_stream3(&g);
	got_free(&g);
}

/* One feed holding two frames stops after the first: the rest is the
 * caller's to offer again (ret_used). */
static void test_reader_back_to_back(void)
{
	struct frame_reader fr = { .max = 64 };
	size_t used = 0, len = 0;
	uint8_t *b;

	CU_ASSERT_EQUAL(frame_reader_feed(&fr, stream3, sizeof(stream3), &used), FRAME_DONE);
	CU_ASSERT_EQUAL(used, 9);
	b = frame_reader_take(&fr, &len);
	CU_ASSERT_EQUAL(len, 5);
	free(b);
	CU_ASSERT_EQUAL(frame_reader_feed(&fr, stream3 + 9, sizeof(stream3) - 9, &used), FRAME_DONE);
	CU_ASSERT_EQUAL(used, 4);	/* the empty frame is its header alone */
	b = frame_reader_take(&fr, &len);
	CU_ASSERT_PTR_NOT_NULL(b);
	CU_ASSERT_EQUAL(len, 0);
	free(b);
	CU_ASSERT_EQUAL(frame_reader_feed(&fr, stream3 + 13, sizeof(stream3) - 13, &used),
			FRAME_DONE);
	CU_ASSERT_EQUAL(used, sizeof(stream3) - 13);
	b = frame_reader_take(&fr, &len);
	CU_ASSERT_EQUAL(len, 6);
	free(b);
}

/* Bytes after a complete frame stay unconsumed; offered again, they are
 * the start of the next frame (here an incomplete header). */
static void test_reader_trailing_data(void)
{
	const uint8_t buf[] = { 0, 0, 0, 2, 'o', 'k', 0, 0, 1 };
	struct frame_reader fr = { .max = 1024 };
	size_t used = 0, len = 0;
	uint8_t *b;

	CU_ASSERT_EQUAL(frame_reader_feed(&fr, buf, sizeof(buf), &used), FRAME_DONE);
	CU_ASSERT_EQUAL(used, 6);
	b = frame_reader_take(&fr, &len);
	CU_ASSERT_EQUAL(len, 2);
	CU_ASSERT_STRING_EQUAL((char *)b, "ok");
	free(b);
	CU_ASSERT(frame_reader_idle(&fr));
	CU_ASSERT_EQUAL(frame_reader_feed(&fr, buf + 6, 3, &used), FRAME_MORE);
	CU_ASSERT_EQUAL(used, 3);
	CU_ASSERT(!frame_reader_idle(&fr));
	CU_ASSERT_PTR_NULL(fr.buf);	/* no length yet, nothing allocated */
	CU_ASSERT_PTR_NULL(frame_reader_take(&fr, &len));
	frame_reader_reset(&fr);
	CU_ASSERT(frame_reader_idle(&fr));
}

static void test_reader_empty_feed(void)
{
	struct frame_reader fr = { .max = 16 };
	size_t used = 99;

	CU_ASSERT_EQUAL(frame_reader_feed(&fr, (const uint8_t *)"", 0, &used), FRAME_MORE);
	CU_ASSERT_EQUAL(used, 0);
	CU_ASSERT(frame_reader_idle(&fr));
	CU_ASSERT_PTR_NULL(fr.buf);
}

static void test_reader_zero_length(void)
{
	const uint8_t z[] = { 0, 0, 0, 0 };
	struct frame_reader fr = { .max = 0 };
	size_t used = 0, len = 99;
	uint8_t *b;

	CU_ASSERT_EQUAL(frame_reader_feed(&fr, z, sizeof(z), &used), FRAME_DONE);
	CU_ASSERT_EQUAL(used, 4);
	b = frame_reader_take(&fr, &len);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(len, 0);
	CU_ASSERT_EQUAL(b[0], '\0');
	free(b);
	/* Once taken, there is nothing more to take. */
	CU_ASSERT_PTR_NULL(frame_reader_take(&fr, &len));
}

/* A length of exactly max is read whole; max + 1 is refused at the
 * header, whatever follows it and however it is split. */
static void test_reader_max_boundary(void)
{
	enum { MAX = 300 };
	uint8_t buf[FRAME_HEADER_BYTES + MAX + 1];
	struct frame_reader fr = { .max = MAX };
	struct got g = { 0 };

	memset(buf, 'x', sizeof(buf));
	frame_put_header(buf, MAX);
	feed_chunk(&fr, buf, FRAME_HEADER_BYTES + MAX, &g);
	CU_ASSERT_EQUAL(g.last, FRAME_DONE);
	CU_ASSERT_EQUAL_FATAL(g.n, 1);
	CU_ASSERT_EQUAL(g.len[0], MAX);
	got_free(&g);

	for (size_t k = 0; k <= FRAME_HEADER_BYTES; k++) {
		size_t used = 0;
		enum frame_state st;

		frame_reader_reset(&fr);
		frame_put_header(buf, MAX + 1);
		st = frame_reader_feed(&fr, buf, k, &used);
		if (k < FRAME_HEADER_BYTES) {
			CU_ASSERT_EQUAL(st, FRAME_MORE);
			CU_ASSERT_EQUAL(used, k);
			st = frame_reader_feed(&fr, buf + k, sizeof(buf) - k, &used);
			CU_ASSERT_EQUAL(used, FRAME_HEADER_BYTES - k);
		} else {
			CU_ASSERT_EQUAL(used, FRAME_HEADER_BYTES);
		}
		CU_ASSERT_EQUAL(st, FRAME_OVERSIZED);
		CU_ASSERT_PTR_NULL(fr.buf);
	}
	frame_reader_reset(&fr);
}

/* The header alone decides: no byte of the payload is asked for, nothing
 * is allocated, and asking again gives the same answer. */
static void test_reader_oversize_no_alloc(void)
{
	const uint8_t huge[] = { 0xff, 0xff, 0xff, 0xff, '{', '}' };
	const uint8_t big[] = { 0x06, 0x00, 0x00, 0x01 };	/* 96 MiB + 1 */
	struct frame_reader fr = { .max = 96u << 20 };
	size_t used = 0;

	CU_ASSERT_EQUAL(frame_reader_feed(&fr, huge, sizeof(huge), &used), FRAME_OVERSIZED);
	CU_ASSERT_EQUAL(used, FRAME_HEADER_BYTES);
	CU_ASSERT_PTR_NULL(fr.buf);
	CU_ASSERT_EQUAL(fr.want, 0);
	CU_ASSERT_EQUAL(frame_reader_feed(&fr, huge + 4, 2, &used), FRAME_OVERSIZED);
	CU_ASSERT_EQUAL(used, 0);
	CU_ASSERT_PTR_NULL(fr.buf);
	frame_reader_reset(&fr);

	CU_ASSERT_EQUAL(frame_reader_feed(&fr, big, sizeof(big), &used), FRAME_OVERSIZED);
	CU_ASSERT_PTR_NULL(fr.buf);
	frame_reader_reset(&fr);
}

/* Allocation happens once the header is in and accepted, before the
 * payload: a header alone for a large frame does allocate. */
static void test_reader_allocates_at_header(void)
{
	uint8_t hdr[FRAME_HEADER_BYTES];
	struct frame_reader fr = { .max = 4096 };
	size_t used = 0;

	frame_put_header(hdr, 4096);
	CU_ASSERT_EQUAL(frame_reader_feed(&fr, hdr, sizeof(hdr), &used), FRAME_MORE);
	CU_ASSERT_EQUAL(used, 4);
	CU_ASSERT_PTR_NOT_NULL(fr.buf);
	CU_ASSERT_EQUAL(fr.want, 4096);
	CU_ASSERT_EQUAL(fr.have, 0);
	CU_ASSERT(!frame_reader_idle(&fr));
	frame_reader_reset(&fr);	/* frees the partial frame */
	CU_ASSERT_PTR_NULL(fr.buf);
	CU_ASSERT(frame_reader_idle(&fr));
}

/* When the accepted length cannot be allocated the reader says so and
 * holds nothing. In a child under a small address-space limit; skipped
 * under AddressSanitizer, whose shadow memory does not fit such a limit. */
static void test_reader_nomem(void)
{
#if defined(__SANITIZE_ADDRESS__)
	return;
#else
	pid_t pid = fork();
	int st = 0;

	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		struct rlimit rl = { 256u << 20, 256u << 20 };
		struct frame_reader fr = { .max = 1u << 30 };
		uint8_t hdr[FRAME_HEADER_BYTES];
		size_t used = 0;

		frame_put_header(hdr, 1u << 30);
		if (setrlimit(RLIMIT_AS, &rl) < 0)
			_exit(2);
		if (frame_reader_feed(&fr, hdr, sizeof(hdr), &used) != FRAME_NOMEM)
			_exit(3);
		_exit(fr.buf == NULL && used == FRAME_HEADER_BYTES ? 0 : 4);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &st, 0), pid);
	CU_ASSERT(WIFEXITED(st));
	CU_ASSERT_EQUAL(WEXITSTATUS(st), 0);
#endif
}

/* Truncation at every byte: a stream cut anywhere inside a frame gives
 * FRAME_MORE and no frame, never a short one. */
static void test_reader_truncated_everywhere(void)
{
	for (size_t k = 0; k < 9; k++) {
		struct frame_reader fr = { .max = 64 };
		struct got g = { 0 };

		feed_chunk(&fr, stream3, k, &g);
		CU_ASSERT_EQUAL(g.last, FRAME_MORE);
		CU_ASSERT_EQUAL(g.n, 0);
		CU_ASSERT_PTR_NULL(frame_reader_take(&fr, &(size_t){ 0 }));
		CU_ASSERT_EQUAL(frame_reader_idle(&fr) != 0, k == 0);
		frame_reader_reset(&fr);
	}
}

static const struct unit_case cases[] = {
	{ "header round trip", test_header_round_trip },
	{ "header is big-endian", test_header_byte_order },
	{ "short header is EAGAIN", test_header_truncated },
	{ "header ignores following bytes", test_header_ignores_following_bytes },
	{ "header limit: max accepted, max+1 refused", test_header_limit },
	{ "oversize refused before allocation", test_frame_refuses_oversize_before_alloc },
	{ "reader: every split in two", test_reader_every_split },
	{ "reader: every split in three", test_reader_every_three_way_split },
	{ "reader: a byte at a time", test_reader_byte_at_a_time },
	{ "reader: frames back to back", test_reader_back_to_back },
	{ "reader: trailing data left unconsumed", test_reader_trailing_data },
	{ "reader: empty feed", test_reader_empty_feed },
	{ "reader: zero-length frame", test_reader_zero_length },
	{ "reader: max accepted, max+1 refused", test_reader_max_boundary },
	{ "reader: oversize allocates nothing", test_reader_oversize_no_alloc },
	{ "reader: allocates at the header", test_reader_allocates_at_header },
	{ "reader: allocation failure", test_reader_nomem },
	{ "reader: truncated at every byte", test_reader_truncated_everywhere },
	{ NULL, NULL },
};

UNIT_MAIN("frame-codec")
