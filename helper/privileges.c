/* privileges.c: resource limits and the privilege drop.
 * Phase 1 reads cap_last_cap (may allocate).
 * Phase 2 is async-signal-safe: prctl for the bounding and ambient sets,
 * setresgid/setresuid, then capset of empty sets and capget to check, both
 * raw syscalls: emptying every set needs no library (configure.ac says why
 * the helper does not link libcap-ng). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "helper.h"
#include "hutch-abi.h"

static int last_cap = CAP_LAST_CAP;

void privileges_prepare(void)
{
	char buf[8];
	int fd = open("/proc/sys/kernel/cap_last_cap", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;
	int v = 0;

	for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; i++)
		v = v * 10 + (buf[i] - '0');
	if (n > 0 && v > 0 && v < 64)
		last_cap = v;
	if (fd >= 0)
		close(fd);
}

/* Pending signals and POSIX message-queue bytes are charged to the
 * caller's user on the host, as user-counts.c explains: the spec's caps,
 * sized by the frontend, and never above the hard limits we inherit. */
static void apply_per_user_rlimits(const struct spec *sp)
{
	static const struct {
		int resource;
		enum hutch_user_cap cap;
		enum site_rlimit site;
	} fixed[] = {
		{ RLIMIT_SIGPENDING, HUTCH_UCAP_SIGPENDING, SITE_RLIMIT_SIGPENDING },
		{ RLIMIT_MSGQUEUE, HUTCH_UCAP_MSGQUEUE_BYTES, SITE_RLIMIT_MSGQUEUE },
	};

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		rlim_t max = (rlim_t)sp->user_cap[fixed[i].cap];
		struct rlimit r;

		if (getrlimit(fixed[i].resource, &r) < 0)
			fail(STAGE_RLIMIT, fixed[i].site, errno);
		if (r.rlim_max == RLIM_INFINITY || r.rlim_max > max)
			r.rlim_max = max;
		r.rlim_cur = r.rlim_max;
		if (setrlimit(fixed[i].resource, &r) < 0)
			fail(STAGE_RLIMIT, fixed[i].site, errno);
	}
}

/* v as both limits of resource; HUTCH_RLIM_INFINITY is none. */
static void set_limit(int resource, uint64_t v, uint32_t item)
{
	struct rlimit cur, want;

	want.rlim_max = v == HUTCH_RLIM_INFINITY ? RLIM_INFINITY : (rlim_t)v;
	want.rlim_cur = want.rlim_max;
	if (setrlimit(resource, &want) == 0)
		return;
	/* Above the hard limit we hold: raising it needs privilege we
	 * must not use, and the lower one is stricter anyway. */
	if (errno != EPERM || getrlimit(resource, &cur) < 0 || want.rlim_max <= cur.rlim_max)
		fail(STAGE_RLIMIT, item, errno);
	want.rlim_cur = want.rlim_max = cur.rlim_max;
	if (setrlimit(resource, &want) < 0)
		fail(STAGE_RLIMIT, item, errno);
}

void apply_rlimits(const struct spec *sp)
{
	/* The memory limit without a cgroup is RLIMIT_DATA: it counts a
	 * process's private writable mappings (heap, anonymous memory) but
	 * not the PROT_NONE reservations V8, the JVM and Go make and never
	 * touch, which RLIMIT_AS refused at start (hutch(1), LIMITS).
	 * RLIMIT_AS stays, HUTCH_AS_HEADROOM above it, to bound what DATA
	 * does not count: shared anonymous and file mappings. */
	static const int resource[HUTCH_RLIM_COUNT] = {
		[HUTCH_RLIM_AS] = RLIMIT_DATA,
		[HUTCH_RLIM_CPU] = RLIMIT_CPU,
		[HUTCH_RLIM_FSIZE] = RLIMIT_FSIZE,
		[HUTCH_RLIM_NOFILE] = RLIMIT_NOFILE,
		[HUTCH_RLIM_NPROC] = RLIMIT_NPROC,
	};
	uint64_t mem = sp->rlimit[HUTCH_RLIM_AS];
	struct rlimit zero = { 0, 0 };

	for (int i = 0; i < HUTCH_RLIM_COUNT; i++)
		set_limit(resource[i], sp->rlimit[i], (uint32_t)i);
	set_limit(RLIMIT_AS,
		  mem >= HUTCH_RLIM_INFINITY - HUTCH_AS_HEADROOM ? HUTCH_RLIM_INFINITY
								: mem + HUTCH_AS_HEADROOM,
		  SITE_RLIMIT_AS);
	if (setrlimit(RLIMIT_CORE, &zero) < 0)
		fail(STAGE_RLIMIT, SITE_RLIMIT_CORE, errno);
	apply_per_user_rlimits(sp);
}

void drop_privileges(const struct spec *sp)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = { { 0 }, { 0 } };

	/* The bounding set first, while CAP_SETPCAP is still ours; with it
	 * empty, no later execve can hand a capability back. */
	for (int c = 0; c <= last_cap; c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && errno != EINVAL)
			fail(STAGE_DROP_CAPS, SITE_DROP_CAPS_BOUNDING + (uint32_t)c, errno);
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
		fail(STAGE_DROP_CAPS, SITE_DROP_CAPS_AMBIENT, errno);

	if (setresgid(sp->gid_inside, sp->gid_inside, sp->gid_inside) < 0)
		fail(STAGE_DROP_IDS, SITE_DROP_IDS_GID, errno);
	if (setresuid(sp->uid_inside, sp->uid_inside, sp->uid_inside) < 0)
		fail(STAGE_DROP_IDS, SITE_DROP_IDS_UID, errno);

	/* Effective, permitted and inheritable, all empty; hdr.pid 0 is
	 * ourselves, the only process capset may target. */
	if (syscall(SYS_capset, &hdr, data) < 0)
		fail(STAGE_DROP_CAPS, SITE_DROP_CAPS_APPLY, errno);

	/* Trust, but verify: the kernel's view must be empty. */
	if (syscall(SYS_capget, &hdr, data) < 0)
		fail(STAGE_DROP_CAPS, SITE_DROP_CAPS_READ, errno);
	if (data[0].effective | data[0].permitted | data[0].inheritable | data[1].effective |
	    data[1].permitted | data[1].inheritable)
		fail(STAGE_DROP_CAPS, SITE_DROP_CAPS_LEFT, EPERM);
	/* Every drop above was checked; one read-back catches a kernel with
	 * more capabilities than cap_last_cap told us about. */
	if (prctl(PR_CAPBSET_READ, last_cap + 1, 0, 0, 0) == 1)
		fail(STAGE_DROP_CAPS, SITE_DROP_CAPS_BOUNDING_LEFT, EPERM);
}

void set_no_new_privs(void)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		fail(STAGE_NO_NEW_PRIVS, SITE_NO_NEW_PRIVS_SET, errno);
	/* A credential change resets dumpability; no ptrace-able window
	 * before exec (runc CVE-2016-9962). */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		fail(STAGE_NO_NEW_PRIVS, SITE_NO_NEW_PRIVS_DUMPABLE, errno);
}
