/* masks.c: resolve hide and read_only patterns and --hide paths into the
 * plan's masks (see masks.h). A protected path inside a writable bind
 * also pins each of its parents below the bind's root: the helper makes
 * them mount points, which cannot be renamed or removed, so that the
 * protected path cannot be moved aside and recreated (helper/masks.c).
 * Frontend only. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cleanup.h"
#include "spec.h"
#include "doc/mask-pattern.h"
#include "doc/path-util.h"
#include "jail/masks-internal.h"
#include "jail/masks.h"

#define BAD HUTCH_ERR_INVALID_REQUEST

static bool any_match(char *const *pats, size_t n, const char *path)
{
	for (size_t i = 0; i < n; i++)
		if (mask_pattern_match(pats[i], path))
			return true;
	return false;
}

static bool have(const struct plan *p, const char *target, enum plan_mask_kind kind)
{
	for (size_t i = 0; i < p->n_masks; i++)
		if (p->masks[i].kind == kind && strcmp(p->masks[i].target, target) == 0)
			return true;
	return false;
}

/* Appends (room was checked); -ENOMEM. */
static int add(struct plan *p, const char *target, size_t len, enum plan_mask_kind kind)
{
	struct plan_mask *m = &p->masks[p->n_masks];

	m->target = strndup(target, len);
	if (!m->target)
		return -ENOMEM;
	m->kind = kind;
	p->n_masks++;
	if (kind == MASK_HIDE)
		p->masks_report.hidden++;
	else if (kind == MASK_READ_ONLY)
		p->masks_report.read_only++;
	else
		p->masks_report.pinned++;
	return 0;
}

int masks_hide(struct plan *p, const char *target)
{
	if (have(p, target, MASK_HIDE))
		return 0;
	if (p->n_masks >= MASKS_MAX) {
		p->masks_report.left_out++;
		return 0;
	}
	return add(p, target, strlen(target), MASK_HIDE);
}

/* The parents of target strictly below root not yet pinned: counted
 * into *need or, need NULL, pinned. */
static int unpinned_parents(struct plan *p, const char *target, size_t root_len, size_t *need)
{
	size_t len = strlen(target);
	int r;

	for (size_t i = root_len + 1; i < len; i++) {
		_cleanup_free_ char *parent = NULL;

		if (target[i] != '/')
			continue;
		parent = strndup(target, i);
		if (!parent)
			return -ENOMEM;
		if (have(p, parent, MASK_PIN))
			continue;
		if (need)
			(*need)++;
		else if ((r = add(p, parent, i, MASK_PIN)) < 0)
			return r;
	}
	return 0;
}

/* target read-only, and its parents strictly below root pinned: all of
 * them or, when they do not fit, none (a read-only path whose parent can
 * be renamed aside protects nothing). */
int masks_protect(struct plan *p, const char *target, size_t root_len)
{
	size_t need = 1;
	int r;

	if (have(p, target, MASK_READ_ONLY))
		return 0;
	r = unpinned_parents(p, target, root_len, &need);
	if (r < 0)
		return r;
	if (p->n_masks + need > MASKS_MAX) {
		p->masks_report.left_out++;
		return 0;
	}
	r = unpinned_parents(p, target, root_len, NULL);
	if (r < 0)
		return r;
	return add(p, target, strlen(target), MASK_READ_ONLY);
}

/* A bind the jail may change: read_only patterns apply there. An overlay
 * never changes its source, but what the jail leaves in its upper layer
 * comes back as the change set, which a caller applies to the host. */
static bool writable(const struct plan_mount *m)
{
	return m->rw || m->overlay;
}

/* The bind's source, opened without following a link: a passed
 * descriptor's (serve) or the canonical path's. */
static int open_source(const struct plan_mount *m, int flags)
{
	if (m->by_fd)
		return openat(m->fd, ".", flags | O_CLOEXEC);
	return open(m->source, flags | O_NOFOLLOW | O_CLOEXEC);
}

/* Another request bind is mounted here: its own walk covers it. */
static bool other_bind(const struct walk *w, const char *path)
{
	for (size_t i = 0; i < w->p->n_mounts; i++)
		if (&w->p->mounts[i] != w->bind && strcmp(w->p->mounts[i].target, path) == 0)
			return true;
	return false;
}

