/* namespaces.c: phase 2, outer process. One clone() creates pid 1 of the
 * jail in a new user namespace together with the mount, pid, net, ipc, uts
 * and cgroup namespaces the spec asks for. We, still in the caller's user
 * namespace, then write its id maps: a process cannot map an id other than
 * its own from inside (root's "65534 65534 1" needs CAP_SETUID in the
 * parent namespace), and one code path serves root and unprivileged callers
 * alike. pid 1 waits on a pipe until the maps are in place.
 * Async-signal-safe: open/write/close, numbers formatted by hand. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/securebits.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fd-util.h"
#include "helper.h"
#include "hutch-abi.h"

char *fmt_u32(char *p, uint32_t v)
{
	char tmp[10];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* The child must not live on after a failure here, nor hold the status
 * pipe after we exit: our exit is the frontend's "the jail is gone". */
void kill_child(pid_t child)
{
	kill(child, SIGKILL);
	while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
		;
}

/* Write one /proc/PID/ file of the child; on failure the child is killed
 * and reaped before we report. */
static void write_child_file(pid_t child, const char *name, const char *text, size_t len,
			     enum site_id_map site)
{
	char path[48] = "/proc/", *p = fmt_u32(path + 6, (uint32_t)child);
	int fd, r;

	*p++ = '/';
	memcpy(p, name, strlen(name) + 1);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		r = -errno;
	} else {
		r = fd_write_all(fd, text, len);
		close(fd);
	}
	if (r < 0) {
		kill_child(child);
		fail(STAGE_ID_MAP, site, -r);
	}
}

/* "INSIDE OUTSIDE 1\n": exactly one id exists in the jail. */
static void write_id_map(pid_t child, const char *name, uint32_t inside, uint32_t outside,
			 enum site_id_map site)
{
	char line[32], *p = line;

	p = fmt_u32(p, inside);
	*p++ = ' ';
	p = fmt_u32(p, outside);
	memcpy(p, " 1\n", 3);
	p += 3;
	write_child_file(child, name, line, (size_t)(p - line), site);
}

/* A root caller's jail runs as a host id of its own (hutch(1), "Host
 * ids"), and the kernel charges a user namespace's counts (inotify, message
 * queues, pending signals, processes) up the chain to the user that owns
 * it: the effective uid of the process that created it. Created by root,
 * every jail would draw on root's quota; so the clone is made with the
 * jail's id as our effective uid, root staying our real and saved uid to
 * take back. SECBIT_NO_SETUID_FIXUP keeps our capabilities meanwhile: an
 * LSM (AppArmor's restrict_unprivileged_userns) judges the clone by them.
 * Nothing else runs between the two switches. */
static int owner_bits = -1;
static pid_t owner_parent;

static void become_owner(uint32_t uid_outside)
{
	if (geteuid() != 0 || uid_outside == 0)
		return;
	owner_parent = getppid();
	owner_bits = prctl(PR_GET_SECUREBITS, 0, 0, 0, 0);
	if (owner_bits < 0 ||
	    prctl(PR_SET_SECUREBITS, (unsigned long)owner_bits | SECBIT_NO_SETUID_FIXUP, 0, 0, 0) < 0 ||
	    setresuid((uid_t)-1, uid_outside, (uid_t)-1) < 0)
		fail(STAGE_USERNS, SITE_USERNS_OWNER, errno);
}

/* In both processes after the clone: the outer one needs root again to
 * write the maps; pid 1 only puts the secure bits back (its ids are the
 * map's from here on, and drop_privileges sets them). A change of
 * effective uid clears the parent-death signal hutch's spawn armed
 * (spawn.c): the outer process arms it again and checks that its parent
 * did not die meanwhile, or a SIGKILLed hutch would leave the jail
 * running. 0, or -errno with nothing undone (the caller reaps the child). */
