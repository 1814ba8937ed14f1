/* spec-fixtures.c: the fixtures of the spec codec's unit tests (see
 * spec-fixtures.h), linked into test-spec-codec and test-spec-frames. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "spec.h"
#include "spec-fixtures.h"

/* ---- a realistic spec: every mount kind, binary file data, a filter ---- */

/* File contents with NULs inside and at the end, and bytes >= 0x80. */
static const uint8_t passwd_data[] = {
	'r', 'o', 'o', 't', ':', 'x', 0, 0, 0xff, 0x80, 0x7f, '\n', 0x01, 0,
};

/* Four struct sock_filter (u16 code, u8 jt, u8 jf, u32 k). The codec does
 * not interpret them; only the length rule (a multiple of 8) applies. */
static const uint8_t filter_blob[32] = {
	0x20, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, /* ld [4]: arch */
	0x15, 0x00, 0x01, 0x00, 0x3e, 0x00, 0x00, 0xc0, /* jeq x86_64, 0, 1 */
	0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0x7f, /* ret ALLOW */
	0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, /* ret KILL_PROCESS */
};

static const struct spec_mount good_mounts[N_GOOD_MOUNTS] = {
	[M_BIND] = { .kind = HUTCH_MOUNT_BIND, .source = "/usr", .target = "/usr" },
	[M_BIND_ROOT] = { .kind = HUTCH_MOUNT_BIND, .flags = HUTCH_MF_EXEC, .source = "/",
			  .target = "/host" },
	[M_BIND_RW] = { .kind = HUTCH_MOUNT_BIND, .flags = HUTCH_MF_RW | HUTCH_MF_OPTIONAL,
			.source = "/srv/d\xc3\xa4ta", .target = "/data" },
	[M_BIND_DEV] = { .kind = HUTCH_MOUNT_BIND, .flags = HUTCH_MF_RW | HUTCH_MF_DEV,
			 .source = "/dev/null", .target = "/dev/null" },
	[M_TMPFS] = { .kind = HUTCH_MOUNT_TMPFS, .flags = HUTCH_MF_RW | HUTCH_MF_EXEC,
		      .mode = 01777, .size_bytes = 64u << 20, .inodes = 4096, .source = "",
		      .target = "/tmp" },
	[M_TMPFS_ODD] = { .kind = HUTCH_MOUNT_TMPFS, .flags = HUTCH_MF_SEND_FD, .mode = 0700,
			  .size_bytes = 0x0123456789abcdefull, .inodes = 0xfedcba9876543210ull,
			  .source = "", .target = "/run" },
	[M_PROC] = { .kind = HUTCH_MOUNT_PROC, .mode = 0555, .source = "", .target = "/proc" },
	[M_SYMLINK] = { .kind = HUTCH_MOUNT_SYMLINK, .source = "/proc/self/fd",
			.target = "/dev/fd" },
	[M_SYMLINK_REL] = { .kind = HUTCH_MOUNT_SYMLINK, .source = "../usr//lib/.",
			    .target = "/lib" },
	[M_FILE] = { .kind = HUTCH_MOUNT_FILE, .mode = 0644, .source = "", .target = "/etc/passwd",
		     .data = passwd_data, .data_len = sizeof(passwd_data) },
	[M_FILE_EMPTY] = { .kind = HUTCH_MOUNT_FILE, .source = "", .target = "/etc/empty" },
	[M_DIR] = { .kind = HUTCH_MOUNT_DIR, .mode = 0755, .source = "", .target = "/work" },
	[M_DIR_DOTS] = { .kind = HUTCH_MOUNT_DIR, .mode = 07777, .source = "",
			 .target = "/work/.a/b./..c/..." },
	[M_OVERLAY] = { .kind = HUTCH_MOUNT_OVERLAY, .flags = HUTCH_MF_IDMAP, .mode = 0700,
			.size_bytes = 1u << 20, .inodes = 64, .source = "/srv/src",
			.target = "/src" },
	[M_HIDE] = { .kind = HUTCH_MOUNT_HIDE, .source = "", .target = "/data/.env" },
	[M_READONLY] = { .kind = HUTCH_MOUNT_READONLY, .source = "", .target = "/data/.git/hooks" },
	[M_PIN] = { .kind = HUTCH_MOUNT_PIN, .source = "", .target = "/data/.git" },
};

