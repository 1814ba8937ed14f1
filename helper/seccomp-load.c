/* seccomp-load.c: phase 2, the last step before fork and exec. The filter
 * was compiled by the frontend with libseccomp (native, x32 and 32-bit
 * entry points; cached per user, so usually compiled once) and arrives as
 * BPF in the spec: loading it here is one system call. With a listener,
 * denied calls wait for the frontend, which answers EPERM and counts them
 * by name for the result's "denials". */
#include "config.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "helper.h"
#include "hutch-abi.h"

void seccomp_enforce(const struct spec *sp)
{
	struct sock_fprog prog = {
		.len = (unsigned short)(sp->filter_len / sizeof(struct sock_filter)),
		.filter = (struct sock_filter *)(uintptr_t)sp->filter,
	};

	unsigned flags = (sp->flags & HUTCH_SPEC_SECCOMP_NOTIFY) ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0;
	long fd;

	if (!(sp->flags & HUTCH_SPEC_SECCOMP))
		return;
	/* One thread, so no TSYNC (which a listener would exclude anyway). */
	fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
	if (fd < 0 && errno == EINVAL && flags) {
		/* No user notification here: denied calls still fail (ENOSYS
		 * instead of EPERM); the frontend reports them unattributed. */
		flags = 0;
		fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
	}
	if (fd >= 0 && flags) {
		control_send_fd((int)fd, HUTCH_CONTROL_LISTENER, STAGE_SECCOMP, 1);
		close((int)fd);
	}
	if (fd < 0) {
		int err = errno;

		/* EINVAL is both "no filter mode here" and "a bad program":
		 * only a kernel without seccomp fails PR_GET_SECCOMP too. */
		fail_code(err == ENOSYS || prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0
				  ? HUTCH_MECH_UNAVAILABLE
				  : HUTCH_SETUP_FAILED,
			  STAGE_SECCOMP, 0, err);
	}
}
