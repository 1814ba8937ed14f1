/* bind-source.h: the rules every request bind's source obeys, whatever
 * its policy says (hutch-policy(5), "Request mounts"): a regular file or a
 * directory, never a socket, FIFO or device; not on a pseudo-filesystem
 * (proc, sysfs, devtmpfs, cgroupfs, debugfs, securityfs, tracefs and
 * kin) and with none mounted below it, since binds carry their submounts;
 * never reaching hutch's own cache of security decisions. Frontend only. */
#ifndef HUTCH_BIND_SOURCE_H
#define HUTCH_BIND_SOURCE_H

struct statx;

/* NULL when stx (with STATX_TYPE and STATX_MNT_ID asked) is of a regular
 * file or a directory whose mount the kernel names, else why not: the
 * type rules of bind_source_refusal(), which bind_fd_refusal() applies
 * to a descriptor too. */
const char *bind_source_type_refusal(const struct statx *stx);

/* NULL when the canonical host path real may be a bind source, else why
 * not (a fixed phrase for an error message). */
const char *bind_source_refusal(const char *real);

/* True for the type names of filesystems that are kernel interfaces
 * rather than data ("proc", "sysfs", ...). */
int bind_source_pseudo_fs(const char *fstype);

#endif
