/* test-spec-codec.c: unit tests of the jail-spec codec (shared/spec-codec.c).
 * Each rule is checked from both sides: spec_encode refuses the struct, and
 * spec_decode refuses the same defect forged into otherwise valid wire bytes.
 * Decodes read exact-size heap copies, so sanitizers see any overread. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"

#include "cunit-main.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- a realistic spec: every mount kind, binary file data, a filter ---- */

#define GOOD_FLAGS                                                                      \
	(HUTCH_SPEC_NS_PID | HUTCH_SPEC_NS_NET | HUTCH_SPEC_NS_IPC | HUTCH_SPEC_NS_UTS | \
	 HUTCH_SPEC_NET_LOOPBACK | HUTCH_SPEC_LANDLOCK | HUTCH_SPEC_SECCOMP)

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

enum {
	M_BIND,
	M_BIND_ROOT,
	M_BIND_RW,
	M_BIND_DEV,
	M_TMPFS,
	M_TMPFS_ODD,
	M_PROC,
	M_SYMLINK,
	M_SYMLINK_REL,
	M_FILE,
	M_FILE_EMPTY,
	M_DIR,
	M_DIR_DOTS,
	N_GOOD_MOUNTS
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
		      .mode = 01777, .size_bytes = 64u << 20, .source = "", .target = "/tmp" },
	[M_TMPFS_ODD] = { .kind = HUTCH_MOUNT_TMPFS, .flags = HUTCH_MF_SEND_FD, .mode = 0700,
			  .size_bytes = 0x0123456789abcdefull, .source = "", .target = "/run" },
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
};

static char *const good_argv[] = {
	"/usr/bin/python3", "-c", "print(6*7)\n", "", "caf\xc3\xa9", NULL,
};

static char *const good_envp[] = {
	"LANG=C.UTF-8", "PATH=/usr/bin:/bin", "EMPTY=", "A==b", NULL,
};

struct fixture {
	struct spec sp;
	struct spec_mount mounts[N_GOOD_MOUNTS];
	char *argv[ARRAY_SIZE(good_argv)];
	char *envp[ARRAY_SIZE(good_envp)];
};

static void fixture_init(struct fixture *f)
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

/* The smallest valid spec: one argument, nothing else. */
static struct spec minimal_spec(char **argv)
{
	return (struct spec){ .hostname = "", .cwd = "/", .argc = 1, .argv = argv };
}

/* Long strings for the length limits; only ever used with explicit lengths. */
#define LONG_BYTES (HUTCH_SPEC_MAX_ARG_BYTES + 16)
static char long_a[LONG_BYTES];		/* "aaaa…" */
static char long_path[LONG_BYTES];	/* "/aaa…" */
static char long_env[LONG_BYTES];	/* "A=aa…" */
static const char zeros[(HUTCH_SPEC_MAX_FILTER_INSNS + 1) * 8];

static void long_strings_init(void)
{
	memset(long_a, 'a', sizeof(long_a));
	memset(long_path, 'a', sizeof(long_path));
	long_path[0] = '/';
	memset(long_env, 'a', sizeof(long_env));
	long_env[0] = 'A';
	long_env[1] = '=';
}

/* ---- comparing and decoding ---- */

static int bytes_equal(const void *a, const void *b, size_t n)
{
	return n == 0 || memcmp(a, b, n) == 0;
}