enum enter { SKIP, ENTER, ENTER_HIDDEN, ENTER_RO };

static bool hidden_here(const struct walk *w)
{
	return any_match(w->pol->hide, w->pol->n_hide, w->path) ||
	       (w->req_hide && have(w->p, w->path, MASK_HIDE));
}

/* The second pass (masks-links.c): hide the other names of hidden
 * inodes; what is hidden already is not entered. */
static enum enter visit_links(struct walk *w, const struct stat *st, int *ret)
{
	uint64_t before = w->p->masks_report.hidden;

	if (hidden_here(w))
		return SKIP;
	if (masks_links_is_hidden(w, st)) {
		*ret = masks_hide(w->p, w->path);
		if (w->p->masks_report.hidden > before)
			w->p->masks_report.hard_links++;
		return SKIP;
	}
	return S_ISDIR(st->st_mode) ? ENTER : SKIP;
}

/* One entry at w->path: how to enter it, when a directory. */
static enum enter visit(struct walk *w, const struct stat *st, int *ret)
{
	const struct policy *pol = w->pol;
	bool is_link = S_ISLNK(st->st_mode), dir = S_ISDIR(st->st_mode);

	*ret = 0;
	if (w->pass == WALK_LINKS)
		return visit_links(w, st, ret);
	if (w->in_hidden || hidden_here(w)) {
		if (is_link && !w->in_hidden) {
			w->p->masks_report.links++;
			*ret = masks_refuse_hidden_link(w);
			return SKIP;
		}
		if (!is_link && !w->in_hidden)
			*ret = masks_hide(w->p, w->path);
		masks_links_note(w, st);
		/* below a hidden directory only the inodes matter */
		return dir && *ret == 0 ? ENTER_HIDDEN : SKIP;
	}
	if (!w->in_ro && writable(w->bind) &&
	    any_match(pol->read_only, pol->n_read_only, w->path)) {
		if (is_link) {
			w->p->masks_report.links++;
			*ret = masks_refuse_link(w);
			return SKIP;
		}
		if ((*ret = masks_protect(w->p, w->path, strlen(w->bind->target))) < 0)
			return SKIP;
		return dir && !is_link ? ENTER_RO : SKIP;
	}
	return dir ? (w->in_ro ? ENTER_RO : ENTER) : SKIP;
}

enum bound { BOUND_DEPTH, BOUND_ENTRIES, BOUND_LENGTH };

/* The walk reached a bound of its own (reached: the level, the count of
 * entries or the jail path's length in bytes): what lies beyond was never
 * looked at (or cannot be named in a mask), so a secret there would be
 * readable, and a job with a writable bind can plant 200,000 files, 33
 * levels of directories or long names for the next run. Refused before
 * anything runs, in the words of the count bound (too_many). */
static int past_bound(struct walk *w, enum bound bound, size_t reached)
{
	static const char *const reason[] = {
		[BOUND_DEPTH] = "a tree deeper than the walk for paths to hide or keep read-only "
				"(filesystem.hide, filesystem.read_only, hide) goes: what lies "
				"below would not be masked",
		[BOUND_ENTRIES] = "trees with more entries than the walk for paths to hide or keep "
				  "read-only (filesystem.hide, filesystem.read_only, hide) looks "
				  "at: what lies beyond would not be masked",
		[BOUND_LENGTH] = "a tree with a path longer than a mask can name (filesystem.hide, "
				 "filesystem.read_only, hide): it would not be masked",
	};

	verror_add_index(w->e, HUTCH_ERR_POLICY_VIOLATION, "/mounts", w->bind_index,
			 reason[bound]);
	switch (bound) {
	case BOUND_DEPTH:
		verror_given(w->e, "%zu levels", reached);
		verror_accept(w->e, "at most %u directory levels below a bind's root; bind a "
			      "narrower tree", MASKS_MAX_DEPTH);
		break;
	case BOUND_ENTRIES:
		verror_given(w->e, "%zu entries", reached);
		verror_accept(w->e, "at most %u directory entries in all binds together; bind a "
			      "narrower tree", MASKS_MAX_ENTRIES);
		break;
	case BOUND_LENGTH:
		verror_given(w->e, "%zu bytes", reached);
		verror_accept(w->e, "jail paths of at most %u bytes; bind a narrower tree or at a "
			      "shorter jail path", HUTCH_SPEC_MAX_PATH);
		break;
	}
	return -EINVAL;
}

