/* spec-codec.c: encode and strictly decode the jail spec (see spec.h).
 * Linked by both binaries. Pure code: no I/O. The helper decodes in its
 * first phase, where allocation is still allowed. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hutch-abi.h"
#include "spec.h"

/* ---- validation shared by both directions ---- */

int spec_path_is_clean(const char *path, int allow_root)
{
	const char *p = path;

	if (p[0] != '/')
		return 0;
	if (p[1] == '\0')
		return allow_root;
	while (*p == '/') {
		const char *comp = p + 1;
		size_t n = strcspn(comp, "/");

		if (n == 0)	/* "//" or a trailing slash */
			return 0;
		if ((n == 1 && comp[0] == '.') || (n == 2 && comp[0] == '.' && comp[1] == '.'))
			return 0;
		p = comp + n;
	}
	return *p == '\0';
}

static int has_ctl(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 1;
	return 0;
}

static int check_mount(const struct spec_mount *m)
{
	if (m->kind < HUTCH_MOUNT_BIND || m->kind >= HUTCH_MOUNT_KIND_MAX)
		return 0;
	if (m->flags & ~HUTCH_MF_ALL || m->mode > 07777)
		return 0;
	if ((m->flags & HUTCH_MF_SEND_FD) && m->kind != HUTCH_MOUNT_TMPFS)
		return 0;
	/* only a writable bind or an overlay's lower is idmapped, never
	 * with optional or dev */
	if ((m->flags & HUTCH_MF_IDMAP) &&
	    (!(m->kind == HUTCH_MOUNT_OVERLAY ||
	       (m->kind == HUTCH_MOUNT_BIND && (m->flags & HUTCH_MF_RW))) ||
	     (m->flags & (HUTCH_MF_OPTIONAL | HUTCH_MF_DEV))))
		return 0;
	/* a descriptor is only ever a bind's source or an overlay's lower,
	 * never optional */
	if ((m->flags & HUTCH_MF_FD) &&
	    ((m->kind != HUTCH_MOUNT_BIND && m->kind != HUTCH_MOUNT_OVERLAY) ||
	     (m->flags & (HUTCH_MF_OPTIONAL | HUTCH_MF_DEV))))
		return 0;
	/* tmpfs reads nr_inodes=0 as unlimited: a tmpfs (an overlay's upper
	 * is one) always says its bound. */
	if ((m->kind == HUTCH_MOUNT_TMPFS || m->kind == HUTCH_MOUNT_OVERLAY) != (m->inodes > 0))
		return 0;
	if (strlen(m->target) > HUTCH_SPEC_MAX_PATH || !spec_path_is_clean(m->target, 0) ||
	    has_ctl(m->target))
		return 0;
	if (strlen(m->source) > HUTCH_SPEC_MAX_PATH || has_ctl(m->source))
		return 0;
	switch ((enum hutch_mount_kind)m->kind) {
	case HUTCH_MOUNT_BIND:
		return spec_path_is_clean(m->source, 1) && m->data_len == 0;
	case HUTCH_MOUNT_SYMLINK:
		return m->source[0] != '\0' && m->data_len == 0;
	case HUTCH_MOUNT_FILE:
		return m->source[0] == '\0' && m->data_len <= HUTCH_SPEC_MAX_FILE_BYTES;
	case HUTCH_MOUNT_TMPFS:
		return m->source[0] == '\0' && m->data_len == 0 && m->size_bytes > 0;
	case HUTCH_MOUNT_PROC:
	case HUTCH_MOUNT_DIR:
		return m->source[0] == '\0' && m->data_len == 0;
	case HUTCH_MOUNT_OVERLAY:
		/* always writable (the upper layer), never dev or optional */
		return spec_path_is_clean(m->source, 0) && m->data_len == 0 && m->size_bytes > 0 &&
		       (m->flags & ~(HUTCH_MF_EXEC | HUTCH_MF_IDMAP | HUTCH_MF_FD)) == 0;
	case HUTCH_MOUNT_DEVPTS:
		/* never nodev-free by a flag: the instance is the jail's own */
		return m->source[0] == '\0' && m->data_len == 0 && m->flags == 0 &&
		       (m->mode & ~0666u) == 0;
	case HUTCH_MOUNT_HIDE:
	case HUTCH_MOUNT_READONLY:
	case HUTCH_MOUNT_PIN:
		/* they take their flags from what they cover */
		return m->source[0] == '\0' && m->data_len == 0 && m->flags == 0;
	case HUTCH_MOUNT_KIND_MAX:
		break;
	}
	return 0;
}