static void assert_spec_equal(const struct spec *a, const struct spec *b)
{
	CU_ASSERT_EQUAL(a->flags, b->flags);
	CU_ASSERT_EQUAL(a->uid_inside, b->uid_inside);
	CU_ASSERT_EQUAL(a->gid_inside, b->gid_inside);
	CU_ASSERT_EQUAL(a->uid_outside, b->uid_outside);
	CU_ASSERT_EQUAL(a->gid_outside, b->gid_outside);
	for (int i = 0; i < HUTCH_RLIM_COUNT; i++)
		CU_ASSERT_EQUAL(a->rlimit[i], b->rlimit[i]);
	CU_ASSERT_STRING_EQUAL(a->hostname, b->hostname);
	CU_ASSERT_STRING_EQUAL(a->cwd, b->cwd);

	CU_ASSERT_EQUAL_FATAL(a->n_mounts, b->n_mounts);
	for (uint32_t i = 0; i < a->n_mounts; i++) {
		const struct spec_mount *ma = &a->mounts[i], *mb = &b->mounts[i];

		CU_ASSERT_EQUAL(ma->kind, mb->kind);
		CU_ASSERT_EQUAL(ma->flags, mb->flags);
		CU_ASSERT_EQUAL(ma->mode, mb->mode);
		CU_ASSERT_EQUAL(ma->size_bytes, mb->size_bytes);
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

/* A decode of a private, exact-size copy. On success the spec points into
 * copy; decoded_free() releases both. */
struct decoded {
	uint8_t *copy;
	struct spec sp;
	int r;
};

static int decode_copy(const uint8_t *buf, size_t len, struct decoded *d)
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

static void decoded_free(struct decoded *d)
{
	if (d->r == 0)
		spec_release(&d->sp);
	free(d->copy);
	d->copy = NULL;
}

/* Decode and throw away: the return value is all the caller wants. */
static int decode_rc(const uint8_t *buf, size_t len)
{
	struct decoded d;
	int r = decode_copy(buf, len, &d);

	decoded_free(&d);
	return r;
}

/* Assert with the case name on stderr, as a table row has no line of its own. */
static void expect_rc(const char *side, const char *name, int got, int want)
{
	if (got != want)
		fprintf(stderr, "\n    [%s] %s: got %d, want %d\n", side, name, got, want);
	CU_ASSERT_EQUAL(got, want);
}

/* spec_encode must refuse sp, leaving its outputs alone. */
static int encode_rc(const struct spec *sp)
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

/* ---- the wire, walked independently of the codec ---- */

#define MAX_WALK 16

struct layout {
	size_t flags, hostname, cwd, n_mounts, argc, envc, filter;
	struct {
		size_t rec, source, target, data; /* kind at rec, pad +1, flags +2, mode +4, size +8 */
	} m[MAX_WALK];
	size_t argv[MAX_WALK], envp[MAX_WALK];
};

struct wire {
	uint8_t *buf;
	size_t len;
	struct layout at;
};

static uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void wr32(uint8_t *p, uint32_t v)
{
	wr16(p, (uint16_t)v);
	wr16(p + 2, (uint16_t)(v >> 16));
}

static void wr64(uint8_t *p, uint64_t v)
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
	p += 4 + 4 * 4 + 8 * HUTCH_RLIM_COUNT;
	at->hostname = p;
	p = skip_str(w, p);
	at->cwd = p;
	p = skip_str(w, p);
	at->n_mounts = p;
	n = rd32(w->buf + p);
	p += 4;
	for (uint32_t i = 0; i < n; i++) {
		size_t rec = p, source, target, data;

		source = rec + 16;
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

static void wire_encode(const struct spec *sp, struct wire *w)
{
	int r = spec_encode(sp, &w->buf, &w->len);

	CU_ASSERT_EQUAL_FATAL(r, 0);
	layout_walk(w);
}

static void wire_free(struct wire *w)
{
	free(w->buf);
	w->buf = NULL;
}

/* Replace old_n bytes at off with new_n bytes from src (which may point into
 * the old buffer) and keep total_len honest, so that the only defect in the
 * result is the one a test put there. Offsets past off go stale. */
static void wire_splice(struct wire *w, size_t off, size_t old_n, const void *src, size_t new_n)
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
static void wire_set_str(struct wire *w, size_t off, const char *s, size_t n, uint8_t term)
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

static void wire_set_blob(struct wire *w, size_t off, const void *s, size_t n)
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

/* ---- one field changed: applied to the struct, or forged on the wire ---- */

enum field {
	F_FLAGS,
	F_HOSTNAME,
	F_CWD,
	F_M_KIND,
	F_M_PAD,
	F_M_FLAGS,
	F_M_MODE,
	F_M_SIZE,
	F_M_SOURCE,
	F_M_TARGET,
	F_M_DATA,
	F_ARGV,
	F_ENV,
	F_FILTER,
};

struct field_case {
	const char *name;
	enum field field;
	unsigned idx;		/* mount, argv or env index */
	uint64_t num;		/* numeric fields */
	const char *str;	/* str and blob fields: the bytes, NULs allowed; */
	size_t len;		/* NULL str keeps the bytes (with term) */
	uint8_t term;		/* the byte after a str on the wire; 0 is right */
	int wire_only;		/* the struct cannot say it: a NUL, pad, term */
};

#define BYTES(s) .str = (s), .len = sizeof(s) - 1
#define WIRE_ONLY .wire_only = 1

/* Point the struct field at the case's value; strings are copied into
 * *scratch (NUL-terminated), freed by the caller. */
static void apply_struct(struct fixture *f, const struct field_case *c, char **scratch)
{
	struct spec_mount *m = &f->mounts[c->idx];
	char *s = NULL;

	CU_ASSERT_FATAL(!c->wire_only);
	if (c->str) {
		s = malloc(c->len + 1);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		memcpy(s, c->str, c->len);
		s[c->len] = '\0';
		*scratch = s;
	}
	switch (c->field) {
	case F_FLAGS:
		f->sp.flags = (uint32_t)c->num;
		break;
	case F_HOSTNAME:
		f->sp.hostname = s;
		break;
	case F_CWD:
		f->sp.cwd = s;
		break;
	case F_M_KIND:
		m->kind = (uint8_t)c->num;
		break;
	case F_M_PAD:
		CU_FAIL_FATAL("the pad byte has no struct field");
		break;
	case F_M_FLAGS:
		m->flags = (uint16_t)c->num;
		break;
	case F_M_MODE:
		m->mode = (uint32_t)c->num;
		break;
	case F_M_SIZE:
		m->size_bytes = c->num;
		break;
	case F_M_SOURCE:
		m->source = s;
		break;
	case F_M_TARGET:
		m->target = s;
		break;
	case F_M_DATA:
		m->data = (const uint8_t *)c->str;
		m->data_len = (uint32_t)c->len;
		break;
	case F_ARGV:
		f->argv[c->idx] = s;
		break;
	case F_ENV:
		f->envp[c->idx] = s;
		break;
	case F_FILTER:
		f->sp.filter = (const uint8_t *)c->str;
		f->sp.filter_len = (uint32_t)c->len;
		break;
	}
}

static void apply_wire(struct wire *w, const struct field_case *c)
{
	const struct layout *at = &w->at;
	size_t rec = at->m[c->idx].rec;

	switch (c->field) {
	case F_FLAGS:
		wr32(w->buf + at->flags, (uint32_t)c->num);
		break;
	case F_HOSTNAME:
		wire_set_str(w, at->hostname, c->str, c->len, c->term);
		break;
	case F_CWD:
		wire_set_str(w, at->cwd, c->str, c->len, c->term);
		break;
	case F_M_KIND:
		w->buf[rec] = (uint8_t)c->num;
		break;
	case F_M_PAD:
		w->buf[rec + 1] = (uint8_t)c->num;
		break;
	case F_M_FLAGS:
		wr16(w->buf + rec + 2, (uint16_t)c->num);
		break;
	case F_M_MODE:
		wr32(w->buf + rec + 4, (uint32_t)c->num);
		break;
	case F_M_SIZE:
		wr64(w->buf + rec + 8, c->num);
		break;
	case F_M_SOURCE:
		wire_set_str(w, at->m[c->idx].source, c->str, c->len, c->term);
		break;
	case F_M_TARGET:
		wire_set_str(w, at->m[c->idx].target, c->str, c->len, c->term);
		break;
	case F_M_DATA:
		wire_set_blob(w, at->m[c->idx].data, c->str, c->len);
		break;
	case F_ARGV:
		wire_set_str(w, at->argv[c->idx], c->str, c->len, c->term);
		break;
	case F_ENV:
		wire_set_str(w, at->envp[c->idx], c->str, c->len, c->term);
		break;
	case F_FILTER:
		wire_set_blob(w, at->filter, c->str, c->len);
		break;
	}
}

/* Valid variations: the struct encodes, the forged wire decodes, and the two
 * are the same bytes, which also proves the forging used below is exact. */
static const struct field_case good_cases[] = {
	{ "flags: all known bits", F_FLAGS, .num = HUTCH_SPEC_FLAGS_ALL },
	{ "hostname: empty", F_HOSTNAME, BYTES("") },
	{ "hostname: 64 bytes", F_HOSTNAME, .str = long_a, .len = HUTCH_SPEC_MAX_HOSTNAME },
	{ "hostname: UTF-8", F_HOSTNAME, BYTES("j\xc3\xa4il") },
	{ "cwd: root", F_CWD, BYTES("/") },
	{ "cwd: 4095 bytes", F_CWD, .str = long_path, .len = HUTCH_SPEC_MAX_PATH },
	{ "kind: DIR becomes PROC", F_M_KIND, M_DIR, .num = HUTCH_MOUNT_PROC },
	{ "kind: PROC becomes DIR", F_M_KIND, M_PROC, .num = HUTCH_MOUNT_DIR },
	{ "mount flags: all known, tmpfs", F_M_FLAGS, M_TMPFS_ODD, .num = HUTCH_MF_ALL },
	{ "send fd: none at all", F_M_FLAGS, M_TMPFS_ODD, .num = 0 },
	{ "mount flags: bind rw,exec,dev,optional", F_M_FLAGS, M_BIND,
	  .num = HUTCH_MF_RW | HUTCH_MF_EXEC | HUTCH_MF_DEV | HUTCH_MF_OPTIONAL },
	{ "mode: 07777", F_M_MODE, M_FILE, .num = 07777 },
	{ "mode: 0", F_M_MODE, M_DIR, .num = 0 },
	{ "tmpfs size: 1", F_M_SIZE, M_TMPFS, .num = 1 },
	{ "tmpfs size: max", F_M_SIZE, M_TMPFS, .num = UINT64_MAX },
	{ "bind source: root", F_M_SOURCE, M_BIND, BYTES("/") },
	{ "bind source: 4095 bytes", F_M_SOURCE, M_BIND, .str = long_path,
	  .len = HUTCH_SPEC_MAX_PATH },
	{ "symlink text: 4095 bytes", F_M_SOURCE, M_SYMLINK, .str = long_a,
	  .len = HUTCH_SPEC_MAX_PATH },
	{ "symlink text: unclean", F_M_SOURCE, M_SYMLINK, BYTES("a//b/../") },
	{ "target: 4095 bytes", F_M_TARGET, M_DIR, .str = long_path, .len = HUTCH_SPEC_MAX_PATH },
	{ "target: UTF-8", F_M_TARGET, M_DIR, BYTES("/d\xc3\xa4ta") },
	{ "file data: one NUL", F_M_DATA, M_FILE_EMPTY, BYTES("\0") },
	{ "file data: emptied", F_M_DATA, M_FILE, .str = "", .len = 0 },
	{ "argv: empty string", F_ARGV, 0, BYTES("") },
	{ "argv: control characters", F_ARGV, 1, BYTES("\n\x01\x7f\x1b[0m") },
	{ "argv: 128 KiB - 1", F_ARGV, 2, .str = long_a, .len = HUTCH_SPEC_MAX_ARG_BYTES - 1 },
	{ "env: empty value", F_ENV, 0, BYTES("A=") },
	{ "env: control characters in value", F_ENV, 1, BYTES("A=\x01\n") },
	{ "env: 128 KiB - 1", F_ENV, 2, .str = long_env, .len = HUTCH_SPEC_MAX_ARG_BYTES - 1 },
	{ "filter: one instruction", F_FILTER, BYTES("\x06\0\0\0\0\0\xff\x7f") },
	{ "filter: 4096 instructions", F_FILTER, .str = zeros,
	  .len = HUTCH_SPEC_MAX_FILTER_INSNS * 8 },
};

static const struct field_case bad_cases[] = {
	/* flags and the filter */
	{ "flags: first unknown bit", F_FLAGS, .num = GOOD_FLAGS | (HUTCH_SPEC_FLAGS_ALL + 1u) },
	{ "flags: unknown bit 31", F_FLAGS, .num = GOOD_FLAGS | 1u << 31 },
	{ "flags: all ones", F_FLAGS, .num = UINT32_MAX },
	{ "seccomp flag without filter", F_FILTER, .str = "", .len = 0 },
	{ "filter without seccomp flag", F_FLAGS, .num = GOOD_FLAGS & ~HUTCH_SPEC_SECCOMP },
	{ "filter: 4 bytes", F_FILTER, BYTES("\x06\0\0\0") },
	{ "filter: 12 bytes", F_FILTER, BYTES("\x06\0\0\0\0\0\xff\x7f\x06\0\0\0") },
	{ "filter: 33 bytes", F_FILTER, .str = zeros, .len = 33 },
	{ "filter: 4097 instructions", F_FILTER, .str = zeros,
	  .len = (HUTCH_SPEC_MAX_FILTER_INSNS + 1) * 8 },

	/* hostname and cwd */
	{ "hostname: 65 bytes", F_HOSTNAME, .str = long_a, .len = HUTCH_SPEC_MAX_HOSTNAME + 1 },
	{ "hostname: newline", F_HOSTNAME, BYTES("host\n") },
	{ "hostname: DEL", F_HOSTNAME, BYTES("h\x7f") },
	{ "hostname: escape", F_HOSTNAME, BYTES("\x1b[2J") },
	{ "hostname: embedded NUL", F_HOSTNAME, BYTES("ho\0st"), WIRE_ONLY },
	{ "hostname: no terminating NUL", F_HOSTNAME, .term = 'x', WIRE_ONLY },
	{ "cwd: empty", F_CWD, BYTES("") },
	{ "cwd: relative", F_CWD, BYTES("work") },
	{ "cwd: trailing slash", F_CWD, BYTES("/work/") },
	{ "cwd: dot-dot", F_CWD, BYTES("/work/../etc") },
	{ "cwd: dot", F_CWD, BYTES("/./work") },
	{ "cwd: double slash", F_CWD, BYTES("//") },
	{ "cwd: newline", F_CWD, BYTES("/work\n") },
	{ "cwd: 0x1f", F_CWD, BYTES("/\x1f") },
	{ "cwd: 4096 bytes", F_CWD, .str = long_path, .len = HUTCH_SPEC_MAX_PATH + 1 },
	{ "cwd: embedded NUL", F_CWD, BYTES("/wo\0rk"), WIRE_ONLY },
	{ "cwd: no terminating NUL", F_CWD, .term = 0xff, WIRE_ONLY },

	/* mount kind, flags, mode, pad */
	{ "kind: 0", F_M_KIND, M_DIR, .num = 0 },
	{ "kind: KIND_MAX", F_M_KIND, M_DIR, .num = HUTCH_MOUNT_KIND_MAX },
	{ "kind: 0xff", F_M_KIND, M_BIND, .num = 0xff },
	{ "kind: DIR becomes BIND (no source)", F_M_KIND, M_DIR, .num = HUTCH_MOUNT_BIND },
	{ "kind: BIND becomes DIR (source)", F_M_KIND, M_BIND, .num = HUTCH_MOUNT_DIR },
	{ "kind: FILE becomes SYMLINK (no text, data)", F_M_KIND, M_FILE, .num = HUTCH_MOUNT_SYMLINK },
	{ "kind: DIR becomes TMPFS (size 0)", F_M_KIND, M_DIR, .num = HUTCH_MOUNT_TMPFS },
	{ "mount flags: first unknown bit", F_M_FLAGS, M_TMPFS, .num = HUTCH_MF_ALL + 1 },
	{ "mount flags: first unknown bit, bind", F_M_FLAGS, M_BIND, .num = HUTCH_MF_ALL + 1 },
	{ "mount flags: bit 15", F_M_FLAGS, M_TMPFS, .num = 0x8000 },
	{ "mount flags: all ones", F_M_FLAGS, M_BIND_RW, .num = 0xffff },
	/* M_TMPFS_ODD sends its fd: only a tmpfs may, and only one */
	{ "send fd: sending tmpfs becomes a dir", F_M_KIND, M_TMPFS_ODD, .num = HUTCH_MOUNT_DIR },
	{ "send fd: sending tmpfs becomes proc", F_M_KIND, M_TMPFS_ODD, .num = HUTCH_MOUNT_PROC },
	{ "send fd: sending tmpfs becomes a file", F_M_KIND, M_TMPFS_ODD,
	  .num = HUTCH_MOUNT_FILE },
	{ "send fd: a second tmpfs", F_M_FLAGS, M_TMPFS, .num = HUTCH_MF_RW | HUTCH_MF_SEND_FD },
	{ "send fd: a bind as well", F_M_FLAGS, M_BIND, .num = HUTCH_MF_SEND_FD },
	{ "mode: 010000", F_M_MODE, M_FILE, .num = 010000 },
	{ "mode: 0x80000000", F_M_MODE, M_DIR, .num = 0x80000000u },
	{ "mode: all ones", F_M_MODE, M_TMPFS, .num = UINT32_MAX },
	{ "pad: 1", F_M_PAD, M_BIND, .num = 1, WIRE_ONLY },
	{ "pad: 0x80", F_M_PAD, M_FILE, .num = 0x80, WIRE_ONLY },
	{ "tmpfs size: 0", F_M_SIZE, M_TMPFS, .num = 0 },
	{ "tmpfs size: 0 (odd one)", F_M_SIZE, M_TMPFS_ODD, .num = 0 },

	/* targets: absolute and clean, no control characters */
	{ "target: relative", F_M_TARGET, M_DIR, BYTES("relative") },
	{ "target: relative with slash", F_M_TARGET, M_DIR, BYTES("work/") },
	{ "target: empty", F_M_TARGET, M_DIR, BYTES("") },
	{ "target: /a/../b", F_M_TARGET, M_DIR, BYTES("/a/../b") },
	{ "target: /a//b", F_M_TARGET, M_DIR, BYTES("/a//b") },
	{ "target: /a/", F_M_TARGET, M_DIR, BYTES("/a/") },
	{ "target: /", F_M_TARGET, M_DIR, BYTES("/") },
	{ "target: / of a bind", F_M_TARGET, M_BIND, BYTES("/") },
	{ "target: /a/./b", F_M_TARGET, M_DIR, BYTES("/a/./b") },
	{ "target: /..", F_M_TARGET, M_DIR, BYTES("/..") },
	{ "target: /.", F_M_TARGET, M_DIR, BYTES("/.") },
	{ "target: /work/..", F_M_TARGET, M_DIR, BYTES("/work/..") },
	{ "target: //", F_M_TARGET, M_DIR, BYTES("//") },
	{ "target: relative file", F_M_TARGET, M_FILE, BYTES("etc/passwd") },
	{ "target: symlink trailing slash", F_M_TARGET, M_SYMLINK, BYTES("/dev/fd/") },
	{ "target: tmpfs dot-dot", F_M_TARGET, M_TMPFS, BYTES("/tmp/../etc") },
	{ "target: newline", F_M_TARGET, M_DIR, BYTES("/a\nb") },
	{ "target: DEL", F_M_TARGET, M_DIR, BYTES("/a\x7f") },
	{ "target: 0x01", F_M_TARGET, M_FILE, BYTES("/\x01") },
	{ "target: tab", F_M_TARGET, M_BIND, BYTES("/tab\there") },
	{ "target: 4096 bytes", F_M_TARGET, M_DIR, .str = long_path, .len = HUTCH_SPEC_MAX_PATH + 1 },
	{ "target: embedded NUL", F_M_TARGET, M_DIR, BYTES("/wo\0rk"), WIRE_ONLY },
	{ "target: leading NUL", F_M_TARGET, M_BIND, BYTES("\0/usr"), WIRE_ONLY },
	{ "target: just a NUL", F_M_TARGET, M_FILE, BYTES("\0"), WIRE_ONLY },
	{ "target: no terminating NUL", F_M_TARGET, M_DIR, .term = '/', WIRE_ONLY },

	/* sources, by kind */
	{ "bind source: relative", F_M_SOURCE, M_BIND, BYTES("usr") },
	{ "bind source: empty", F_M_SOURCE, M_BIND, BYTES("") },
	{ "bind source: /a/../b", F_M_SOURCE, M_BIND, BYTES("/a/../b") },
	{ "bind source: /a//b", F_M_SOURCE, M_BIND, BYTES("/a//b") },
	{ "bind source: /a/", F_M_SOURCE, M_BIND, BYTES("/a/") },
	{ "bind source: /a/.", F_M_SOURCE, M_BIND, BYTES("/a/.") },
	{ "bind source: /a/./b", F_M_SOURCE, M_BIND_RW, BYTES("/a/./b") },
	{ "bind source: escape", F_M_SOURCE, M_BIND, BYTES("/us\x1br") },
	{ "bind source: 4096 bytes", F_M_SOURCE, M_BIND, .str = long_path,
	  .len = HUTCH_SPEC_MAX_PATH + 1 },
	{ "bind source: embedded NUL", F_M_SOURCE, M_BIND, BYTES("/u\0sr"), WIRE_ONLY },
	{ "bind source: no terminating NUL", F_M_SOURCE, M_BIND, .term = 1, WIRE_ONLY },
	{ "bind: data", F_M_DATA, M_BIND, BYTES("x") },
	{ "symlink: empty text", F_M_SOURCE, M_SYMLINK, BYTES("") },
	{ "symlink: newline in text", F_M_SOURCE, M_SYMLINK, BYTES("lib\n") },
	{ "symlink: 4096 bytes", F_M_SOURCE, M_SYMLINK, .str = long_a,
	  .len = HUTCH_SPEC_MAX_PATH + 1 },
	{ "symlink: embedded NUL", F_M_SOURCE, M_SYMLINK, BYTES("/proc\0/self"), WIRE_ONLY },
	{ "symlink: data", F_M_DATA, M_SYMLINK, BYTES("\0") },
	{ "file: source", F_M_SOURCE, M_FILE, BYTES("/etc/passwd") },
	{ "tmpfs: source", F_M_SOURCE, M_TMPFS, BYTES("tmpfs") },
	{ "tmpfs: data", F_M_DATA, M_TMPFS, BYTES("size=1") },
	{ "proc: source", F_M_SOURCE, M_PROC, BYTES("proc") },
	{ "proc: data", F_M_DATA, M_PROC, BYTES("x") },
	{ "dir: source", F_M_SOURCE, M_DIR, BYTES("/x") },
	{ "dir: data", F_M_DATA, M_DIR, BYTES("\0\0\0\0") },

	/* argv and env */
	{ "argv: 128 KiB", F_ARGV, 2, .str = long_a, .len = HUTCH_SPEC_MAX_ARG_BYTES },
	{ "argv: embedded NUL", F_ARGV, 0, BYTES("/usr/bin\0/sh"), WIRE_ONLY },
	{ "argv: no terminating NUL", F_ARGV, 1, .term = 'x', WIRE_ONLY },
	{ "argv: empty without NUL", F_ARGV, 3, .term = 'x', WIRE_ONLY },
	{ "env: no '='", F_ENV, 0, BYTES("NOEQUALS") },
	{ "env: empty", F_ENV, 1, BYTES("") },
	{ "env: starts with '='", F_ENV, 2, BYTES("=value") },
	{ "env: just '='", F_ENV, 3, BYTES("=") },
	{ "env: 128 KiB", F_ENV, 1, .str = long_env, .len = HUTCH_SPEC_MAX_ARG_BYTES },
	{ "env: embedded NUL", F_ENV, 0, BYTES("LANG=C\0X"), WIRE_ONLY },
	{ "env: NUL hides the '='", F_ENV, 0, BYTES("LANG\0=C"), WIRE_ONLY },
	{ "env: no terminating NUL", F_ENV, 3, .term = 'x', WIRE_ONLY },
};

static void test_good_field_cases(void)
{
	long_strings_init();
	for (size_t i = 0; i < ARRAY_SIZE(good_cases); i++) {
		const struct field_case *c = &good_cases[i];
		struct fixture mod, base;
		struct wire want = { 0 }, got;
		struct decoded d;
		char *scratch = NULL;
		int r;

		fixture_init(&mod);
		apply_struct(&mod, c, &scratch);
		r = spec_encode(&mod.sp, &want.buf, &want.len);
		expect_rc("encode", c->name, r, 0);
		if (r < 0) {
			free(scratch);
			continue;
		}

		fixture_init(&base);
		wire_encode(&base.sp, &got);
		apply_wire(&got, c);
		CU_ASSERT_EQUAL(got.len, want.len);
		if (got.len != want.len || memcmp(got.buf, want.buf, got.len) != 0) {
			fprintf(stderr, "\n    %s: forged bytes differ from encoded\n", c->name);
			CU_FAIL("forged bytes differ from encoded");
		}

		expect_rc("decode", c->name, decode_copy(got.buf, got.len, &d), 0);
		if (d.r == 0)
			assert_spec_equal(&mod.sp, &d.sp);
		decoded_free(&d);
		wire_free(&got);
		free(want.buf);
		free(scratch);
	}
}

static void test_bad_field_cases(void)
{
	long_strings_init();
	for (size_t i = 0; i < ARRAY_SIZE(bad_cases); i++) {
		const struct field_case *c = &bad_cases[i];
		struct fixture f;
		struct wire w;

		if (!c->wire_only) {
			char *scratch = NULL;

			fixture_init(&f);
			apply_struct(&f, c, &scratch);
			expect_rc("encode", c->name, encode_rc(&f.sp), -EINVAL);
			free(scratch);
		}

		fixture_init(&f);
		wire_encode(&f.sp, &w);
		apply_wire(&w, c);
		expect_rc("decode", c->name, decode_rc(w.buf, w.len), -EBADMSG);
		wire_free(&w);
	}
}

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
		0x48, 0x53, 0x50, 0x31, 0x01, 0x00, 0x00, 0x00, /* "HSP1", v1, zero */
		0x9a, 0x00, 0x00, 0x00,				/* total_len 154 */
		0x01, 0x02, 0x00, 0x00,				/* flags PID|SECCOMP */
		0xe8, 0x03, 0x00, 0x00, 0xe9, 0x03, 0x00, 0x00, /* uid/gid inside */
		0xa0, 0x86, 0x01, 0x00, 0x78, 0x56, 0x34, 0x12, /* uid/gid outside */
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, /* AS */
		0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* CPU */
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* FSIZE */
		0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* NOFILE */
		0x20, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* NPROC */
		0x01, 0x00, 0x00, 0x00, 'h', 0x00,		/* hostname */
		0x01, 0x00, 0x00, 0x00, '/', 0x00,		/* cwd */
		0x01, 0x00, 0x00, 0x00,				/* n_mounts */
		0x02, 0x00, 0x03, 0x00, 0xff, 0x03, 0x00, 0x00, /* tmpfs, RW|EXEC, 01777 */
		0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, /* size */
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
		.size_bytes = 0x10000, .source = "", .target = "/t",
	};
	struct spec sp = {
		.flags = HUTCH_SPEC_NS_PID | HUTCH_SPEC_SECCOMP,
		.uid_inside = 1000, .gid_inside = 1001,
		.uid_outside = 100000, .gid_outside = 0x12345678,
		.rlimit = { 0x0102030405060708ull, 5, HUTCH_RLIM_INFINITY, 256, 32 },
		.hostname = "h", .cwd = "/",
		.n_mounts = 1, .mounts = &m,
		.argc = 1, .argv = argv, .envc = 1, .envp = envp,
		.filter = (const uint8_t *)"\x06\0\0\0\0\0\xff\x7f", .filter_len = 8,
	};
	uint8_t *buf;
	size_t len;
	struct decoded d;

	CU_ASSERT_EQUAL(sizeof(golden), 154);
	CU_ASSERT_EQUAL_FATAL(spec_encode(&sp, &buf, &len), 0);
	CU_ASSERT_EQUAL(len, sizeof(golden));
	CU_ASSERT(len == sizeof(golden) && memcmp(buf, golden, len) == 0);
	free(buf);

	CU_ASSERT_EQUAL_FATAL(decode_copy(golden, sizeof(golden), &d), 0);
	assert_spec_equal(&sp, &d.sp);
	decoded_free(&d);
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
		{ "version: 2", 4, 2, 2, -EBADMSG },
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
	 * a str needs at least 5 bytes, a mount at least 30. */
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
	{ "valid variations, encoded and forged", test_good_field_cases },
	{ "broken rules, encoded and forged", test_bad_field_cases },
	{ "peek length", test_peek_length },
	{ "bad header", test_bad_header },
	{ "truncation at every byte", test_truncation_every_byte },
	{ "trailing bytes", test_trailing_bytes },
	{ "decoder allocations are watched", test_calloc_is_watched },
	{ "oversized counts and lengths", test_oversized_counts_and_lengths },
	{ "count caps", test_count_caps },
	{ "argv and env rules", test_argv_rules },
	{ "total and file size limits", test_total_and_file_limits },
	{ "single-byte corruption", test_single_byte_corruption },
	{ "spec_path_is_clean", test_path_is_clean },
	{ NULL, NULL },
};

UNIT_MAIN("spec-codec")
