/* policy-blob.c: see policy-blob.h. Layout: a version word, then each
 * field of struct policy in declaration order, integers as 64-bit words
 * in host order, strings as a 64-bit length and the bytes (a length of
 * all ones for NULL), arrays as a count and their elements, then the
 * seal: the SHA-256 of every byte before it. The bytes never leave this
 * machine and this build (the cache keys them to the hutch binary), so
 * host order is the order. */
#include "config.h"

#include <errno.h>
#include <nettle/sha2.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "doc/policy-blob.h"
#include "doc/strv.h"

#define BLOB_VERSION 4u	/* 2: network proxy; 3: hide and read_only; 4: the seal */
#define NO_STRING UINT64_MAX
#define MAX_ITEMS 65536u	/* far above what POLICY_MAX_BYTES of JSON holds */

/* A new field in struct policy must be added here first. */
_Static_assert(sizeof(void *) != 8 || sizeof(struct policy) == 576,
	       "policy-blob.c: encode every field of struct policy");

struct wbuf {
	uint8_t *b;
	size_t len, cap;
	bool oom;
};

static void put_bytes(struct wbuf *w, const void *p, size_t n)
{
	if (w->oom || n == 0)
		return;	/* nothing to copy, and p may be NULL (put_str's none) */
	if (w->len + n > w->cap) {
		size_t cap = (w->cap ? w->cap * 2 : 4096) + n;
		uint8_t *nb = realloc(w->b, cap);

		if (!nb) {
			w->oom = true;
			return;
		}
		w->b = nb;
		w->cap = cap;
	}
	memcpy(w->b + w->len, p, n);
	w->len += n;
}

static void put_u64(struct wbuf *w, uint64_t v)
{
	put_bytes(w, &v, sizeof(v));
}

static void put_str(struct wbuf *w, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	put_u64(w, s ? n : NO_STRING);
	put_bytes(w, s, n);
}

static void put_strv(struct wbuf *w, char *const *v, size_t n)
{
	put_u64(w, n);
	for (size_t i = 0; i < n; i++)
		put_str(w, v[i]);
}

static void put_proxy(struct wbuf *w, const struct policy_proxy *pp)
{
	put_strv(w, pp->lim.allow, pp->lim.n_allow);
	put_u64(w, pp->lim.allow_private);
	put_u64(w, pp->lim.max_connections);
	put_u64(w, pp->lim.max_header_bytes);
	put_u64(w, pp->lim.idle_ms);
	put_u64(w, pp->lim.max_bytes);
	put_strv(w, pp->def, pp->n_def);
}

int policy_blob_encode(const struct policy *p, uint8_t **ret, size_t *ret_len)
{
	struct wbuf w = { 0 };

	put_u64(&w, BLOB_VERSION);
	put_str(&w, p->name);
	put_str(&w, p->description);
	for (size_t i = 0; i < LIM_COUNT; i++) {
		put_u64(&w, p->limits[i].def);
		put_u64(&w, p->limits[i].max);
	}
	put_u64(&w, p->n_binds);
	for (size_t i = 0; i < p->n_binds; i++) {
		put_str(&w, p->binds[i].path);
		put_u64(&w, p->binds[i].exec);
	}
	put_u64(&w, p->usr_symlinks);
	put_str(&w, p->work_dir);
	put_u64(&w, p->writable_exec);
	put_u64(&w, p->request_exec);
	put_strv(&w, p->hide, p->n_hide);
	put_strv(&w, p->read_only, p->n_read_only);
	put_str(&w, p->hostname);
	put_u64(&w, p->n_mount_rules);
	for (size_t i = 0; i < p->n_mount_rules; i++) {
		put_str(&w, p->mount_rules[i].prefix);
		put_u64(&w, p->mount_rules[i].ro);
		put_u64(&w, p->mount_rules[i].rw);
		put_u64(&w, p->mount_rules[i].overlay);
	}
	put_u64(&w, p->files_max_count);
	put_u64(&w, p->files_max_bytes);
	put_u64(&w, p->collect_max_count);
	put_u64(&w, p->collect_max_bytes);
	put_u64(&w, p->net_default);
	for (size_t i = 0; i < NET_MODES; i++)
		put_u64(&w, p->net_allowed[i]);
	put_proxy(&w, &p->proxy);
	put_strv(&w, p->env_set, p->n_env_set);
	put_strv(&w, p->env_allow, p->n_env_allow);
	put_strv(&w, p->env_allow_prefixes, p->n_env_allow_prefixes);
	put_u64(&w, p->env_allow_any);
	put_u64(&w, p->seccomp_mode);
	put_strv(&w, p->syscalls, p->n_syscalls);
	put_u64(&w, p->allow_ptrace);
	put_u64(&w, p->landlock);
	put_u64(&w, p->uid);
	put_u64(&w, p->gid);
	put_u64(&w, p->requires);
	put_u64(&w, p->partial_output);
	put_u64(&w, p->overflow_truncate);
	put_str(&w, p->canonical);
	if (!w.oom) {
		struct sha256_ctx ctx;
		uint8_t seal[SHA256_DIGEST_SIZE];

		sha256_init(&ctx);
		sha256_update(&ctx, w.len, w.b);
		sha256_digest(&ctx, sizeof(seal), seal);
		put_bytes(&w, seal, sizeof(seal));
	}
	if (w.oom) {
		free(w.b);
		return -ENOMEM;
	}
	*ret = w.b;
	*ret_len = w.len;
	return 0;
}

