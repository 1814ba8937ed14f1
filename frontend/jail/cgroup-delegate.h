/* cgroup-delegate.h: is a cgroup delegated to us, so that we may arrange
 * its subtree? systemd's system manager marks a Delegate=yes unit's cgroup
 * with the xattrs trusted.delegate and user.delegate; the user manager of
 * systemd 252 marks none of its units (only user@UID.service itself is
 * marked, by the system manager), so there the unit's own files say it:
 * the transient unit systemd-run --user wrote, or the unit file and its
 * drop-ins. Frontend only. */
#ifndef HUTCH_CGROUP_DELEGATE_H
#define HUTCH_CGROUP_DELEGATE_H

#include <stdbool.h>

/* dir carries systemd's delegation mark. */
bool cgroup_marked_delegated(const char *dir);

/* The unit text's Delegate= assignments applied to cur (0 no, 1 yes):
 * the last one wins; an empty value or a false boolean is no, true or a
 * list of controllers is yes. Pure code. */
int cgroup_unit_delegate(const char *text, int cur);

/* The unit UNIT ("run-u7.service") of this user's manager has
 * Delegate= true in its files (transient, ~/.config/systemd/user,
 * /etc/systemd/user, /usr/lib/systemd/user, with drop-ins). */
bool cgroup_user_unit_delegated(const char *unit);

#endif
