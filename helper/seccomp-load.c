/* seccomp-load.c: phase 2, the last step before fork and exec. Two filters
 * are stacked. First the helper's own (base-filter.c), whatever the spec
 * says: no new namespaces, no mounts, no set-id files. Then the spec's,
 * compiled by the frontend with libseccomp (native, x32 and 32-bit entry
 * points; cached per user, so usually compiled once) and sent as BPF: with
 * a listener, the calls it denies wait for the frontend, which answers
 * EPERM and counts them by name for the result's "denials". The kernel
 * runs both and the stricter verdict wins, so the base filter's EPERM
 * stands over the spec's ALLOW or listener alike (and is not counted: no
 * listener sees it). A spec without a filter is refused in phase 1: a
 * caller of hutch-exec must not get a jail with no filter at all. */
#include "config.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "helper.h"
#include "hutch-abi.h"

void seccomp_check_spec(const struct spec *sp)
{
	if (!(sp->flags & HUTCH_SPEC_SECCOMP))
		fail_code(HUTCH_BAD_SPEC, STAGE_SECCOMP, SITE_SECCOMP_NO_FILTER, EINVAL);
}

/* EINVAL is both "no filter mode here" and "a bad program": only a kernel
 * without seccomp fails PR_GET_SECCOMP too. */
static _Noreturn void load_failed(enum site_seccomp site, int err)
{
	fail_code(err == ENOSYS || prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0 ? HUTCH_MECH_UNAVAILABLE
									: HUTCH_SETUP_FAILED,
		  STAGE_SECCOMP, site, err);
}

static void load_base_filter(void)
{
	size_t n;
	const struct sock_filter *insns = base_filter(&n);
	struct sock_fprog prog = {
		.len = (unsigned short)n,
		.filter = (struct sock_filter *)(uintptr_t)insns,
	};

	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) < 0)
		load_failed(SITE_SECCOMP_BASE_FILTER, errno);
}

void seccomp_enforce(const struct spec *sp)
{
	struct sock_fprog prog = {
		.len = (unsigned short)(sp->filter_len / sizeof(struct sock_filter)),
		.filter = (struct sock_filter *)(uintptr_t)sp->filter,
	};

	unsigned flags = (sp->flags & HUTCH_SPEC_SECCOMP_NOTIFY) ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0;
	long fd;

	seccomp_check_spec(sp);	/* checked in phase 1 already; cheap to be sure */
	load_base_filter();
	/* One thread, so no TSYNC (which a listener would exclude anyway). */
	fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, &prog);
	if (fd < 0 && errno == EINVAL && flags) {
		/* No user notification here: denied calls still fail (ENOSYS
		 * instead of EPERM); the frontend reports them unattributed. */
		flags = 0;
		fd = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog);
	}
	if (fd >= 0 && flags) {
		control_send_fd((int)fd, HUTCH_CONTROL_LISTENER, STAGE_SECCOMP,
				SITE_SECCOMP_SEND_LISTENER);
		close((int)fd);
	}
	if (fd < 0)
		load_failed(SITE_SECCOMP_SPEC_FILTER, errno);
}
