/* spec-fixtures.h: what the spec codec's unit tests (test-spec-codec.c,
 * test-spec-frames.c) share: a realistic spec, decodes of exact-size heap
 * copies, and the wire walked independently of the codec (spec-fixtures.c).
 * Helpers assert with CUnit; include after <CUnit/Basic.h> or cunit-main.h. */
#ifndef HUTCH_SPEC_FIXTURES_H
#define HUTCH_SPEC_FIXTURES_H

#include <stddef.h>
#include <stdint.h>

#include "spec.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- a realistic spec: every mount kind, binary file data, a filter ---- */

#define GOOD_FLAGS                                                                      \
	(HUTCH_SPEC_NS_PID | HUTCH_SPEC_NS_NET | HUTCH_SPEC_NS_IPC | HUTCH_SPEC_NS_UTS | \
	 HUTCH_SPEC_NET_LOOPBACK | HUTCH_SPEC_LANDLOCK | HUTCH_SPEC_SECCOMP)

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
	M_OVERLAY,
	M_HIDE,
	M_READONLY,
	M_PIN,
	N_GOOD_MOUNTS
};

/* The realistic spec's argv and environment, NULL-terminated. */
#define N_GOOD_ARGV 6
#define N_GOOD_ENVP 5
extern char *const good_argv[N_GOOD_ARGV];
extern char *const good_envp[N_GOOD_ENVP];

struct fixture {
	struct spec sp;
	struct spec_mount mounts[N_GOOD_MOUNTS];
	char *argv[N_GOOD_ARGV];
	char *envp[N_GOOD_ENVP];
};

/* The realistic spec, pointing into f. */
void fixture_init(struct fixture *f);
/* The smallest valid spec: one argument, nothing else. */
struct spec minimal_spec(char **argv);

/* ---- comparing and decoding ---- */

void assert_spec_equal(const struct spec *a, const struct spec *b);

/* A decode of a private, exact-size copy. On success the spec points into
 * copy; decoded_free() releases both. */
struct decoded {
	uint8_t *copy;
	struct spec sp;
	int r;
};

int decode_copy(const uint8_t *buf, size_t len, struct decoded *d);
void decoded_free(struct decoded *d);
/* Decode and throw away: the return value is all the caller wants. */
int decode_rc(const uint8_t *buf, size_t len);
/* Assert with the case name on stderr, as a table row has no line of its own. */
void expect_rc(const char *side, const char *name, int got, int want);
/* spec_encode must refuse sp, leaving its outputs alone. */
int encode_rc(const struct spec *sp);

/* ---- the wire, walked independently of the codec ---- */

#define MAX_WALK 24

struct layout {
	size_t flags, user_cap, hostname, cwd, n_mounts, argc, envc, filter;
	struct {
		/* kind at rec, pad +1, flags +2, mode +4, size +8, inodes +16 */
		size_t rec, source, target, data;
	} m[MAX_WALK];
	size_t argv[MAX_WALK], envp[MAX_WALK];
};

struct wire {
	uint8_t *buf;
	size_t len;
	struct layout at;
};

uint32_t rd32(const uint8_t *p);
void wr16(uint8_t *p, uint16_t v);
void wr32(uint8_t *p, uint32_t v);
void wr64(uint8_t *p, uint64_t v);
/* Encode sp (which must succeed) and record where every field sits. */
void wire_encode(const struct spec *sp, struct wire *w);
void wire_free(struct wire *w);
/* Replace bytes, keeping total_len honest (see spec-fixtures.c). */
void wire_splice(struct wire *w, size_t off, size_t old_n, const void *src, size_t new_n);
void wire_set_str(struct wire *w, size_t off, const char *s, size_t n, uint8_t term);
void wire_set_blob(struct wire *w, size_t off, const void *s, size_t n);

#endif
