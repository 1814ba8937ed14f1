/* masks-links.c: a mask covers a path, not an inode: a hidden file's
 * other hard links in the bound trees would show its contents under
 * another name. The walk notes the inode of every hidden regular file
 * with more than one link (and of those inside a hidden directory, which
 * it walks for that alone); when any was noted, masks.c walks the binds
 * a second time, within the same bounds, and hides each other name of
 * those inodes (see masks-internal.h). Links made on the host after the
 * plan, and names outside the request's binds (the jail cannot reach
 * them), are not looked for. Frontend only. */
#include "config.h"

#include <stdlib.h>

#include "jail/masks-internal.h"

static bool multi_linked(const struct stat *st)
{
	return S_ISREG(st->st_mode) && st->st_nlink > 1;
}

static bool known(const struct walk *w, const struct stat *st)
{
	for (size_t i = 0; i < w->n_inodes; i++)
		if (w->inodes[i].dev == st->st_dev && w->inodes[i].ino == st->st_ino)
			return true;
	return false;
}

void masks_links_note(struct walk *w, const struct stat *st)
{
	if (!multi_linked(st) || known(w, st))
		return;
	if (w->n_inodes >= MASKS_MAX_INODES) {
		/* its other names stay visible: counted as the count bound */
		w->p->masks_report.left_out++;
		return;
	}
	w->inodes[w->n_inodes].dev = st->st_dev;
	w->inodes[w->n_inodes].ino = st->st_ino;
	w->n_inodes++;
}

bool masks_links_is_hidden(const struct walk *w, const struct stat *st)
{
	return multi_linked(st) && known(w, st);
}