static int check_header_fields(const struct spec *sp)
{
	if (sp->flags & ~HUTCH_SPEC_FLAGS_ALL)
		return 0;
	if (strlen(sp->hostname) > HUTCH_SPEC_MAX_HOSTNAME || has_ctl(sp->hostname))
		return 0;
	if (strlen(sp->cwd) > HUTCH_SPEC_MAX_PATH || !spec_path_is_clean(sp->cwd, 1) ||
	    has_ctl(sp->cwd))
		return 0;
	if (sp->n_mounts > HUTCH_SPEC_MAX_MOUNTS || sp->argc == 0 ||
	    sp->argc > HUTCH_SPEC_MAX_ARGC || sp->envc > HUTCH_SPEC_MAX_ENVC)
		return 0;
	if (sp->filter_len % 8 || sp->filter_len > HUTCH_SPEC_MAX_FILTER_INSNS * 8)
		return 0;
	if (!!(sp->flags & HUTCH_SPEC_SECCOMP) != (sp->filter_len > 0))
		return 0;
	/* written to an int sysctl by the helper */
	if (sp->user_cap[HUTCH_UCAP_INOTIFY_INSTANCES] > HUTCH_UCAP_COUNT_MAX ||
	    sp->user_cap[HUTCH_UCAP_INOTIFY_WATCHES] > HUTCH_UCAP_COUNT_MAX)
		return 0;
	/* The proxy listens on the jail's own loopback, never the host's. */
	if ((sp->flags & HUTCH_SPEC_NET_PROXY) &&
	    (sp->flags & (HUTCH_SPEC_NS_NET | HUTCH_SPEC_NET_LOOPBACK)) !=
		    (HUTCH_SPEC_NS_NET | HUTCH_SPEC_NET_LOOPBACK))
		return 0;
	for (uint32_t i = 0, sends = 0; sp->mounts && i < sp->n_mounts; i++)
		if ((sp->mounts[i].flags & HUTCH_MF_SEND_FD) && ++sends > 1)
			return 0; /* one work dir at most */
	for (uint32_t i = 0, fds = 0; sp->mounts && i < sp->n_mounts; i++)
		if ((sp->mounts[i].flags & HUTCH_MF_FD) && ++fds > HUTCH_BIND_FDS_MAX)
			return 0; /* no more descriptors than fit their fd range */
	return 1;
}

/* ---- encoder ---- */

struct writer {
	uint8_t *buf;
	size_t len, cap;
	int err;
};

static void put(struct writer *w, const void *p, size_t n)
{
	if (w->err)
		return;
	if (n > HUTCH_SPEC_MAX_BYTES - w->len) {
		w->err = -E2BIG;
		return;
	}
	if (w->len + n > w->cap) {
		size_t cap = w->cap ? w->cap : 4096;
		uint8_t *nb;

		while (cap < w->len + n)
			cap *= 2;
		nb = realloc(w->buf, cap);
		if (!nb) {
			w->err = -ENOMEM;
			return;
		}
		w->buf = nb;
		w->cap = cap;
	}
	if (n)
		memcpy(w->buf + w->len, p, n);
	w->len += n;
}

static void put_u8(struct writer *w, uint8_t v)
{
	put(w, &v, 1);
}

static void put_u16(struct writer *w, uint16_t v)
{
	uint8_t b[2] = { (uint8_t)v, (uint8_t)(v >> 8) };

	put(w, b, 2);
}

static void put_u32(struct writer *w, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };

	put(w, b, 4);
}

static void put_u64(struct writer *w, uint64_t v)
{
	put_u32(w, (uint32_t)v);
	put_u32(w, (uint32_t)(v >> 32));
}

static void put_blob(struct writer *w, const void *p, size_t n)
{
	if (n > UINT32_MAX) {
		w->err = -E2BIG;
		return;
	}
	put_u32(w, (uint32_t)n);
	put(w, p, n);
}

static void put_str(struct writer *w, const char *s)
{
	put_blob(w, s, strlen(s));
	put_u8(w, 0);
}

static int check_strings(const struct spec *sp)
{
	for (uint32_t i = 0; i < sp->argc; i++)
		if (!sp->argv[i] || strlen(sp->argv[i]) >= HUTCH_SPEC_MAX_ARG_BYTES)
			return 0;
	for (uint32_t i = 0; i < sp->envc; i++)
		if (!sp->envp[i] || strlen(sp->envp[i]) >= HUTCH_SPEC_MAX_ARG_BYTES ||
		    !strchr(sp->envp[i], '=') || sp->envp[i][0] == '=')
			return 0;
	return 1;
}

