/* bind-fd.h: the rules a descriptor a `hutch serve` client passed must
 * meet to be a bind's source (hutch-protocol(7), "DESCRIPTORS"), besides
 * those every bind source meets (bind-source.h) and the policy's prefix
 * rules, which apply to where the descriptor is found:
 *   - an open file, not O_PATH (which proves no access); a directory or a
 *     regular file open for reading; a read-write bind of a file needs
 *     it open read-write;
 *   - found at a path of this server's mount namespace that names the same
 *     file (not deleted; through the same mount unless the descriptor is
 *     of another mount namespace, which the helper then binds by path);
 *   - not asked rw when its own mount is read-only;
 *   - a read-write bind needs the client to own the source (or be root):
 *     a root server's rw bind is idmapped, the jail acting as the source's
 *     owner, and an unprivileged server's jail writes as the server's
 *     user; neither may be someone the client is not.
 * Frontend only. */
#ifndef HUTCH_BIND_FD_H
#define HUTCH_BIND_FD_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

/* NULL when fd may be the source of a bind (rw: read-write) for a client
 * of uid peer_uid, with the canonical path it was found at in
 * ret_path[PATH_MAX]; else why not (a fixed phrase). The policy's prefix
 * rules and bind_source_refusal() are the caller's to apply to it. */
const char *bind_fd_refusal(int fd, bool rw, uid_t peer_uid, char *ret_path);
/* The same for the lower layer of an overlay ("mode": "overlay"): a
 * directory open for reading, on any mount (nothing is written to it),
 * and, as for a rw bind, the client's own (or the client root): a root
 * server's overlay lower is idmapped, the jail reading it as the
 * directory's owner. */
const char *bind_fd_overlay_refusal(int fd, uid_t peer_uid, char *ret_path);

#endif
