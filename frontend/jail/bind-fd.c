/* bind-fd.c: see bind-fd.h. Frontend only. */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "jail/bind-fd.h"
#include "jail/bind-source.h"

/* What the open mode says the client proved: read access always (an
 * O_RDONLY open of a directory needs it); write access to a file only
 * when open for writing. A directory is never open for writing, so what
 * a rw bind may do in it is the authority rule's to settle. */
static const char *open_mode_refusal(int fd, bool rw, const struct statx *stx)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return "is not an open descriptor";
	if (fl & O_PATH)
		return "is an O_PATH descriptor, which proves no access: open it for reading";
	if ((fl & O_ACCMODE) == O_WRONLY)
		return "is open write-only: open it for reading";
	if (rw && S_ISREG(stx->stx_mode) && (fl & O_ACCMODE) != O_RDWR)
		return "is a file open read-only; a rw bind of a file needs it open read-write";
	return NULL;
}

/* The path fd is at here, canonical, naming the same file; or why not.
 * Usually through the same mount; through another when fd comes from
 * another mount namespace (a client outside the mount namespace systemd
 * gives a hardened service), which the helper then binds the file from,
 * as the kernel clones no mount of another namespace. */
static const char *find_path(int fd, const struct statx *stx, char *ret_path)
{
	char link[PATH_MAX], proc[40];
	struct statx at;
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, link, sizeof(link) - 1);
	if (n <= 0 || n >= (ssize_t)sizeof(link) - 1)
		return "has no path the server can see";
	link[n] = '\0';
	/* "/x (deleted)", "socket:[..]" and paths of another mount namespace
	 * are not found again as this very file on this very mount. */
	if (link[0] != '/' || !realpath(link, ret_path))
		return "has no path the server can see (deleted, or in another mount namespace)";
	if (statx(AT_FDCWD, ret_path, AT_SYMLINK_NOFOLLOW, STATX_INO, &at) < 0 ||
	    at.stx_ino != stx->stx_ino || at.stx_dev_major != stx->stx_dev_major ||
	    at.stx_dev_minor != stx->stx_dev_minor)
		return "has no path the server can see (deleted, or in another mount namespace)";
	return NULL;
}

/* Writing is where a jail could act with more than the client's
 * authority: a root server's rw bind is idmapped so that the jail acts
 * as the source's owner (chmod, every file of that owner beneath it), and
 * an unprivileged server's jail writes as the server's user. Either way
 * the source must be the client's own (or the client root): then the
 * jail acts as the client, or as a server user the client's own
 * permissions on its directory let in. */
static const char *authority_refusal(bool rw, uid_t peer_uid, const struct statx *stx)
{
	if (peer_uid == 0 || !rw)
		return NULL;
	if (peer_uid == (uid_t)-1)
		return "comes from a client whose user cannot be told; a rw bind needs the "
		       "client's own directory or file";
	if (stx->stx_uid != peer_uid)
		return "is not owned by the client; a rw bind needs the client's own directory "
		       "or file";
	return NULL;
}

/* What every passed source is checked for first: open, and of a type
 * a bind may have. */
static const char *source_refusal(int fd, struct statx *stx)
{
	if (statx(fd, "", AT_EMPTY_PATH, STATX_TYPE | STATX_INO | STATX_UID | STATX_MNT_ID,
		  stx) < 0)
		return "is not an open descriptor";
	return bind_source_type_refusal(stx);
}

const char *bind_fd_refusal(int fd, bool rw, uid_t peer_uid, char *ret_path)
{
	struct statvfs vfs;
	struct statx stx;
	const char *why;

	if ((why = source_refusal(fd, &stx)))
		return why;
	if ((why = open_mode_refusal(fd, rw, &stx)) || (why = authority_refusal(rw, peer_uid, &stx)))
		return why;
	/* Read-only where the client has it stays so, whichever mount of the
	 * file the helper binds. */
	if (rw && (fstatvfs(fd, &vfs) < 0 || (vfs.f_flag & ST_RDONLY)))
		return "is on a read-only mount";
	return find_path(fd, &stx, ret_path);
}

const char *bind_fd_overlay_refusal(int fd, uid_t peer_uid, char *ret_path)
{
	struct statx stx;
	const char *why;

	if ((why = source_refusal(fd, &stx)))
		return why;
	if (!S_ISDIR(stx.stx_mode))
		return "is not a directory; an overlay's source must be a directory";
	if ((why = open_mode_refusal(fd, false, &stx)))
		return why;
	if (peer_uid == (uid_t)-1)
		return "comes from a client whose user cannot be told; an overlay needs the "
		       "client's own directory";
	if (peer_uid != 0 && stx.stx_uid != peer_uid)
		return "is not owned by the client; an overlay needs the client's own directory";
	return find_path(fd, &stx, ret_path);
}
