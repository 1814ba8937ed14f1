/* bind-owner.c: see bind-owner.h. Frontend only. */
#include "config.h"

#include <fcntl.h>
#include <stddef.h>
#include <sys/stat.h>

#include "jail/bind-owner.h"

const char *bind_owner_refusal(const char *real)
{
	struct stat st;

	if (fstatat(AT_FDCWD, real, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return "cannot be examined";
	if (st.st_mode & S_ISVTX)
		return "is a sticky directory others share (as /tmp is): a root caller's jail "
		       "would act as its owner there; bind a directory below it that only its "
		       "owner may write";
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return "is writable by its group or by others: a root caller's jail would act as "
		       "its owner there; bind a source only its owner may write";
	return NULL;
}