static int walk_dir(struct walk *w, int dfd, unsigned depth);

/* The directory name in dfd, depth levels below the bind's root. */
static int enter_dir(struct walk *w, int dfd, const char *name, unsigned depth, enum enter how)
{
	bool in_hidden = w->in_hidden, in_ro = w->in_ro;
	int fd, r;

	if (depth > MASKS_MAX_DEPTH) {
		w->p->masks_report.depth_hit = true;
		return past_bound(w, BOUND_DEPTH, depth);
	}
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		w->p->masks_report.unreadable++;
		return 0;
	}
	w->in_hidden = in_hidden || how == ENTER_HIDDEN;
	w->in_ro = in_ro || how == ENTER_RO;
	r = walk_dir(w, fd, depth);
	w->in_hidden = in_hidden;
	w->in_ro = in_ro;
	return r;
}

static int walk_dir(struct walk *w, int dfd, unsigned depth)
{
	size_t base = strlen(w->path);
	DIR *d;
	struct dirent *de;
	int r = 0;

	if (w->pass == WALK_PATTERNS && !w->in_hidden && !w->in_ro && writable(w->bind) &&
	    w->pol->n_read_only && (r = masks_absent_dir(w, dfd)) < 0) {
		close(dfd);
		return r;
	}
	if (!(d = fdopendir(dfd))) {
		close(dfd);
		return errno == ENOMEM ? -ENOMEM : 0;
	}
	while (r == 0 && (de = readdir(d))) {
		struct stat st;
		enum enter how;

		if (w->cancel && atomic_load_explicit(w->cancel, memory_order_relaxed)) {
			r = -ECANCELED;
			break;
		}
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (++w->p->masks_report.visited > MASKS_MAX_ENTRIES) {
			w->p->masks_report.entries_hit = true;
			r = past_bound(w, BOUND_ENTRIES, (size_t)w->p->masks_report.visited);
			break;
		}
		if (base + 1 + strlen(de->d_name) >= sizeof(w->path)) {
			r = past_bound(w, BOUND_LENGTH, base + 1 + strlen(de->d_name));
			break;
		}
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0)
			continue;
		w->path[base] = '/';
		strcpy(w->path + base + 1, de->d_name);
		how = visit(w, &st, &r);
		if (how != SKIP && r == 0 && !other_bind(w, w->path))
			r = enter_dir(w, dirfd(d), de->d_name, depth + 1, how);
		w->path[base] = '\0';
	}
	closedir(d);
	return r;
}

static int walk_bind(struct walk *w)
{
	struct stat st;
	enum enter how;
	int fd, r = 0;

	w->in_hidden = w->in_ro = false;
	if (w->bind->by_fd && fstat(w->bind->fd, &st) == 0 && !S_ISDIR(st.st_mode)) {
		strcpy(w->path, w->bind->target);	/* a passed file: itself only */
		visit(w, &st, &r);
		return r;
	}
	fd = open_source(w->bind, O_RDONLY | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) < 0) {
		if (fd >= 0)
			close(fd);
		w->p->masks_report.unreadable++;
		return 0;
	}
	strcpy(w->path, w->bind->target);
	/* The bind's root itself: a read-only bind of a writable root needs
	 * no pin, the root is the bind's own mount point. */
	how = visit(w, &st, &r);
	if (how == SKIP || r != 0) {
		close(fd);
		return r;
	}
	w->in_hidden = how == ENTER_HIDDEN;
	w->in_ro = how == ENTER_RO;
	return walk_dir(w, fd, 0);
}

/* The request's "hide" path i: inside one of its binds, no link on the
 * way on the host. */