char *const good_argv[] = {
	"/usr/bin/python3", "-c", "print(6*7)\n", "", "caf\xc3\xa9", NULL,
};

char *const good_envp[] = {
	"LANG=C.UTF-8", "PATH=/usr/bin:/bin", "EMPTY=", "A==b", NULL,
};

void fixture_init(struct fixture *f)
{
	memcpy(f->mounts, good_mounts, sizeof(good_mounts));
	memcpy(f->argv, good_argv, sizeof(good_argv));
	memcpy(f->envp, good_envp, sizeof(good_envp));
	f->sp = (struct spec){
		.flags = GOOD_FLAGS,
		.uid_inside = 1000,
		.gid_inside = 1001,
		.uid_outside = 100000,
		.gid_outside = 0xfffffffeu,
		.rlimit = {
			[HUTCH_RLIM_AS] = 256u << 20,
			[HUTCH_RLIM_CPU] = 5,
			[HUTCH_RLIM_FSIZE] = 0x0102030405060708ull,
			[HUTCH_RLIM_NOFILE] = 256,
			[HUTCH_RLIM_NPROC] = HUTCH_RLIM_INFINITY,
		},
		.user_cap = { 32, 16384, HUTCH_RLIM_INFINITY, 0x0a0b0c0d0e0f1011ull },
		.hostname = "hutch-jail",
		.cwd = "/work",
		.n_mounts = N_GOOD_MOUNTS,
		.mounts = f->mounts,
		.argc = ARRAY_SIZE(good_argv) - 1,
		.argv = f->argv,
		.envc = ARRAY_SIZE(good_envp) - 1,
		.envp = f->envp,
		.filter = filter_blob,
		.filter_len = sizeof(filter_blob),
	};
}

struct spec minimal_spec(char **argv)
{
	return (struct spec){ .hostname = "", .cwd = "/", .argc = 1, .argv = argv };
}

/* ---- comparing and decoding ---- */

static int bytes_equal(const void *a, const void *b, size_t n)
{
	return n == 0 || memcmp(a, b, n) == 0;
}

void assert_spec_equal(const struct spec *a, const struct spec *b)
{
	CU_ASSERT_EQUAL(a->flags, b->flags);
	CU_ASSERT_EQUAL(a->uid_inside, b->uid_inside);
	CU_ASSERT_EQUAL(a->gid_inside, b->gid_inside);
	CU_ASSERT_EQUAL(a->uid_outside, b->uid_outside);
	CU_ASSERT_EQUAL(a->gid_outside, b->gid_outside);
	for (int i = 0; i < HUTCH_RLIM_COUNT; i++)
		CU_ASSERT_EQUAL(a->rlimit[i], b->rlimit[i]);
	for (int i = 0; i < HUTCH_UCAP_COUNT; i++)
		CU_ASSERT_EQUAL(a->user_cap[i], b->user_cap[i]);
	CU_ASSERT_STRING_EQUAL(a->hostname, b->hostname);
	CU_ASSERT_STRING_EQUAL(a->cwd, b->cwd);

	CU_ASSERT_EQUAL_FATAL(a->n_mounts, b->n_mounts);
	for (uint32_t i = 0; i < a->n_mounts; i++) {
		const struct spec_mount *ma = &a->mounts[i], *mb = &b->mounts[i];

		CU_ASSERT_EQUAL(ma->kind, mb->kind);
		CU_ASSERT_EQUAL(ma->flags, mb->flags);
		CU_ASSERT_EQUAL(ma->mode, mb->mode);
		CU_ASSERT_EQUAL(ma->size_bytes, mb->size_bytes);
		CU_ASSERT_EQUAL(ma->inodes, mb->inodes);
		CU_ASSERT_STRING_EQUAL(ma->source, mb->source);
		CU_ASSERT_STRING_EQUAL(ma->target, mb->target);
		CU_ASSERT_EQUAL_FATAL(ma->data_len, mb->data_len);
		CU_ASSERT(bytes_equal(ma->data, mb->data, ma->data_len));
	}

	CU_ASSERT_EQUAL_FATAL(a->argc, b->argc);
	for (uint32_t i = 0; i < a->argc; i++)
		CU_ASSERT_STRING_EQUAL(a->argv[i], b->argv[i]);
	CU_ASSERT_PTR_NULL(b->argv[b->argc]);
	CU_ASSERT_EQUAL_FATAL(a->envc, b->envc);
	for (uint32_t i = 0; i < a->envc; i++)
		CU_ASSERT_STRING_EQUAL(a->envp[i], b->envp[i]);
	CU_ASSERT_PTR_NULL(b->envp[b->envc]);

	CU_ASSERT_EQUAL_FATAL(a->filter_len, b->filter_len);
	CU_ASSERT(bytes_equal(a->filter, b->filter, a->filter_len));
}

