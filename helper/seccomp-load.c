/* seccomp-load.c: phase 2, the last step before fork and exec. The filter
 * was compiled by the frontend with libseccomp (native, x32 and 32-bit
 * entry points; cached per user, so usually compiled once) and arrives as
 * BPF in the spec: loading it here is one system call. */
#include "config.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "helper.h"

void seccomp_enforce(const struct spec *sp)
{
	struct sock_fprog prog = {
		.len = (unsigned short)(sp->filter_len / sizeof(struct sock_filter)),
		.filter = (struct sock_filter *)(uintptr_t)sp->filter,
	};

	if (!(sp->flags & HUTCH_SPEC_SECCOMP))
		return;
	/* TSYNC: every thread, though we have only one. */
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &prog) != 0) {
		int err = errno;

		/* EINVAL is both "no filter mode here" and "a bad program":
		 * only a kernel without seccomp fails PR_GET_SECCOMP too. */
		fail_code(err == ENOSYS || prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0
				  ? HUTCH_MECH_UNAVAILABLE
				  : HUTCH_SETUP_FAILED,
			  STAGE_SECCOMP, 0, err);
	}
}
