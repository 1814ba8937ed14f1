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
#include <sched.h>
#include <signal.h>
#include <string.h>
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

pid_t clone_into_namespaces(const struct spec *sp)
{
	unsigned long flags = CLONE_NEWUSER | CLONE_NEWNS | SIGCHLD;
	int sync_p[2];
	pid_t child;
	char go = 'g';

	/* Root's supplementary groups (gid 0 among them) would survive into
	 * the jail and still open group-readable host files. */
	if (geteuid() == 0 && setgroups(0, NULL) < 0)
		fail(STAGE_SETGROUPS, SITE_SETGROUPS_DROP, errno);

	if (sp->flags & HUTCH_SPEC_NS_PID)
		flags |= CLONE_NEWPID;
	if (sp->flags & HUTCH_SPEC_NS_NET)
		flags |= CLONE_NEWNET;
	if (sp->flags & HUTCH_SPEC_NS_IPC)
		flags |= CLONE_NEWIPC;
	if (sp->flags & HUTCH_SPEC_NS_UTS)
		flags |= CLONE_NEWUTS;
	if (sp->flags & HUTCH_SPEC_NS_CGROUP)
		flags |= CLONE_NEWCGROUP;
	if (pipe2(sync_p, O_CLOEXEC) < 0)
		fail(STAGE_FORK, SITE_FORK_SYNC_PIPE, errno);

	/* Every way this fails (sysctl, LSM, a container's seccomp profile,
	 * the namespace limit) means the mechanism is not available to us. */
	child = (pid_t)syscall(SYS_clone, flags, NULL, NULL, NULL, NULL);
	if (child < 0)
		fail_code(HUTCH_MECH_UNAVAILABLE, STAGE_USERNS, SITE_USERNS_CLONE, errno);
	if (child == 0) {
		timing_step(HUTCH_STEP_CLONE);
		close(sync_p[1]);
		/* EOF instead of the byte: the outer process failed or died. */
		if (fd_read_full(sync_p[0], &go, 1) != 1)
			_exit(HUTCH_EXIT_SETUP);
		timing_step(HUTCH_STEP_ID_MAPS);
		close(sync_p[0]);
		return 0;
	}
	close(sync_p[0]);
	write_child_file(child, "setgroups", "deny", 4, SITE_ID_MAP_SETGROUPS);
	write_id_map(child, "uid_map", sp->uid_inside, sp->uid_outside, SITE_ID_MAP_UID);
	write_id_map(child, "gid_map", sp->gid_inside, sp->gid_outside, SITE_ID_MAP_GID);
	if (fd_write_all(sync_p[1], &go, 1) < 0) {
		kill_child(child);
		fail(STAGE_FORK, SITE_FORK_SYNC_RELEASE, EPIPE);
	}
	close(sync_p[1]);
	return child;
}
