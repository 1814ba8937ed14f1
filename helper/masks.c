/* masks.c: phase 2, pid 1, from build_root. Masks inside binds: a hidden
 * path gets an empty read-only file or directory mounted over it, a
 * protected path is bound onto itself read-only, and each parent of a
 * protected path is bound onto itself so that it is a mount point, which
 * rename(2) and rmdir(2) refuse with EBUSY: a read-only .git/hooks alone
 * does not stop `mv .git .git-aside && mkdir -p .git/hooks`.
 * The frontend resolved the targets when it planned the jail; here each is
 * opened beneath the new root without following any link and nothing is
 * created in the tree it covers. Async-signal-safe, descriptors only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helper.h"
#include "sys.h"

/* The empty objects a hidden path is covered with live in the root tmpfs
 * while the jail is built and are unlinked before it runs: a bind keeps
 * its source alive, and no path in the jail names it. */
#define EMPTY_FILE ".hutch-mask-file"
#define EMPTY_DIR ".hutch-mask-dir"

static int empty_file = -1, empty_dir = -1;

static int has_hide(const struct spec *sp)
{
	for (uint32_t i = 0; i < sp->n_mounts; i++)
		if (sp->mounts[i].kind == HUTCH_MOUNT_HIDE)
			return 1;
	return 0;
}

void masks_prepare(int root_fd, const struct spec *sp)
{
	int fd;

	if (!has_hide(sp))
		return;
	fd = openat(root_fd, EMPTY_FILE, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC,
		    0444);
	if (fd < 0)
		fail(STAGE_MOUNT, sp->n_mounts, errno);
	close(fd);
	if (mkdirat(root_fd, EMPTY_DIR, 0555) < 0)
		fail(STAGE_MOUNT, sp->n_mounts, errno);
	empty_file = openat(root_fd, EMPTY_FILE, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	empty_dir = openat(root_fd, EMPTY_DIR, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (empty_file < 0 || empty_dir < 0)
		fail(STAGE_MOUNT, sp->n_mounts, errno);
}

void masks_done(int root_fd, const struct spec *sp)
{
	if (empty_file < 0)
		return;
	close(empty_file);
	close(empty_dir);
	empty_file = empty_dir = -1;
	if (unlinkat(root_fd, EMPTY_FILE, 0) < 0 || unlinkat(root_fd, EMPTY_DIR, AT_REMOVEDIR) < 0)
		fail(STAGE_MOUNT, sp->n_mounts, errno);
}

/* A detached copy of the tree at fd; recursive, so that masks already
 * placed beneath a protected directory stay in the copy. */
static int clone_tree(int fd, int recursive, uint32_t i)
{
	int mnt = sys_open_tree(fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH |
						(recursive ? AT_RECURSIVE : 0));

	if (mnt < 0)
		fail(STAGE_MOUNT, i, errno);
	return mnt;
}

static void set_readonly(int mnt, uint32_t i)
{
	struct mount_attr attr = {
		.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV,
	};

	if (sys_mount_setattr(mnt, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr) < 0)
		fail(STAGE_MOUNT, i, errno);
}

void mask_one(int root_fd, const struct spec_mount *m, uint32_t i)
{
	struct open_how how = {
		.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	struct stat st;
	int target = (int)syscall(SYS_openat2, root_fd, m->target + 1, &how, sizeof(how));
	int mnt;

	/* Gone since the plan: nothing left there to hide. A path to
	 * protect must be there (an overlay's absent ones are made by
	 * overlay-absent.c): the jail could create it otherwise. A link
	 * put there since, or any other error, fails closed. */
	if (target < 0 && errno == ENOENT && m->kind == HUTCH_MOUNT_HIDE)
		return;
	if (target < 0 || fstat(target, &st) < 0)
		fail(STAGE_MOUNT_TARGET, i, errno);
	/* O_PATH | O_NOFOLLOW opened a link at the end as itself: one was
	 * put there since the plan, which saw none. */
	if (S_ISLNK(st.st_mode))
		fail(STAGE_MOUNT_TARGET, i, ELOOP);
	if (m->kind == HUTCH_MOUNT_HIDE) {
		mnt = clone_tree(S_ISDIR(st.st_mode) ? empty_dir : empty_file, 0, i);
		set_readonly(mnt, i);
	} else if (m->kind == HUTCH_MOUNT_READONLY) {
		mnt = clone_tree(target, 1, i);
		set_readonly(mnt, i);
	} else {
		if (!S_ISDIR(st.st_mode))	/* HUTCH_MOUNT_PIN */
			fail(STAGE_MOUNT_TARGET, i, ENOTDIR);
		mnt = clone_tree(target, 1, i);	/* same flags, same idmapping */
	}
	if (sys_move_mount(mnt, "", target, "",
			   MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		fail(STAGE_MOUNT, i, errno);
	close(mnt);
	close(target);
}
