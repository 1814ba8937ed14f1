/* policy-extends.c: "extends" (see policy-extends.h and hutch-policy(5)).
 * The chain is read child first; then, from the base down, each level is
 * merged into a copy of the tree below it and the result handed to
 * policy_parse(). A list of origins says which level supplied each member
 * of the merged tree and where it is in that level's file, so a
 * validator's pointer can be turned back into a file and a pointer in it.
 * Parents are read as policy.c reads a policy: a regular file of bounded
 * size, never echoed. Frontend only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cleanup.h"
#include "fd-util.h"
#include "doc/json-util.h"
#include "doc/policy-extends.h"

#define INVALID HUTCH_ERR_POLICY_INVALID

/* The lists an administrator grows: in a policy with extends, each may be
 * {"append": [...]}, added after the parent's list. */
static const char *const appendable[] = { "/filesystem/binds", "/mounts", "/env/allow",
					  "/env/allow_prefixes", "/filesystem/hide",
					  "/filesystem/read_only", NULL };

struct level {
	struct json_object *root;	/* the file as parsed */
	const char *shown;		/* its path (interned: errors outlive the chain) */
	dev_t dev;
	ino_t ino;
	int dir_index;
	char name[POLICY_NAME_MAX + 1];	/* found by this name; "" by path */
};

/* The member at ptr of the merged tree came from level; in that level's
 * file it is at fptr (they differ only below an appended element). */
struct origin {
	char ptr[VERROR_POINTER_MAX];
	char fptr[VERROR_POINTER_MAX];
	size_t level;
};

struct chain {
	struct level lv[POLICY_CHAIN_MAX];	/* [0] the policy, [n-1] the base */
	size_t n;
	struct origin *orig;
	size_t n_orig, cap_orig;
	struct verrors *e;
	bool oom;
};

static const char *intern_or(const char *s, const char *fallback)
{
	const char *r = verror_intern(s);

	return r ? r : fallback;
}

static void set_file(struct verrors *e, size_t from, const char *file)
{
	for (size_t i = from; i < e->n; i++)
		if (!e->items[i].file)
			e->items[i].file = file;
}

/* An error at ptr in level lv's file. */
static int add_in(struct chain *c, size_t lv, const char *ptr, const char *reason)
{
	size_t before = c->e->n;

	verror_add(c->e, INVALID, ptr, reason);
	set_file(c->e, before, c->lv[lv].shown);
	return -EINVAL;
}

/* ---- the reasons for a policy that is not there ---- */

