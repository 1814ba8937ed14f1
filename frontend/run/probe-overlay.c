/* probe-overlay.c: `hutch probe`'s overlay row: what --overlay needs,
 * tried for real in a throw-away child: overlayfs mounted in a user
 * namespace with userxattr (Linux 5.11), over a tmpfs upper that takes
 * whiteouts and, for a replaced directory, the user.overlay.opaque xattr
 * (tmpfs user xattrs: 6.6; available without, with that said).
 * The child touches only its own new mount namespace. Frontend only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fd-util.h"
#include "run/probe.h"

enum { OVL_OK, OVL_USERNS, OVL_SETUP, OVL_FSOPEN, OVL_USERXATTR, OVL_CREATE, OVL_WHITEOUT,
       OVL_OPAQUE };

static int write_text(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int r = fd < 0 ? -1 : fd_write_all(fd, text, strlen(text));

	if (fd >= 0)
		close(fd);
	return r;
}

/* The child: returns its exit code, a step above. */
static int try_overlay(uid_t uid, gid_t gid)
{
	char map[64];
	int fs, mnt;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0)
		return OVL_USERNS;
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	if (write_text("/proc/self/uid_map", map) < 0)
		return OVL_USERNS;
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)gid, (unsigned)gid);
	if (write_text("/proc/self/setgroups", "deny") < 0 ||
	    write_text("/proc/self/gid_map", map) < 0)
		return OVL_USERNS;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("hutch-probe", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,nr_inodes=64") < 0 ||
	    mkdir("/tmp/l", 0700) < 0 || mkdir("/tmp/l/d", 0700) < 0 ||
	    mkdir("/tmp/u", 0700) < 0 || mkdir("/tmp/w", 0700) < 0 || mkdir("/tmp/m", 0700) < 0 ||
	    write_text("/proc/self/comm", "hutch-probe") < 0)
		return OVL_SETUP;
	if ((fs = open("/tmp/l/f", O_CREAT | O_WRONLY | O_CLOEXEC, 0600)) < 0)
		return OVL_SETUP;
	close(fs);
	fs = (int)syscall(SYS_fsopen, "overlay", FSOPEN_CLOEXEC);
	if (fs < 0)
		return OVL_FSOPEN;
	if (syscall(SYS_fsconfig, fs, FSCONFIG_SET_FLAG, "userxattr", NULL, 0) < 0)
		return OVL_USERXATTR;
	if (syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "lowerdir", "/tmp/l", 0) < 0 ||
	    syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "upperdir", "/tmp/u", 0) < 0 ||
	    syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "workdir", "/tmp/w", 0) < 0 ||
	    syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0 ||
	    (mnt = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, 0)) < 0 ||
	    syscall(SYS_move_mount, mnt, "", AT_FDCWD, "/tmp/m", MOVE_MOUNT_F_EMPTY_PATH) < 0)
		return OVL_CREATE;
	if (unlink("/tmp/m/f") < 0)
		return OVL_WHITEOUT;
	if (rmdir("/tmp/m/d") < 0 || mkdir("/tmp/m/d", 0700) < 0)
		return OVL_OPAQUE;
	return OVL_OK;
}

bool probe_overlay(char *detail, size_t cap)
{
	static const char *const words[] = {
		[OVL_OK] = "overlayfs in a user namespace (userxattr) over a tmpfs upper layer",
		[OVL_USERNS] = "needs user namespaces (see user_namespaces)",
		[OVL_SETUP] = "cannot make a private mount namespace to try it in",
		[OVL_FSOPEN] = "the kernel has no overlay file system (CONFIG_OVERLAY_FS, modprobe "
			       "overlay)",
		[OVL_USERXATTR] = "the kernel's overlayfs lacks userxattr (Linux 5.11 and later)",
		[OVL_CREATE] = "the kernel refuses overlayfs in a user namespace (Linux 5.11 and "
			       "later; some distributions restrict it)",
		[OVL_WHITEOUT] = "the tmpfs upper layer cannot hold whiteouts (a deletion fails)",
		[OVL_OPAQUE] = "overlayfs in a user namespace, but the tmpfs upper layer lacks user "
			       "xattrs (Linux 6.6): a directory the jail removes cannot be made again",
	};
	uid_t uid = geteuid();
	gid_t gid = getegid();
	int status = 0, code;
	pid_t pid = fork();

	if (pid == 0)
		_exit(try_overlay(uid, gid));
	while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	code = pid > 0 && WIFEXITED(status) && WEXITSTATUS(status) <= OVL_OPAQUE
		       ? WEXITSTATUS(status) : OVL_SETUP;
	snprintf(detail, cap, "%s", words[code]);
	/* Without user xattrs on tmpfs the overlay still works, short of
	 * replacing a directory (that fails in the jail, and says so). */
	return code == OVL_OK || code == OVL_OPAQUE;
}