static int hide_path(struct plan *p, const char *path, size_t i, struct verrors *e)
{
	struct open_how how = {
		.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	const struct plan_mount *in = NULL;
	struct stat st;
	int dfd, fd;

	for (size_t k = 0; k < p->n_mounts; k++)
		if (path_at_or_below(path, p->mounts[k].target) &&
		    (!in || strlen(p->mounts[k].target) > strlen(in->target)))
			in = &p->mounts[k];
	if (!in) {
		verror_add_index(e, BAD, "/hide", i, "not inside a bind of the request");
		for (size_t k = 0; k < p->n_mounts; k++)
			verror_accept(e, "%s or a path below it", p->mounts[k].target);
		if (p->n_mounts == 0)
			verror_accept(e, "a path inside a --ro, --rw or --overlay bind");
		return -EINVAL;
	}
	if (strcmp(path, in->target) != 0) {
		dfd = open_source(in, O_PATH | O_DIRECTORY);
		fd = dfd < 0 ? -1
			     : (int)syscall(SYS_openat2, dfd, path + strlen(in->target) + 1, &how,
					    sizeof(how));
		/* O_PATH | O_NOFOLLOW opens a link at the end as itself */
		if (fd >= 0 && fstat(fd, &st) == 0 && S_ISLNK(st.st_mode)) {
			close(fd);
			fd = -1;
			errno = ELOOP;
		}
		if (fd < 0 && errno == ELOOP) {
			verror_add_index(e, BAD, "/hide", i, "a symbolic link on the host");
			verror_accept(e, "a file or directory reached without a link");
			close(dfd);
			return -EINVAL;
		}
		if (fd >= 0)
			close(fd);
		if (dfd >= 0)
			close(dfd);
		/* absent: hidden anyway, should it appear before the run */
	}
	return masks_hide(p, path);
}

/* Every bind, in one pass. */
static int walk_binds(struct walk *w, enum walk_pass pass)
{
	int r;

	w->pass = pass;
	for (size_t i = 0; i < w->p->n_mounts; i++) {
		w->bind = &w->p->mounts[i];
		w->bind_index = i;
		if ((r = walk_bind(w)) < 0)
			return r;
	}
	return 0;
}

/* A match the count bound left out is a secret found and left readable,
 * or a protected path left writable: it fails closed, as the depth and
 * entries bounds do (past_bound). A job with a writable bind could
 * otherwise plant decoys (97 .env files) so that the next run's real one
 * goes unmasked. */
static int too_many(const struct plan *p, struct verrors *e)
{
	verror_add(e, HUTCH_ERR_POLICY_VIOLATION, "/mounts",
		   "more paths to hide or keep read-only (filesystem.hide, filesystem.read_only, "
		   "hide) than a jail can mask");
	verror_given(e, "%llu matches", (unsigned long long)(p->masks_report.hidden +
							      p->masks_report.read_only +
							      p->masks_report.left_out));
	verror_accept(e, "at most %u masks, parents of read-only paths included; bind a "
		      "narrower tree", MASKS_MAX);
	return -EINVAL;
}

int masks_resolve(const struct request *req, const struct policy *pol, struct plan *p,
		  struct verrors *e)
{
	return masks_resolve_cancellable(req, pol, p, e, NULL);
}

int masks_resolve_cancellable(const struct request *req, const struct policy *pol,
			      struct plan *p, struct verrors *e, const atomic_bool *cancel)
{
	_cleanup_free_ struct masks_inode *inodes = NULL;
	struct walk w = { .pol = pol, .p = p, .e = e, .req_hide = req->n_hide > 0,
			  .cancel = cancel };
	uint64_t visited;
	int r = 0;

	if (p->n_mounts == 0 && req->n_hide == 0)
		return 0;
	if (req->n_hide == 0 && pol->n_hide == 0 && pol->n_read_only == 0)
		return 0;
	p->masks = calloc(MASKS_MAX + 1, sizeof(*p->masks));
	inodes = calloc(MASKS_MAX_INODES, sizeof(*inodes));
	if (!p->masks || !inodes)
		return -ENOMEM;
	w.inodes = inodes;
	p->masks_report.walked = true;
	for (size_t i = 0; i < req->n_hide; i++)
		if ((r = hide_path(p, req->hide[i], i, e)) < 0)
			return r;
	if ((r = walk_binds(&w, WALK_PATTERNS)) < 0)
		return r;
	if (w.n_inodes > 0) {
		/* Other names of hidden files (masks-links.c): the same trees
		 * within the same bounds, so the entries of the first pass are
		 * reported. */
		visited = p->masks_report.visited;
		p->masks_report.visited = 0;
		r = walk_binds(&w, WALK_LINKS);
		p->masks_report.visited = visited;
		if (r < 0)
			return r;
	}
	return p->masks_report.left_out ? too_many(p, e) : 0;
}
