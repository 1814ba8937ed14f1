/* masks-absent.c: read_only paths that do not exist when the jail is
 * planned (see masks-internal.h). A repository without .git/hooks is
 * where a planted hook would run on the host at the next commit: the
 * path a pattern names there must not be creatable in the jail.
 *
 * Which absent paths: at each directory D the walk enters in a writable
 * bind, a pattern split at a '/' into a prefix that matches D and a tail
 * of literal components (no glob) names D/tail, provided the prefix does
 * not end in "**": "**" alone says "anywhere", and a tree cannot be
 * protected against a new repository in every directory (hutch(1),
 * "Masks inside binds"). So "**" "/.git/hooks" names .git/hooks in each
 * existing .git directory, not a .git in every directory.
 *
 * What is done: the first component of the tail that does not exist
 * (hooks, or .git of .git/config in a D/.git that vanished) is protected
 * like an existing path. In an overlay the helper makes it an empty
 * directory in a lower layer of its own (helper/overlay.c), so the upper
 * layer and the change set never see it. A --rw bind is the host's own
 * tree: making the path there would write the host, and not making it
 * lets the jail make it, so the request is refused with what to do.
 * Also here, the other masks that cannot be held, refused alike: a
 * read_only or hide match that is a symbolic link.
 * Frontend only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "doc/mask-pattern.h"
#include "jail/masks-internal.h"

#define VIOLATION HUTCH_ERR_POLICY_VIOLATION

static bool literal(const char *s)
{
	return strpbrk(s, "*?[\\") == NULL;
}

/* The prefix's last component is "**" (or the prefix is empty: an
 * unanchored pattern's implicit leading "**"). */
static bool ends_in_stars(const char *pattern, size_t k)
{
	size_t start = k;

	while (start > 0 && pattern[start - 1] != '/')
		start--;
	return k == 0 || (k - start == 2 && pattern[start] == '*' && pattern[start + 1] == '*');
}

static int refuse(struct walk *w, const char *pattern)
{
	verror_add_index(w->e, VIOLATION, "/mounts", w->bind_index,
			 "a writable bind where a path the policy keeps read-only does not exist "
			 "(filesystem.read_only): the jail could create it on the host");
	verror_given(w->e, "rw");
	verror_accept(w->e, "overlay (copy-on-write: the path is held empty and read-only)");
	verror_accept(w->e, "ro");
	verror_accept(w->e, "rw once the host tree has what %s names (create it first)", pattern);
	return -EINVAL;
}

/* A read-only path that is a symbolic link in a writable bind: the walk
 * follows no link and a mount cannot be put on one, so what it points to
 * would stay writable (.git/hooks -> ../.githooks, a tracked directory:
 * a hook planted there runs on the host at the next commit, or once the
 * change set is applied). Refused, as an absent path in a --rw bind is. */
int masks_refuse_link(struct walk *w)
{
	verror_add_index(w->e, VIOLATION, "/mounts", w->bind_index,
			 "a writable bind where a path the policy keeps read-only "
			 "(filesystem.read_only) is a symbolic link: what it points to would stay "
			 "writable");
	verror_given(w->e, "%s", w->bind->overlay ? "overlay" : "rw");
	verror_accept(w->e, "ro");
	verror_accept(w->e, "rw or overlay once the host tree has, where a read_only pattern "
		      "matches, the directory or file itself instead of a link to it");
	return -EINVAL;
}

/* A path the policy hides that is a symbolic link (.env -> config/prod):
 * a mask cannot be put on a link, and reading it would read what it
 * points to, which no pattern names. Refused in any bind, as a --hide
 * path that is a link is (masks.c). */
int masks_refuse_hidden_link(struct walk *w)
{
	verror_add_index(w->e, VIOLATION, "/mounts", w->bind_index,
			 "a bind where a path the policy hides (filesystem.hide) is a symbolic "
			 "link: reading it would read what it points to");
	verror_accept(w->e, "a tree where, wherever a hide pattern matches, the file or "
		      "directory itself is instead of a link to it");
	return -EINVAL;
}

/* pattern at D = w->path: the absent first component of each literal
 * tail whose prefix matches D. */
static int one_pattern(struct walk *w, int dfd, const char *pattern)
{
	size_t len = strlen(pattern), base = strlen(w->path);
	char prefix[MASK_PATTERN_MAX + 1], first[MASK_PATTERN_MAX + 1];
	struct stat st;
	uint64_t before;
	int r;

	for (size_t k = 1; k < len; k++) {
		size_t n;

		if (pattern[k] != '/' || !literal(pattern + k + 1) || ends_in_stars(pattern, k))
			continue;
		memcpy(prefix, pattern, k);
		prefix[k] = '\0';
		if (!mask_pattern_match(prefix, w->path))
			continue;
		n = strcspn(pattern + k + 1, "/");
		memcpy(first, pattern + k + 1, n);
		first[n] = '\0';
		if (fstatat(dfd, first, &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT)
			continue;	/* there: the walk sees it (or it cannot be looked at) */
		if (!w->bind->overlay)
			return refuse(w, pattern);
		if (base + 1 + n >= sizeof(w->path))
			continue;
		w->path[base] = '/';
		strcpy(w->path + base + 1, first);
		before = w->p->masks_report.read_only;
		r = masks_protect(w->p, w->path, strlen(w->bind->target));
		if (w->p->masks_report.read_only > before)
			w->p->masks_report.absent++;
		w->path[base] = '\0';
		if (r < 0)
			return r;
	}
	return 0;
}

int masks_absent_dir(struct walk *w, int dfd)
{
	const struct policy *pol = w->pol;
	int r;

	for (size_t i = 0; i < pol->n_read_only; i++)
		if ((r = one_pattern(w, dfd, pol->read_only[i])) < 0)
			return r;
	return 0;
}
