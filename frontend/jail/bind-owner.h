/* bind-owner.h: whether a root caller may lend a --rw bind's ownership to
 * its jail. Such a bind is idmapped (hutch-exec(8)): the jail acts as the
 * source's owner on it. A source others share (sticky, or writable by its
 * group or by others, like /tmp and /var/tmp) would hand the jail its
 * owner's ownership over what others keep there: chmod of the shared
 * directory, the owner's private files in it, and, in a sticky directory,
 * renaming and removing anyone's. Refused with words; hutch-exec refuses
 * it again if one is swapped in after this check. Frontend only. */
#ifndef HUTCH_BIND_OWNER_H
#define HUTCH_BIND_OWNER_H

/* NULL when the canonical host path real may be lent, else why not (a
 * fixed phrase for an error message). */
const char *bind_owner_refusal(const char *real);

#endif