int spec_encode(const struct spec *sp, uint8_t **ret_buf, size_t *ret_len)
{
	struct writer w = { 0 };

	if (!check_header_fields(sp) || !check_strings(sp))
		return -EINVAL;
	for (uint32_t i = 0; i < sp->n_mounts; i++)
		if (!check_mount(&sp->mounts[i]))
			return -EINVAL;

	put_u32(&w, HUTCH_SPEC_MAGIC);
	put_u16(&w, HUTCH_SPEC_VERSION);
	put_u16(&w, 0);
	put_u32(&w, 0); /* total_len, patched below */
	put_u32(&w, sp->flags);
	put_u32(&w, sp->uid_inside);
	put_u32(&w, sp->gid_inside);
	put_u32(&w, sp->uid_outside);
	put_u32(&w, sp->gid_outside);
	for (int i = 0; i < HUTCH_RLIM_COUNT; i++)
		put_u64(&w, sp->rlimit[i]);
	for (int i = 0; i < HUTCH_UCAP_COUNT; i++)
		put_u64(&w, sp->user_cap[i]);
	put_str(&w, sp->hostname);
	put_str(&w, sp->cwd);
	put_u32(&w, sp->n_mounts);
	for (uint32_t i = 0; i < sp->n_mounts; i++) {
		const struct spec_mount *m = &sp->mounts[i];

		put_u8(&w, m->kind);
		put_u8(&w, 0);
		put_u16(&w, m->flags);
		put_u32(&w, m->mode);
		put_u64(&w, m->size_bytes);
		put_u64(&w, m->inodes);
		put_str(&w, m->source);
		put_str(&w, m->target);
		put_blob(&w, m->data, m->data_len);
	}
	put_u32(&w, sp->argc);
	for (uint32_t i = 0; i < sp->argc; i++)
		put_str(&w, sp->argv[i]);
	put_u32(&w, sp->envc);
	for (uint32_t i = 0; i < sp->envc; i++)
		put_str(&w, sp->envp[i]);
	put_blob(&w, sp->filter, sp->filter_len);
	if (w.err) {
		free(w.buf);
		return w.err;
	}
	w.buf[8] = (uint8_t)w.len;
	w.buf[9] = (uint8_t)(w.len >> 8);
	w.buf[10] = (uint8_t)(w.len >> 16);
	w.buf[11] = (uint8_t)(w.len >> 24);
	*ret_buf = w.buf;
	*ret_len = w.len;
	return 0;
}

/* ---- decoder ---- */

struct reader {
	const uint8_t *buf;
	size_t len, pos;
	int bad;
};

static const uint8_t *take(struct reader *r, size_t n)
{
	const uint8_t *p;

	if (r->bad || n > r->len - r->pos) {
		r->bad = 1;
		return NULL;
	}
	p = r->buf + r->pos;
	r->pos += n;
	return p;
}

static uint8_t get_u8(struct reader *r)
{
	const uint8_t *p = take(r, 1);

	return p ? p[0] : 0;
}

static uint16_t get_u16(struct reader *r)
{
	const uint8_t *p = take(r, 2);

	return p ? (uint16_t)(p[0] | p[1] << 8) : 0;
}

static uint32_t get_u32(struct reader *r)
{
	const uint8_t *p = take(r, 4);

	return p ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			   (uint32_t)p[3] << 24
		 : 0;
}

static uint64_t get_u64(struct reader *r)
{
	uint64_t lo = get_u32(r);

	return lo | (uint64_t)get_u32(r) << 32;
}

static const uint8_t *get_blob(struct reader *r, uint32_t max, uint32_t *ret_len)
{
	uint32_t n = get_u32(r);

	*ret_len = 0;
	if (n > max) {
		r->bad = 1;
		return NULL;
	}
	*ret_len = n;
	return take(r, n);
}

/* A str: bytes with no NUL among them, then exactly one NUL. */
static const char *get_str(struct reader *r, uint32_t max)
{
	uint32_t n;
	const uint8_t *p = get_blob(r, max, &n);

	if (!p || memchr(p, 0, n) || get_u8(r) != 0 || r->bad) {
		r->bad = 1;
		return "";
	}
	return (const char *)p;
}

