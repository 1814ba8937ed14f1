/* memfd-notify.h: the supervisor's answer to memfd_create from a jail: it
 * makes the memfd itself, sealed against exec, and installs it in the
 * caller (the filter sends only calls without MFD_NOEXEC_SEAL here, see
 * filter.c add_memfd_rules). Frontend only. */
#ifndef HUTCH_MEMFD_NOTIFY_H
#define HUTCH_MEMFD_NOTIFY_H

#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>

#include "jail/filter.h"

/* MFD_NOEXEC_SEAL and MFD_EXEC: jail/filter.h. Linux 6.3 (uapi
 * linux/fcntl.h); older headers lack it. */
#ifndef F_SEAL_EXEC
#define F_SEAL_EXEC 0x0020
#endif

/* Whether the call waiting is memfd_create, on any of our entry points
 * (x86-64, x32, i386). */
bool memfd_notify_is_memfd(const struct seccomp_data *d);

/* Answer it: the new descriptor through SECCOMP_IOCTL_NOTIF_ADDFD with
 * SECCOMP_ADDFD_FLAG_SEND, or an errno: EINVAL for MFD_EXEC or a bad name,
 * EFAULT for an unreadable one, ENOSYS where the kernel cannot seal a memfd
 * against exec (before 6.3) or install it (before 5.14): it fails closed.
 * resp (resp_size bytes, as the kernel sizes it) is scratch space. */
void memfd_notify_answer(int listener_fd, const struct seccomp_notif *n,
			 struct seccomp_notif_resp *resp, size_t resp_size);

/* `hutch probe`: can this kernel seal a memfd against exec? Fills why. */
bool memfd_notify_probe(char *why, size_t cap);

#endif
