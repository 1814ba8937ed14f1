/* devpts.c: phase 2, pid 1, called from build_root. Every jail gets a devpts
 * instance of its own (os.openpty, pty.fork, script, expect work; --tty's
 * terminal comes from here): newinstance, so the host's terminals are not
 * in it and the jail's are in no one else's; ptmxmode from the spec so the
 * jail user can open pts/ptmx (/dev/ptmx links to it); max bounds how many
 * the jail can allocate. The slaves belong to the opener (mode 0620, its
 * group: no tty group in the jail). TIOCSTI and TIOCLINUX stay refused by
 * the seccomp filter, whatever terminal they target.
 * Async-signal-safe; descriptors only. */
#include "config.h"

#include <errno.h>
#include <linux/mount.h>
#include <sys/mount.h>
#include <unistd.h>

#include "helper.h"
#include "sys.h"

/* Terminals one jail may hold open at once; kernel.pty.max bounds all. */
#define DEVPTS_MAX "64"

static void set_string(int fs_fd, const char *key, const char *value, uint32_t item)
{
	if (sys_fsconfig(fs_fd, FSCONFIG_SET_STRING, key, value, 0) < 0)
		fail(STAGE_MOUNT, item, errno);
}

int devpts_new(const struct spec_mount *m, uint32_t item)
{
	char ptmxmode[5] = { '0', (char)('0' + ((m->mode >> 6) & 7)),
			     (char)('0' + ((m->mode >> 3) & 7)), (char)('0' + (m->mode & 7)),
			     '\0' };
	int fs_fd = sys_fsopen("devpts", FSOPEN_CLOEXEC), mnt_fd;

	if (fs_fd < 0)
		fail(STAGE_MOUNT, item, errno);
	if (sys_fsconfig(fs_fd, FSCONFIG_SET_FLAG, "newinstance", NULL, 0) < 0)
		fail(STAGE_MOUNT, item, errno);
	set_string(fs_fd, "ptmxmode", ptmxmode, item);
	set_string(fs_fd, "mode", "0620", item);
	set_string(fs_fd, "max", DEVPTS_MAX, item);
	if (sys_fsconfig(fs_fd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		fail(STAGE_MOUNT, item, errno);
	/* Device nodes must work here (that is the point); nothing on it
	 * runs or raises privileges. */
	mnt_fd = sys_fsmount(fs_fd, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NOEXEC);
	if (mnt_fd < 0)
		fail(STAGE_MOUNT, item, errno);
	close(fs_fd);
	return mnt_fd;
}