static const char *searched_reason(const char *name, size_t start)
{
	const char *const *dirs = policy_search_dirs();
	char buf[2048];
	size_t n, k = 0;

	n = (size_t)snprintf(buf, sizeof(buf), "no such policy %s (searched ", name);
	for (size_t i = start; dirs[i] && n < sizeof(buf); i++, k++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", k ? ", " : "", dirs[i]);
	if (n < sizeof(buf))
		snprintf(buf + n, sizeof(buf) - n, "%s; hutch policy list shows the installed ones)",
			 k ? "" : "no directory after this file's");
	return intern_or(buf, "no such policy (hutch policy list shows the installed ones)");
}

const char *policy_missing_reason(const char *name_or_path)
{
	char buf[PATH_MAX + 32];
	size_t n;

	if (strchr(name_or_path, '/')) {
		n = (size_t)snprintf(buf, sizeof(buf), "no such policy file %s", name_or_path);
		/* The caller's own argument, but never a control byte on a terminal. */
		for (size_t i = 0; i < n && i < sizeof(buf); i++)
			if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
				buf[i] = '?';
		return intern_or(buf, "no such policy file");
	}
	if (!policy_name_valid(name_or_path))
		return "not a policy name (1-64 of a-z, 0-9, '-' and '_'); name a policy file "
		       "with a slash, as ./FILE";
	return searched_reason(name_or_path, 0);
}

/* ---- reading the chain ---- */

/* Open and read a policy file as policy.c's loader does: a regular file of
 * at most POLICY_MAX_BYTES, opened without blocking (a FIFO is refused,
 * not waited on). -ENOENT with *why NULL when it is not there. */
static int read_file(int dir_fd, const char *path, char **ret_text, size_t *ret_len,
		     struct stat *ret_st, const char **ret_why)
{
	_cleanup_close_ int fd = openat(dir_fd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	int r;

	*ret_why = NULL;
	if (fd < 0) {
		r = -errno;
		if (r != -ENOENT)
			*ret_why = r == -EACCES ? "cannot be read: permission denied" : "cannot be opened";
		return r;
	}
	if (fstat(fd, ret_st) < 0 || !S_ISREG(ret_st->st_mode)) {
		*ret_why = "not a regular file";
		return -EINVAL;
	}
	r = fd_slurp(fd, POLICY_MAX_BYTES, ret_text, ret_len);
	if (r < 0)
		*ret_why = r == -EFBIG ? "larger than 256 KiB" : "cannot be read";
	return r;
}

/* The parent named by `ext` (a name) into *lv: searched like any policy,
 * except that a policy extending its own name continues the search after
 * its own directory (an admin's default.json can extend the shipped one). */
static int find_by_name(struct chain *c, const char *ext, struct level *ret_lv, char **ret_text,
			size_t *ret_len, struct stat *ret_st)
{
	const struct level *cur = &c->lv[c->n - 1];
	const char *const *dirs = policy_search_dirs();
	size_t start = cur->name[0] && strcmp(cur->name, ext) == 0 ? (size_t)cur->dir_index + 1 : 0;
	char file[POLICY_NAME_MAX + 8], shown[PATH_MAX];
	const char *why;

	snprintf(file, sizeof(file), "%s.json", ext);
	for (size_t i = 0; dirs[i]; i++) {
		_cleanup_close_ int dir_fd = -1;
		int r;

		if (i < start || (dir_fd = open(dirs[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
			continue;
		r = read_file(dir_fd, file, ret_text, ret_len, ret_st, &why);
		if (r == -ENOENT)
			continue;
		if (r < 0)
			return add_in(c, c->n - 1, "/extends", why);
		snprintf(shown, sizeof(shown), "%s/%s", dirs[i], file);
		ret_lv->shown = intern_or(shown, "a parent policy");
		ret_lv->dir_index = (int)i;
		snprintf(ret_lv->name, sizeof(ret_lv->name), "%s", ext);
		return 0;
	}
	return add_in(c, c->n - 1, "/extends", searched_reason(ext, start));
}

/* The parent at path `ext`: absolute, or relative to the directory of the
 * file that names it (not to the caller's working directory). */
static int find_by_path(struct chain *c, const char *ext, struct level *ret_lv, char **ret_text,
			size_t *ret_len, struct stat *ret_st)
{
	const char *cur = c->lv[c->n - 1].shown, *slash = strrchr(cur, '/');
	char full[PATH_MAX], real[PATH_MAX];
	const char *why;
	int n, r;

	if (ext[0] == '/')
		n = snprintf(full, sizeof(full), "%s", ext);
	else if (slash)
		n = snprintf(full, sizeof(full), "%.*s/%s", (int)(slash - cur), cur, ext);
	else
		n = snprintf(full, sizeof(full), "./%s", ext);
	if (n < 0 || (size_t)n >= sizeof(full))
		return add_in(c, c->n - 1, "/extends", "path too long");
	r = read_file(AT_FDCWD, full, ret_text, ret_len, ret_st, &why);
	if (r < 0)
		return add_in(c, c->n - 1, "/extends",
			      why ? why : "no such file (a relative path is taken from the "
					  "directory of the file that names it)");
	ret_lv->shown = intern_or(realpath(full, real) ? real : full, "a parent policy");
	ret_lv->dir_index = -1;
	return 0;
}

/* "a -> b -> a": the chain so far and the file that closes the cycle. */
static const char *cycle_reason(const struct chain *c, const char *again)
{
	char buf[4096];
	size_t n = (size_t)snprintf(buf, sizeof(buf), "extends makes a cycle: ");

	for (size_t i = 0; i < c->n && n < sizeof(buf); i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s -> ", c->lv[i].shown);
	if (n < sizeof(buf))
		snprintf(buf + n, sizeof(buf) - n, "%s", again);
	return intern_or(buf, "extends makes a cycle");
}

/* The "extends" of the last level read, as text, or NULL (recorded). */
static const char *extends_value(struct chain *c, struct json_object *v)
{
	size_t n = json_object_is_type(v, json_type_string) ? strlen(json_object_get_string(v)) : 0;

	if (n == 0 || n >= PATH_MAX || !json_string_is_clean(v)) {
		add_in(c, c->n - 1, "/extends", "must be a policy name or a path with a slash");
		return NULL;
	}
	return json_object_get_string(v);
}

/* Read the parent of the last level into the next slot. */
static int read_parent(struct chain *c, const char *ext)
{
	struct level *lv = &c->lv[c->n];
	_cleanup_free_ char *text = NULL;
	size_t len = 0, before;
	struct stat st;
	int r;

	*lv = (struct level){ 0 };
	if (strchr(ext, '/'))
		r = find_by_path(c, ext, lv, &text, &len, &st);
	else if (policy_name_valid(ext))
		r = find_by_name(c, ext, lv, &text, &len, &st);
	else
		r = add_in(c, c->n - 1, "/extends", "must be a policy name or a path with a slash");
	if (r < 0)
		return r;
	for (size_t i = 0; i < c->n; i++)
		if (c->lv[i].dev == st.st_dev && c->lv[i].ino == st.st_ino)
			return add_in(c, c->n - 1, "/extends", cycle_reason(c, lv->shown));
	lv->dev = st.st_dev;
	lv->ino = st.st_ino;
	before = c->e->n;
	r = json_parse_strict(text, len, INVALID, c->e, &lv->root);
	set_file(c->e, before, lv->shown);
	if (r < 0)
		return r;
	c->n++;
	return 0;
}

static int read_chain(struct chain *c)
{
	struct json_object *v;
	const char *ext;
	int r;

	while (json_object_object_get_ex(c->lv[c->n - 1].root, "extends", &v)) {
		if (!(ext = extends_value(c, v)))
			return -EINVAL;
		if (c->n == POLICY_CHAIN_MAX)
			return add_in(c, c->n - 1, "/extends",
				      "the chain is longer than 8 policy files");
		if ((r = read_parent(c, ext)) < 0)
			return r;
	}
	return 0;
}

/* ---- origins ---- */

/* p is prefix itself or a member below it. */
static bool ptr_under(const char *p, const char *prefix)
{
	size_t n = strlen(prefix);

	return strncmp(p, prefix, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

static void origin_add(struct chain *c, const char *ptr, const char *fptr, size_t level)
{
	struct origin *o;

	if (c->n_orig == c->cap_orig) {
		size_t cap = c->cap_orig ? 2 * c->cap_orig : 32;

		if (!(o = realloc(c->orig, cap * sizeof(*o)))) {
			c->oom = true;
			return;
		}
		c->orig = o;
		c->cap_orig = cap;
	}
	o = &c->orig[c->n_orig++];
	snprintf(o->ptr, sizeof(o->ptr), "%s", ptr);
	snprintf(o->fptr, sizeof(o->fptr), "%s", fptr);
	o->level = level;
}

/* A member replaced whole: what was recorded below it is gone. */
static void origin_replace(struct chain *c, const char *ptr, size_t level)
{
	size_t k = 0;

	for (size_t i = 0; i < c->n_orig; i++)
		if (!ptr_under(c->orig[i].ptr, ptr))
			c->orig[k++] = c->orig[i];
	c->n_orig = k;
	origin_add(c, ptr, ptr, level);
}

/* The most specific origin of ptr, and ptr in its file (into fptr). */
static const struct origin *origin_of(const struct chain *c, const char *ptr, char *fptr,
				      size_t cap)
{
	const struct origin *best = NULL;

	for (size_t i = 0; i < c->n_orig; i++)
		if (ptr_under(ptr, c->orig[i].ptr) &&
		    (!best || strlen(c->orig[i].ptr) > strlen(best->ptr)))
			best = &c->orig[i];
	if (best)
		snprintf(fptr, cap, "%s%s", best->fptr, ptr + strlen(best->ptr));
	return best;
}

/* ---- merging ---- */

static bool is_appendable(const char *ptr)
{
	for (size_t i = 0; appendable[i]; i++)
		if (strcmp(ptr, appendable[i]) == 0)
			return true;
	return false;
}

/* {"append": [...]} at ptr: the parent's list, then these. The parent's
 * elements keep their files; the list itself is now also this level's. */
static void append_list(struct chain *c, struct json_object *list, struct json_object *src,
			const char *ptr, size_t level)
{
	static const char *const keys[] = { "append", NULL };
	struct json_object *add = NULL;
	size_t before = c->e->n, n0;
	char p[VERROR_POINTER_MAX], fp[VERROR_POINTER_MAX];

	json_check_keys(src, keys, INVALID, ptr, c->e);
	if (json_get_typed(src, "append", json_type_array, INVALID, ptr, c->e, &add) == 0)
		verror_add_key(c->e, INVALID, ptr, "append", "missing");
	set_file(c->e, before, c->lv[level].shown);
	if (c->e->n > before)
		return;
	if (!list || !json_object_is_type(list, json_type_array)) {
		add_in(c, level, ptr, "nothing to append to: the parent has no list here");
		return;
	}
	n0 = json_object_array_length(list);
	for (size_t i = 0; i < n0; i++) {
		const struct origin *o;

		pointer_join_index(p, sizeof(p), ptr, i);
		if ((o = origin_of(c, p, fp, sizeof(fp))))
			origin_add(c, p, fp, o->level);
	}
	origin_add(c, ptr, ptr, level);
	for (size_t j = 0; j < json_object_array_length(add); j++) {
		struct json_object *copy = NULL;
		char ap[VERROR_POINTER_MAX];

		if (json_object_deep_copy(json_object_array_get_idx(add, j), &copy, NULL) < 0 ||
		    json_object_array_add(list, copy) < 0) {
			json_object_put(copy);
			c->oom = true;
			return;
		}
		pointer_join_index(p, sizeof(p), ptr, n0 + j);
		pointer_join_key(ap, sizeof(ap), ptr, "append");
		pointer_join_index(fp, sizeof(fp), ap, j);
		origin_add(c, p, fp, level);
	}
}

/* Objects merge member by member; anything else replaces. Below the root
 * every member reached is an object member, so its pointer is the same
 * in the file and in the merged tree. */
static void merge_object(struct chain *c, struct json_object *dst, struct json_object *src,
			 const char *ptr, size_t level)
{
	json_object_object_foreach(src, key, val) {
		struct json_object *old = NULL, *copy = NULL;
		char child[VERROR_POINTER_MAX];

		if (ptr[0] == '\0' && strcmp(key, "extends") == 0)
			continue;
		pointer_join_key(child, sizeof(child), ptr, key);
		json_object_object_get_ex(dst, key, &old);
		if (is_appendable(child) && json_object_is_type(val, json_type_object)) {
			append_list(c, old, val, child, level);
		} else if (json_object_is_type(old, json_type_object) &&
			   json_object_is_type(val, json_type_object)) {
			merge_object(c, old, val, child, level);
		} else if (json_object_deep_copy(val, &copy, NULL) < 0 ||
			   json_object_object_add(dst, key, copy) < 0) {
			json_object_put(copy);
			c->oom = true;
		} else {
			origin_replace(c, child, level);
		}
	}
}

/* ---- validating each level ---- */

/* A validator's error: into the file and pointer that supplied the
 * member; when that is a parent, which file's changes made it wrong. */
static void attribute(struct chain *c, struct verror *v, size_t level)
{
	char fptr[VERROR_POINTER_MAX], why[1024];
	const struct origin *o = origin_of(c, v->pointer, fptr, sizeof(fptr));

	v->file = c->lv[level].shown;
	if (!o)
		return;
	snprintf(v->pointer, sizeof(v->pointer), "%s", fptr);
	v->file = c->lv[o->level].shown;
	if (o->level != level) {
		snprintf(why, sizeof(why), "%s, once %s extends it", v->reason, c->lv[level].shown);
		v->reason = intern_or(why, v->reason);
	}
}

static int validate(struct chain *c, struct json_object *merged, size_t level,
		    const char *name, struct policy *ret)
{
	const char *text = json_object_to_json_string_ext(merged, JSON_C_TO_STRING_PLAIN |
								  JSON_C_TO_STRING_NOSLASHESCAPE);
	size_t before = c->e->n;
	int r;

	if (!text)
		return add_in(c, level, "", "out of memory");
	r = policy_parse(text, strlen(text), name, ret, c->e);
	for (size_t i = before; i < c->e->n; i++)
		attribute(c, &c->e->items[i], level);
	return r;
}

/* From the base down: merge the next level, validate, and keep the last. */
static int resolve_levels(struct chain *c, const char *name, struct policy *ret)
{
	_cleanup_json_ struct json_object *merged = NULL;
	size_t base = c->n - 1;
	int r = -EINVAL;

	if (json_object_deep_copy(c->lv[base].root, &merged, NULL) < 0)
		return add_in(c, base, "", "out of memory");
	origin_replace(c, "", base);
	for (size_t i = base + 1; i-- > 0;) {
		struct policy p = { 0 };
		size_t before = c->e->n;

		if (i != base)
			merge_object(c, merged, c->lv[i].root, "", i);
		if (c->oom)
			return add_in(c, i, "", "out of memory");
		if (c->e->n > before)
			return -EINVAL;
		r = validate(c, merged, i, name, &p);
		if (r < 0)
			return r;
		if (i == 0)
			*ret = p;
		else
			policy_free(&p);
	}
	return r;
}

int policy_resolve(const char *text, size_t len, const char *name,
		   const struct policy_source *src, struct policy *ret, struct verrors *e)
{
	struct chain c = { .e = e };
	const char *shown = intern_or(src->shown ? src->shown : "policy", "the policy file");
	struct json_object *root = NULL;
	size_t before = e->n;
	int r;

	r = json_parse_strict(text, len, INVALID, e, &root);
	if (r == 0 && !json_object_object_get_ex(root, "extends", NULL))
		r = policy_parse_tree(root, name, ret, e);	/* parsed once */
	if (r < 0 || !json_object_object_get_ex(root, "extends", NULL)) {
		json_object_put(root);
		set_file(e, before, shown);
		return r;
	}
	c.lv[0] = (struct level){ .root = root, .shown = shown, .dev = src->dev,
				  .ino = src->ino, .dir_index = src->dir_index };
	if (src->dir_index >= 0)
		snprintf(c.lv[0].name, sizeof(c.lv[0].name), "%s", name);
	c.n = 1;
	r = read_chain(&c);
	if (r == 0)
		r = resolve_levels(&c, name, ret);
	for (size_t i = 0; i < c.n; i++)
		json_object_put(c.lv[i].root);
	free(c.orig);
	return r;
}