int decode_copy(const uint8_t *buf, size_t len, struct decoded *d)
{
	struct spec untouched;

	d->copy = malloc(len ? len : 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(d->copy);
	if (len)
		memcpy(d->copy, buf, len);
	memset(&d->sp, 0xa5, sizeof(d->sp));
	memset(&untouched, 0xa5, sizeof(untouched));
	d->r = spec_decode(d->copy, len, &d->sp);
	if (d->r < 0)	/* ret_sp is written only on success */
		CU_ASSERT(memcmp(&d->sp, &untouched, sizeof(untouched)) == 0);
	return d->r;
}

void decoded_free(struct decoded *d)
{
	if (d->r == 0)
		spec_release(&d->sp);
	free(d->copy);
	d->copy = NULL;
}

int decode_rc(const uint8_t *buf, size_t len)
{
	struct decoded d;
	int r = decode_copy(buf, len, &d);

	decoded_free(&d);
	return r;
}

void expect_rc(const char *side, const char *name, int got, int want)
{
	if (got != want)
		fprintf(stderr, "\n    [%s] %s: got %d, want %d\n", side, name, got, want);
	CU_ASSERT_EQUAL(got, want);
}

int encode_rc(const struct spec *sp)
{
	uint8_t sentinel, *buf = &sentinel;
	size_t len = 12345;
	int r = spec_encode(sp, &buf, &len);

	if (r == 0) {
		free(buf);
	} else {
		CU_ASSERT_PTR_EQUAL(buf, &sentinel);
		CU_ASSERT_EQUAL(len, 12345);
	}
	return r;
}

/* ---- the wire, walked independently of the codec ---- */

uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

void wr32(uint8_t *p, uint32_t v)
{
	wr16(p, (uint16_t)v);
	wr16(p + 2, (uint16_t)(v >> 16));
}

void wr64(uint8_t *p, uint64_t v)
{
	wr32(p, (uint32_t)v);
	wr32(p + 4, (uint32_t)(v >> 32));
}

static size_t skip_blob(const struct wire *w, size_t off)
{
	return off + 4 + rd32(w->buf + off);
}

static size_t skip_str(const struct wire *w, size_t off)
{
	return skip_blob(w, off) + 1;
}

/* Record where every field of a valid encoding sits (the first MAX_WALK of
 * each list). Knows the layout from spec.h, not from the codec. */
static void layout_walk(struct wire *w)
{
	struct layout *at = &w->at;
	size_t p = HUTCH_SPEC_HEADER_BYTES;
	uint32_t n;

	memset(at, 0, sizeof(*at));
	at->flags = p;
	at->user_cap = p + 4 + 4 * 4 + 8 * HUTCH_RLIM_COUNT;
	p += 4 + 4 * 4 + 8 * HUTCH_RLIM_COUNT + 8 * HUTCH_UCAP_COUNT;
	at->hostname = p;
	p = skip_str(w, p);
	at->cwd = p;
	p = skip_str(w, p);
	at->n_mounts = p;
	n = rd32(w->buf + p);
	p += 4;
	for (uint32_t i = 0; i < n; i++) {
		size_t rec = p, source, target, data;

		source = rec + 24;
		target = skip_str(w, source);
		data = skip_str(w, target);
		p = skip_blob(w, data);
		if (i < MAX_WALK) {
			at->m[i].rec = rec;
			at->m[i].source = source;
			at->m[i].target = target;
			at->m[i].data = data;
		}
	}
	at->argc = p;
	n = rd32(w->buf + p);
	p += 4;
	for (uint32_t i = 0; i < n; i++) {
		if (i < MAX_WALK)
			at->argv[i] = p;
		p = skip_str(w, p);
	}
	at->envc = p;
	n = rd32(w->buf + p);
	p += 4;
	for (uint32_t i = 0; i < n; i++) {
		if (i < MAX_WALK)
			at->envp[i] = p;
		p = skip_str(w, p);
	}
	at->filter = p;
	p = skip_blob(w, p);
	CU_ASSERT_EQUAL_FATAL(p, w->len);
	CU_ASSERT_EQUAL_FATAL(rd32(w->buf + 8), w->len);
}

void wire_encode(const struct spec *sp, struct wire *w)
{
	int r = spec_encode(sp, &w->buf, &w->len);

	CU_ASSERT_EQUAL_FATAL(r, 0);
	layout_walk(w);
}

void wire_free(struct wire *w)
{
	free(w->buf);
	w->buf = NULL;
}

/* Replace old_n bytes at off with new_n bytes from src (which may point into
 * the old buffer) and keep total_len honest, so that the only defect in the
 * result is the one a test put there. Offsets past off go stale. */
void wire_splice(struct wire *w, size_t off, size_t old_n, const void *src, size_t new_n)
{
	size_t len = w->len - old_n + new_n;
	uint8_t *nb = malloc(len);

	CU_ASSERT_PTR_NOT_NULL_FATAL(nb);
	memcpy(nb, w->buf, off);
	memcpy(nb + off, src, new_n);
	memcpy(nb + off + new_n, w->buf + off + old_n, w->len - off - old_n);
	free(w->buf);
	w->buf = nb;
	w->len = len;
	wr32(w->buf + 8, (uint32_t)len);
}

/* Rewrite the str at off as n bytes of s (NULs allowed) followed by term;
 * s == NULL keeps the present bytes. */
void wire_set_str(struct wire *w, size_t off, const char *s, size_t n, uint8_t term)
{
	size_t old_n = 4 + rd32(w->buf + off) + 1;
	uint8_t *rec;

	if (!s) {
		s = (const char *)w->buf + off + 4;
		n = rd32(w->buf + off);
	}
	rec = malloc(4 + n + 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(rec);
	wr32(rec, (uint32_t)n);
	memcpy(rec + 4, s, n);
	rec[4 + n] = term;
	wire_splice(w, off, old_n, rec, 4 + n + 1);
	free(rec);
}

void wire_set_blob(struct wire *w, size_t off, const void *s, size_t n)
{
	size_t old_n = 4 + rd32(w->buf + off);
	uint8_t *rec = malloc(4 + n);

	CU_ASSERT_PTR_NOT_NULL_FATAL(rec);
	wr32(rec, (uint32_t)n);
	if (n)
		memcpy(rec + 4, s, n);
	wire_splice(w, off, old_n, rec, 4 + n);
	free(rec);
}