struct rbuf {
	const uint8_t *b;
	size_t len, off;
	bool bad, oom;
};

static uint64_t get_u64(struct rbuf *r)
{
	uint64_t v = 0;

	if (r->bad || r->len - r->off < sizeof(v)) {
		r->bad = true;
		return 0;
	}
	memcpy(&v, r->b + r->off, sizeof(v));
	r->off += sizeof(v);
	return v;
}

static uint64_t get_max(struct rbuf *r, uint64_t max)
{
	uint64_t v = get_u64(r);

	if (v > max)
		r->bad = true;
	return r->bad ? 0 : v;
}

static bool get_bool(struct rbuf *r)
{
	return get_max(r, 1) != 0;
}

static char *get_str(struct rbuf *r)
{
	uint64_t n = get_u64(r);
	char *s;

	if (r->bad || n == NO_STRING)
		return NULL;
	if (n > r->len - r->off || memchr(r->b + r->off, 0, n)) {
		r->bad = true;
		return NULL;
	}
	s = strndup((const char *)r->b + r->off, n);
	if (!s)
		r->oom = true;
	r->off += n;
	return s;
}

/* Room for n elements of size each, counted against the bytes left
 * (every element takes 8 bytes at least) before any allocation. */
static void *get_array(struct rbuf *r, size_t *ret_n, size_t size)
{
	uint64_t n = get_max(r, MAX_ITEMS);
	void *a;

	*ret_n = 0;
	if (r->bad || n > (r->len - r->off) / 8) {
		r->bad = true;
		return NULL;
	}
	if (n == 0)
		return NULL;
	a = calloc(n, size);
	if (!a) {
		r->oom = true;
		return NULL;
	}
	*ret_n = n;
	return a;
}

static char **get_strv(struct rbuf *r, size_t *ret_n)
{
	char **v = get_array(r, ret_n, sizeof(char *));

	for (size_t i = 0; v && i < *ret_n; i++)
		v[i] = get_str(r);
	return v;
}

static void get_proxy(struct rbuf *r, struct policy_proxy *pp)
{
	pp->lim.allow = get_strv(r, &pp->lim.n_allow);
	pp->lim.allow_private = get_bool(r);
	pp->lim.max_connections = get_u64(r);
	pp->lim.max_header_bytes = get_u64(r);
	pp->lim.idle_ms = get_u64(r);
	pp->lim.max_bytes = get_u64(r);
	pp->def = get_strv(r, &pp->n_def);
}

static void get_binds_and_rules(struct rbuf *r, struct policy *p)
{
	p->binds = get_array(r, &p->n_binds, sizeof(*p->binds));
	for (size_t i = 0; p->binds && i < p->n_binds; i++) {
		p->binds[i].path = get_str(r);
		p->binds[i].exec = get_bool(r);
	}
	p->usr_symlinks = get_bool(r);
	p->work_dir = get_str(r);
	p->writable_exec = get_bool(r);
	p->request_exec = get_bool(r);
	p->hide = get_strv(r, &p->n_hide);
	p->read_only = get_strv(r, &p->n_read_only);
	p->hostname = get_str(r);
	p->mount_rules = get_array(r, &p->n_mount_rules, sizeof(*p->mount_rules));
	for (size_t i = 0; p->mount_rules && i < p->n_mount_rules; i++) {
		p->mount_rules[i].prefix = get_str(r);
		p->mount_rules[i].ro = get_bool(r);
		p->mount_rules[i].rw = get_bool(r);
		p->mount_rules[i].overlay = get_bool(r);
	}
}

