/* masks-internal.h: what jail/masks.c shares with the files that extend
 * its walk: masks-absent.c (protected paths that do not exist yet) and
 * masks-links.c (other host names of hidden files). Frontend only. */
#ifndef HUTCH_MASKS_INTERNAL_H
#define HUTCH_MASKS_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <sys/stat.h>

#include "spec.h"
#include "doc/plan.h"
#include "doc/policy.h"
#include "doc/verror.h"

#define MASKS_MAX_INODES 384u	/* hidden files with other links, all binds */

struct masks_inode {
	dev_t dev;
	ino_t ino;
};

enum walk_pass { WALK_PATTERNS, WALK_LINKS };

struct walk {
	const struct policy *pol;
	struct plan *p;
	struct verrors *e;
	const struct plan_mount *bind;	/* the bind being walked */
	size_t bind_index;		/* its index in p->mounts (and /mounts) */
	enum walk_pass pass;
	bool in_hidden;		/* below a hidden directory: its files' inodes only */
	bool in_ro;		/* below a protected directory: nothing to add */
	bool req_hide;		/* the request has --hide paths */
	struct masks_inode *inodes;	/* hidden regular files with st_nlink > 1 */
	size_t n_inodes;
	char path[HUTCH_SPEC_MAX_PATH + 1];	/* jail path of the entry */
	const atomic_bool *cancel;	/* stop at the next entry (run/offload.h) */
};

/* jail/masks.c: add a hidden path, or a protected one with its parents
 * below root_len pinned; 0 (also when the count bound left it out) or
 * -ENOMEM. */
int masks_hide(struct plan *p, const char *target);
int masks_protect(struct plan *p, const char *target, size_t root_len);
/* jail/masks-absent.c: -EINVAL with w->e filled, for a read-only path
 * that is a symbolic link in a writable bind. */
int masks_refuse_link(struct walk *w);
/* Likewise for a path the policy hides that is a symbolic link, in any
 * bind. */
int masks_refuse_hidden_link(struct walk *w);

/* masks-absent.c: the directory w->path (open as dfd) of a writable
 * bind: protect what the read_only patterns name there that does not
 * exist. 0, -ENOMEM, or -EINVAL with w->e filled for a --rw bind. */
int masks_absent_dir(struct walk *w, int dfd);

/* masks-links.c: note a hidden entry's inode (a regular file with other
 * links); in the WALK_LINKS pass, whether st is one of them. */
void masks_links_note(struct walk *w, const struct stat *st);
bool masks_links_is_hidden(const struct walk *w, const struct stat *st);

#endif