int spec_peek_length(const uint8_t *hdr, size_t len, uint32_t *ret_total)
{
	struct reader r = { .buf = hdr, .len = len };
	uint32_t magic = get_u32(&r), total;
	uint16_t version = get_u16(&r), zero = get_u16(&r);

	total = get_u32(&r);
	if (r.bad || magic != HUTCH_SPEC_MAGIC || version != HUTCH_SPEC_VERSION || zero != 0)
		return -EBADMSG;
	if (total < HUTCH_SPEC_HEADER_BYTES || total > HUTCH_SPEC_MAX_BYTES)
		return -EBADMSG;
	*ret_total = total;
	return 0;
}

/* Counts are checked against what the remaining bytes could hold before any
 * array is allocated, so a lying count cannot make us allocate much. */
static int count_fits(const struct reader *r, uint32_t count, size_t min_each)
{
	return !r->bad && (size_t)count <= (r->len - r->pos) / min_each;
}

int spec_decode(const uint8_t *buf, size_t len, struct spec *ret_sp)
{
	struct reader r = { .buf = buf, .len = len };
	struct spec sp = { 0 };
	uint32_t total;

	if (spec_peek_length(buf, len, &total) < 0 || total != len)
		return -EBADMSG;
	r.pos = HUTCH_SPEC_HEADER_BYTES;
	sp.flags = get_u32(&r);
	sp.uid_inside = get_u32(&r);
	sp.gid_inside = get_u32(&r);
	sp.uid_outside = get_u32(&r);
	sp.gid_outside = get_u32(&r);
	for (int i = 0; i < HUTCH_RLIM_COUNT; i++)
		sp.rlimit[i] = get_u64(&r);
	for (int i = 0; i < HUTCH_UCAP_COUNT; i++)
		sp.user_cap[i] = get_u64(&r);
	sp.hostname = get_str(&r, HUTCH_SPEC_MAX_HOSTNAME);
	sp.cwd = get_str(&r, HUTCH_SPEC_MAX_PATH);

	sp.n_mounts = get_u32(&r);
	if (sp.n_mounts > HUTCH_SPEC_MAX_MOUNTS || !count_fits(&r, sp.n_mounts, 36))
		goto bad;
	sp.mounts = calloc(sp.n_mounts ? sp.n_mounts : 1, sizeof(*sp.mounts));
	if (!sp.mounts)
		goto nomem;
	for (uint32_t i = 0; i < sp.n_mounts; i++) {
		struct spec_mount *m = &sp.mounts[i];

		m->kind = get_u8(&r);
		if (get_u8(&r) != 0)
			goto bad;
		m->flags = get_u16(&r);
		m->mode = get_u32(&r);
		m->size_bytes = get_u64(&r);
		m->inodes = get_u64(&r);
		m->source = get_str(&r, HUTCH_SPEC_MAX_PATH);
		m->target = get_str(&r, HUTCH_SPEC_MAX_PATH);
		m->data = get_blob(&r, HUTCH_SPEC_MAX_FILE_BYTES, &m->data_len);
		if (r.bad || !check_mount(m))
			goto bad;
	}

	sp.argc = get_u32(&r);
	if (sp.argc > HUTCH_SPEC_MAX_ARGC || !count_fits(&r, sp.argc, 5))
		goto bad;
	sp.argv = calloc((size_t)sp.argc + 1, sizeof(char *));
	if (!sp.argv)
		goto nomem;
	for (uint32_t i = 0; i < sp.argc; i++)
		sp.argv[i] = (char *)get_str(&r, HUTCH_SPEC_MAX_ARG_BYTES - 1);

	sp.envc = get_u32(&r);
	if (sp.envc > HUTCH_SPEC_MAX_ENVC || !count_fits(&r, sp.envc, 5))
		goto bad;
	sp.envp = calloc((size_t)sp.envc + 1, sizeof(char *));
	if (!sp.envp)
		goto nomem;
	for (uint32_t i = 0; i < sp.envc; i++)
		sp.envp[i] = (char *)get_str(&r, HUTCH_SPEC_MAX_ARG_BYTES - 1);

	sp.filter = get_blob(&r, HUTCH_SPEC_MAX_FILTER_INSNS * 8, &sp.filter_len);
	if (r.bad || r.pos != r.len || !check_header_fields(&sp) || !check_strings(&sp))
		goto bad;
	*ret_sp = sp;
	return 0;
bad:
	spec_release(&sp);
	return -EBADMSG;
nomem:
	spec_release(&sp);
	return -ENOMEM;
}

void spec_release(struct spec *sp)
{
	free(sp->mounts);
	free(sp->argv);
	free(sp->envp);
	sp->mounts = NULL;
	sp->argv = sp->envp = NULL;
}