static void get_rest(struct rbuf *r, struct policy *p)
{
	p->files_max_count = get_u64(r);
	p->files_max_bytes = get_u64(r);
	p->collect_max_count = get_u64(r);
	p->collect_max_bytes = get_u64(r);
	p->net_default = (enum net_mode)get_max(r, NET_MODES - 1);
	for (size_t i = 0; i < NET_MODES; i++)
		p->net_allowed[i] = get_bool(r);
	get_proxy(r, &p->proxy);
	p->env_set = get_strv(r, &p->n_env_set);
	p->env_allow = get_strv(r, &p->n_env_allow);
	p->env_allow_prefixes = get_strv(r, &p->n_env_allow_prefixes);
	p->env_allow_any = get_bool(r);
	p->seccomp_mode = (enum seccomp_mode)get_max(r, SECCOMP_ALLOW_LIST);
	p->syscalls = get_strv(r, &p->n_syscalls);
	p->allow_ptrace = get_bool(r);
	p->landlock = (enum landlock_mode)get_max(r, LANDLOCK_REQUIRED);
	p->uid = (uint32_t)get_max(r, UINT32_MAX);
	p->gid = (uint32_t)get_max(r, UINT32_MAX);
	p->requires = (unsigned)get_max(r, UINT32_MAX);
	p->partial_output = get_bool(r);
	p->overflow_truncate = get_bool(r);
	p->canonical = get_str(r);
}

/* A policy that does not allow "proxy" has the section's defaults, which
 * its canonical form leaves out: anything else is not a policy we wrote. */
static bool proxy_unused_is_default(const struct policy *p)
{
	struct policy_proxy d;

	if (p->net_allowed[NET_PROXY])
		return true;
	policy_proxy_init(&d);
	return p->proxy.lim.n_allow == 0 && p->proxy.n_def == 0 &&
	       p->proxy.lim.allow_private == d.lim.allow_private &&
	       p->proxy.lim.max_connections == d.lim.max_connections &&
	       p->proxy.lim.max_header_bytes == d.lim.max_header_bytes &&
	       p->proxy.lim.idle_ms == d.lim.idle_ms && p->proxy.lim.max_bytes == d.lim.max_bytes;
}

static bool strv_whole(char *const *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!v[i])
			return false;
	return true;
}

/* What a parsed policy always has, and the canonical renderer counts
 * on: no NULL where a string belongs, "NAME=value" in env_set, no
 * requirement bit beyond the known ones. */
static bool strings_whole(const struct policy *p)
{
	if (p->requires & ~(REQ_LANDLOCK_SCOPING * 2u - 1) || !proxy_unused_is_default(p))
		return false;
	for (size_t i = 0; i < p->n_env_set; i++)
		if (!p->env_set[i] || !strchr(p->env_set[i], '='))
			return false;
	for (size_t i = 0; i < p->n_binds; i++)
		if (!p->binds[i].path)
			return false;
	for (size_t i = 0; i < p->n_mount_rules; i++)
		if (!p->mount_rules[i].prefix)
			return false;
	return p->name && p->description && p->work_dir && p->hostname && p->canonical &&
	       strv_whole(p->env_set, p->n_env_set) && strv_whole(p->env_allow, p->n_env_allow) &&
	       strv_whole(p->env_allow_prefixes, p->n_env_allow_prefixes) &&
	       strv_whole(p->syscalls, p->n_syscalls) &&
	       strv_whole(p->proxy.lim.allow, p->proxy.lim.n_allow) &&
	       strv_whole(p->proxy.def, p->proxy.n_def) && strv_whole(p->hide, p->n_hide) &&
	       strv_whole(p->read_only, p->n_read_only);
}

/* The seal at the end is the SHA-256 of every byte before it: false for
 * bytes that are not whole as policy_blob_encode wrote them. */
static bool sealed(const uint8_t *b, size_t len)
{
	struct sha256_ctx ctx;
	uint8_t seal[SHA256_DIGEST_SIZE];

	if (len < sizeof(seal))
		return false;
	sha256_init(&ctx);
	sha256_update(&ctx, len - sizeof(seal), b);
	sha256_digest(&ctx, sizeof(seal), seal);
	return memcmp(seal, b + len - sizeof(seal), sizeof(seal)) == 0;
}

int policy_blob_decode(const uint8_t *b, size_t len, struct policy *ret)
{
	struct rbuf r = { .b = b, .len = len - SHA256_DIGEST_SIZE };
	struct policy p = { 0 };

	/* The seal, not a new rendering of the canonical form (a third of
	 * a cached run's policy step): bytes changed after encode are refused
	 * whichever field they touch, the name included. */
	if (!sealed(b, len))
		return -EBADMSG;
	if (get_u64(&r) != BLOB_VERSION)
		return -EBADMSG;
	p.name = get_str(&r);
	p.description = get_str(&r);
	for (size_t i = 0; i < LIM_COUNT; i++) {
		p.limits[i].def = get_u64(&r);
		p.limits[i].max = get_u64(&r);
	}
	get_binds_and_rules(&r, &p);
	get_rest(&r, &p);
	if (r.off != r.len)
		r.bad = true;
	/* Every string a parsed policy has, which the canonical form and the
	 * rest of the frontend count on. */
	if (!r.oom && !strings_whole(&p))
		r.bad = true;
	if (r.bad || r.oom) {
		policy_free(&p);
		return r.oom && !r.bad ? -ENOMEM : -EBADMSG;
	}
	*ret = p;
	return 0;
}
