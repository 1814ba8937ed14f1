/* overlay.c: phase 2, pid 1 of the jail, from build_root. A copy-on-write
 * mount (--overlay): the kernel's overlayfs in the jail's user namespace
 * (Linux 5.11 and later, "userxattr": its marks are user.overlay.* xattrs),
 * the bind's cloned source as the lower layer and a tmpfs of its own,
 * bounded in bytes and inodes, holding the upper and work directories.
 * Nothing the jail does reaches the source; hutch reads the upper layer
 * after the run through the tmpfs root we send it (run/changes.c).
 * Async-signal-safe; descriptors only, no allocation. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helper.h"
#include "hutch-abi.h"
#include "sys.h"

/* overlayfs takes its layers as paths, resolved in our mount namespace.
 * They are staged here, inside the new root (a tmpfs only we can see yet,
 * under names we chose, so no ':' or ',' of a host path reaches the option
 * parser and no link is followed), and removed once the overlay holds its
 * own private clones of them: the jail never sees the stage. */
#define OVL_STAGE ".hutch-overlay"
#define OVL_LOWER STAGING_DIR "/" OVL_STAGE "/lower"
#define OVL_UPPER_MNT STAGING_DIR "/" OVL_STAGE "/upper"
#define OVL_UPPER OVL_UPPER_MNT "/upper"
#define OVL_WORK OVL_UPPER_MNT "/work"
#define OVL_BASE OVL_UPPER_MNT "/" OVL_BASE_NAME	/* overlay-absent.c */

/* A kernel without overlayfs (ENODEV), or one that refuses it in a user
 * namespace (before 5.11: EPERM; "userxattr" unknown: EINVAL), cannot
 * give this jail: that is a missing mechanism, not a failed step. */
static _Noreturn void refuse(uint32_t i, int err)
{
	if (err == ENODEV || err == EPERM || err == EINVAL || err == EOPNOTSUPP)
		fail_code(HUTCH_MECH_UNAVAILABLE, STAGE_OVERLAY, i, err);
	fail(STAGE_OVERLAY, i, err);
}

static void set_string(int fs_fd, const char *key, const char *value, uint32_t i)
{
	if (sys_fsconfig(fs_fd, FSCONFIG_SET_STRING, key, value, 0) < 0)
		refuse(i, errno);
}

/* The upper tmpfs with upper/ (the merged root takes its mode, so it gets
 * the source's) and work/, staged with the lower tree under OVL_STAGE. */
static int stage_layers(int root_fd, const struct spec *sp, uint32_t i, int lower_tree,
			int *ret_stage_fd)
{
	const struct spec_mount *m = &sp->mounts[i];
	int upper_mnt = mount_new_fs("tmpfs", sp, m, i), stage_fd;
	struct stat st;

	if (fstat(lower_tree, &st) < 0)
		fail(STAGE_OVERLAY, i, errno);
	if (mkdirat(upper_mnt, "upper", 0700) < 0 ||
	    fchmodat(upper_mnt, "upper", st.st_mode & 01777, 0) < 0 ||
	    mkdirat(upper_mnt, "work", 0700) < 0)
		fail(STAGE_OVERLAY, i, errno);
	if (mkdirat(root_fd, OVL_STAGE, 0700) < 0)
		fail(STAGE_OVERLAY, i, errno);
	stage_fd = openat(root_fd, OVL_STAGE, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (stage_fd < 0 || mkdirat(stage_fd, "lower", 0700) < 0 ||
	    mkdirat(stage_fd, "upper", 0700) < 0)
		fail(STAGE_OVERLAY, i, errno);
	if (sys_move_mount(lower_tree, "", stage_fd, "lower", MOVE_MOUNT_F_EMPTY_PATH) < 0 ||
	    sys_move_mount(upper_mnt, "", stage_fd, "upper", MOVE_MOUNT_F_EMPTY_PATH) < 0)
		fail(STAGE_OVERLAY, i, errno);
	close(lower_tree);
	*ret_stage_fd = stage_fd;
	return upper_mnt;
}

/* The overlay holds clones of its layers: the staged mounts go, and their
 * directories with them, before the root is sealed. */
static void unstage_layers(int root_fd, int stage_fd, uint32_t i)
{
	if (umount2(OVL_LOWER, MNT_DETACH) < 0 || umount2(OVL_UPPER_MNT, MNT_DETACH) < 0)
		fail(STAGE_OVERLAY, i, errno);
	if (unlinkat(stage_fd, "lower", AT_REMOVEDIR) < 0 ||
	    unlinkat(stage_fd, "upper", AT_REMOVEDIR) < 0 ||
	    unlinkat(root_fd, OVL_STAGE, AT_REMOVEDIR) < 0)
		fail(STAGE_OVERLAY, i, errno);
	close(stage_fd);
}

int overlay_new(int root_fd, const struct spec *sp, uint32_t i, int lower_tree, int is_dir)
{
	const struct spec_mount *m = &sp->mounts[i];
	unsigned attrs = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
	int stage_fd, upper_mnt, fs_fd, mnt_fd, lower_fd, base;

	if (!is_dir)	/* overlayfs layers are directories */
		fail(STAGE_BIND_SOURCE, i, ENOTDIR);
	fs_fd = sys_fsopen("overlay", FSOPEN_CLOEXEC);
	if (fs_fd < 0)
		refuse(i, errno);
	upper_mnt = stage_layers(root_fd, sp, i, lower_tree, &stage_fd);
	lower_fd = openat(stage_fd, "lower", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (lower_fd < 0)
		fail(STAGE_OVERLAY, i, errno);
	/* the absent protected paths' layer goes below the source */
	base = overlay_absent(sp, i, lower_fd, upper_mnt);
	close(lower_fd);
	/* userxattr: the only mode a user namespace may mount, and it keeps
	 * redirect_dir and metacopy off, so the upper layer holds whole
	 * copies and whiteouts only (what run/changes.c reads). */
	if (sys_fsconfig(fs_fd, FSCONFIG_SET_FLAG, "userxattr", NULL, 0) < 0)
		refuse(i, errno);
	set_string(fs_fd, "lowerdir", base ? OVL_LOWER ":" OVL_BASE : OVL_LOWER, i);
	set_string(fs_fd, "upperdir", OVL_UPPER, i);
	set_string(fs_fd, "workdir", OVL_WORK, i);
	if (sys_fsconfig(fs_fd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		refuse(i, errno);
	if (!(m->flags & HUTCH_MF_EXEC))
		attrs |= MOUNT_ATTR_NOEXEC;
	mnt_fd = sys_fsmount(fs_fd, FSMOUNT_CLOEXEC, attrs);
	if (mnt_fd < 0)
		refuse(i, errno);
	close(fs_fd);
	/* hutch keeps the upper tmpfs alive after the jail is gone and reads
	 * the change set from it with nothing left to interfere. */
	control_send_fd(upper_mnt, HUTCH_CONTROL_OVERLAY, STAGE_OVERLAY, i);
	close(upper_mnt);
	unstage_layers(root_fd, stage_fd, i);
	return mnt_fd;
}