static int restore_owner(bool is_child)
{
	if (owner_bits < 0)
		return 0;
	if (!is_child && setresuid((uid_t)-1, 0, (uid_t)-1) < 0)
		return -errno;
	if (prctl(PR_SET_SECUREBITS, (unsigned long)owner_bits, 0, 0, 0) < 0)
		return -errno;
	if (!is_child && prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		return -errno;
	if (!is_child && getppid() != owner_parent)
		return -ESRCH;
	return 0;
}

/* The clone, shared by clone_into_namespaces and the early clone
 * (ahead.c): pid 1 in new namespaces of spec_flags, made as uid_outside
 * when we are root (become_owner), and a close-on-exec pipe it waits on.
 * Returns the child's pid to us with *ret_sync its write end, our
 * privileges back; 0 to the child with *ret_sync the read end, its
 * owner's secure bits not yet back (ns_child_released). */
pid_t ns_clone(uint32_t spec_flags, uint32_t uid_outside, int *ret_sync)
{
	unsigned long flags = CLONE_NEWUSER | CLONE_NEWNS | SIGCHLD;
	int sync_p[2], r;
	pid_t child;

	/* Root's supplementary groups (gid 0 among them) would survive into
	 * the jail and still open group-readable host files. */
	if (geteuid() == 0 && setgroups(0, NULL) < 0)
		fail(STAGE_SETGROUPS, SITE_SETGROUPS_DROP, errno);

	if (spec_flags & HUTCH_SPEC_NS_PID)
		flags |= CLONE_NEWPID;
	if (spec_flags & HUTCH_SPEC_NS_NET)
		flags |= CLONE_NEWNET;
	if (spec_flags & HUTCH_SPEC_NS_IPC)
		flags |= CLONE_NEWIPC;
	if (spec_flags & HUTCH_SPEC_NS_UTS)
		flags |= CLONE_NEWUTS;
	if (spec_flags & HUTCH_SPEC_NS_CGROUP)
		flags |= CLONE_NEWCGROUP;
	if (pipe2(sync_p, O_CLOEXEC) < 0)
		fail(STAGE_FORK, SITE_FORK_SYNC_PIPE, errno);

	/* Every way this fails (sysctl, LSM, a container's seccomp profile,
	 * the namespace limit) means the mechanism is not available to us. */
	become_owner(uid_outside);
	child = (pid_t)syscall(SYS_clone, flags, NULL, NULL, NULL, NULL);
	if (child < 0) {
		int err = errno;

		(void)restore_owner(false); /* we fail either way */
		fail_code(HUTCH_MECH_UNAVAILABLE, STAGE_USERNS, SITE_USERNS_CLONE, err);
	}
	if (child == 0) {
		close(sync_p[1]);
		*ret_sync = sync_p[0];
		return 0;
	}
	close(sync_p[0]);
	r = restore_owner(false);
	if (r < 0) {
		kill_child(child);
		fail(STAGE_USERNS, SITE_USERNS_OWNER_BACK, -r);
	}
	*ret_sync = sync_p[1];
	return child;
}

void ns_child_released(void)
{
	int r = restore_owner(true); /* CAP_SETPCAP in our namespace, once mapped */

	if (r < 0)
		fail(STAGE_USERNS, SITE_USERNS_OWNER_BACK, -r);
}

void ns_write_id_maps(pid_t child, const struct spec *sp)
{
	write_child_file(child, "setgroups", "deny", 4, SITE_ID_MAP_SETGROUPS);
	write_id_map(child, "uid_map", sp->uid_inside, sp->uid_outside, SITE_ID_MAP_UID);
	write_id_map(child, "gid_map", sp->gid_inside, sp->gid_outside, SITE_ID_MAP_GID);
}

pid_t clone_into_namespaces(const struct spec *sp)
{
	int sync;
	pid_t child = ns_clone(sp->flags, sp->uid_outside, &sync);
	char go = 'g';

	if (child == 0) {
		timing_step(HUTCH_STEP_CLONE);
		/* EOF instead of the byte: the outer process failed or died. */
		if (fd_read_full(sync, &go, 1) != 1)
			_exit(HUTCH_EXIT_SETUP);
		timing_step(HUTCH_STEP_ID_MAPS);
		close(sync);
		ns_child_released();
		return 0;
	}
	ns_write_id_maps(child, sp);
	if (fd_write_all(sync, &go, 1) < 0) {
		kill_child(child);
		fail(STAGE_FORK, SITE_FORK_SYNC_RELEASE, EPIPE);
	}
	close(sync);
	return child;
}
