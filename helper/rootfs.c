/* rootfs.c: phase 2, pid 1 of the jail. Builds the jail's filesystem:
 *   1. mount propagation private, so nothing we do reaches the host;
 *   2. every bind source opened without following any symlink and cloned
 *      into a detached tree with its flags (ro, nosuid, nodev, noexec) set
 *      before it is visible anywhere;
 *   3. a fresh tmpfs root, in which each target is created component by
 *      component with O_NOFOLLOW (runc CVE-2021-30465: a symlink swapped in
 *      on the way cannot redirect a mount), then the spec's mounts in order;
 *   4. the root made read-only, pivot_root into it, the old root detached.
 * A pooled jail's pid 1 does 2-3 for its template's mounts before its
 * job (build_prefix), or all of it for a whole template (build_whole).
 * Async-signal-safe; descriptors only, no allocation. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "fd-util.h"
#include "helper.h"
#include "hutch-abi.h"
#include "sys.h"

/* The root tmpfs holds only what the spec puts there (mount points, the
 * directories on their way, /etc files) and is read-only before the target
 * runs; the count bounds what a spec with deep targets can make us create. */
#define ROOT_OPTIONS "mode=0755,size=64m,nr_inodes=16384"

static int tree_fd[HUTCH_SPEC_MAX_MOUNTS];
static unsigned char tree_is_dir[HUTCH_SPEC_MAX_MOUNTS];

static void clone_bind_source(const struct spec *sp, uint32_t i)
{
	const struct spec_mount *m = &sp->mounts[i];
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_NOSUID };
	struct stat st;
	int fd;

	tree_fd[i] = -1;
	if (m->flags & HUTCH_MF_IDMAP) {
		int is_dir = 1;

		/* made and flagged by the outer process (idmap.c); a file's
		 * tree must land on a file (a directory there: EINVAL) */
		tree_fd[i] = idmap_tree(i, &is_dir);
		tree_is_dir[i] = (unsigned char)is_dir;
		return;
	}
	if ((m->flags & HUTCH_MF_FD) && bind_fd_tree(i) >= 0) {
		/* a passed descriptor, cloned and flagged by the outer process */
		if (fstat(bind_fd_of(sp, i), &st) < 0)
			fail(STAGE_BIND_SOURCE, i, errno);
		tree_fd[i] = bind_fd_tree(i);
		tree_is_dir[i] = S_ISDIR(st.st_mode);
		return;
	}
	if (m->flags & HUTCH_MF_FD)
		fd = bind_fd_open_source(sp, i);
	else
		fd = (int)syscall(SYS_openat2, AT_FDCWD, m->source, &how, sizeof(how));
	if (fd < 0 && errno == ENOENT && (m->flags & HUTCH_MF_OPTIONAL))
		return;
	if (fd < 0 || fstat(fd, &st) < 0)
		fail(STAGE_BIND_SOURCE, i, errno);
	/* A socket or FIFO is a channel to a host process whatever the
	 * mount's mode. The frontend refused them; this holds if one was
	 * swapped in after its check. */
	if (S_ISSOCK(st.st_mode) || S_ISFIFO(st.st_mode))
		fail(STAGE_BIND_SOURCE, i, EPERM);
	tree_is_dir[i] = S_ISDIR(st.st_mode);
	/* Recursive: in a user namespace the submounts are locked to their
	 * parent, and a non-recursive clone of a tree with locked children
	 * is refused. */
	tree_fd[i] = sys_open_tree(fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH |
						   AT_RECURSIVE);
	if (tree_fd[i] < 0)
		fail(STAGE_BIND_SOURCE, i, errno);
	close(fd);
	if (!(m->flags & HUTCH_MF_RW))
		attr.attr_set |= MOUNT_ATTR_RDONLY;
	if (!(m->flags & HUTCH_MF_DEV))
		attr.attr_set |= MOUNT_ATTR_NODEV;
	if (!(m->flags & HUTCH_MF_EXEC))
		attr.attr_set |= MOUNT_ATTR_NOEXEC;
	if (sys_mount_setattr(tree_fd[i], "", AT_EMPTY_PATH | AT_RECURSIVE, &attr) < 0)
		fail(STAGE_BIND_SOURCE, i, errno);
}

/* Open the parent directory of target inside the new root, creating the
 * missing directories and refusing any symlink on the way. Copies the last
 * component into name (NAME_MAX + 1 bytes). Returns an O_PATH fd. */
static int walk_parent(int root_fd, const char *target, char *name, uint32_t i)
{
	int dir_fd = openat(root_fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	const char *p = target + 1; /* spec paths are clean and absolute */

	if (dir_fd < 0)
		fail(STAGE_MOUNT_TARGET, i, errno);
	for (;;) {
		size_t n = strcspn(p, "/");
		int next;

		if (n > 255)
			fail(STAGE_MOUNT_TARGET, i, ENAMETOOLONG);
		memcpy(name, p, n);
		name[n] = '\0';
		if (p[n] == '\0')
			return dir_fd;
		if (mkdirat(dir_fd, name, 0755) < 0 && errno != EEXIST)
			fail(STAGE_MOUNT_TARGET, i, errno);
		next = openat(dir_fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0)
			fail(STAGE_MOUNT_TARGET, i, errno);
		close(dir_fd);
		dir_fd = next;
		p += n + 1;
	}
}

/* The parent of the last target, kept open for the next: the /etc files
 * and the /dev nodes come in runs under one directory, and each walk from
 * the root is four calls. Only build_root's own mounts change the tree
 * meanwhile: one on a target's parent or above it has another parent
 * itself, which replaces the kept one, so a kept parent is what a new
 * walk would find. Masks and overlays mount where the walk does not look:
 * they drop it (parent_forget). */
static int kept_fd = -1;
static const char *kept_target;	/* the spec's string, alive all along */
static size_t kept_len;		/* its bytes before the last '/' */

static void parent_forget(void)
{
	if (kept_fd >= 0)
		close(kept_fd);
	kept_fd = -1;
}

/* walk_parent, or the kept parent when target shares it. The caller must
 * not close the fd: the next call or parent_forget does. */
static int open_parent(int root_fd, const char *target, char *name, uint32_t i)
{
	const char *last = strrchr(target, '/');
	size_t len = (size_t)(last - target);

	if (kept_fd >= 0 && len == kept_len && memcmp(target, kept_target, len) == 0) {
		if (strlen(last + 1) > 255)
			fail(STAGE_MOUNT_TARGET, i, ENAMETOOLONG);
		strcpy(name, last + 1);
		return kept_fd;
	}
	parent_forget();
	kept_fd = walk_parent(root_fd, target, name, i);
	kept_target = target;
	kept_len = len;
	return kept_fd;
}

static int make_dir(int dir_fd, const char *name, mode_t mode, uint32_t i)
{
	int fd;

	if (mkdirat(dir_fd, name, mode) < 0 && errno != EEXIST)
		fail(STAGE_MOUNT_TARGET, i, errno);
	fd = openat(dir_fd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		fail(STAGE_MOUNT_TARGET, i, errno);
	return fd;
}

/* A mount point for a non-directory: an empty regular file, never a link.
 * One we create (O_EXCL: new, regular, ours) is the target as opened; one
 * there already (the same target twice) is checked. */
static int make_file(int dir_fd, const char *name, uint32_t i)
{
	struct stat st;
	int fd = openat(dir_fd, name, O_CREAT | O_EXCL | O_RDONLY | O_NOFOLLOW | O_CLOEXEC, 0444);

	if (fd >= 0)
		return fd;
	if (errno != EEXIST)
		fail(STAGE_MOUNT_TARGET, i, errno);
	fd = openat(dir_fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0)
		fail(STAGE_MOUNT_TARGET, i, errno);
	if (!S_ISREG(st.st_mode))
		fail(STAGE_MOUNT_TARGET, i, ENOTDIR);
	return fd;
}

static char *fmt_u64(char *p, uint64_t v, unsigned base)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % base);
		v /= base;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	*p = '\0';
	return p;
}

static void set_option(int fs_fd, const char *key, uint64_t v, unsigned base, uint32_t i)
{
	char num[24];

	fmt_u64(num, v, base);
	if (sys_fsconfig(fs_fd, FSCONFIG_SET_STRING, key, num, 0) < 0)
		fail(STAGE_MOUNT, i, errno);
}

/* A new filesystem instance (tmpfs or proc) as a detached mount. */
int mount_new_fs(const char *type, const struct spec *sp, const struct spec_mount *m, uint32_t i)
{
	unsigned attrs = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
	int fs_fd = sys_fsopen(type, FSOPEN_CLOEXEC), mnt_fd;

	if (fs_fd < 0)
		fail(STAGE_MOUNT, i, errno);
	if (m->kind == HUTCH_MOUNT_TMPFS || m->kind == HUTCH_MOUNT_OVERLAY) {
		set_option(fs_fd, "size", m->size_bytes, 10, i);
		/* size counts pages only: empty files, directories and links
		 * cost kernel memory it never sees (issue #9, finding 4). */
		set_option(fs_fd, "nr_inodes", m->inodes, 10, i);
		set_option(fs_fd, "mode", m->mode, 8, i);
		set_option(fs_fd, "uid", sp->uid_inside, 10, i);
		set_option(fs_fd, "gid", sp->gid_inside, 10, i);
		if (!(m->flags & HUTCH_MF_EXEC))
			attrs |= MOUNT_ATTR_NOEXEC;
		/* A read-only tmpfs (/dev) is filled first, sealed in seal_tmpfs(). */
	} else {
		attrs |= MOUNT_ATTR_NOEXEC;
	}
	if (sys_fsconfig(fs_fd, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		fail(STAGE_MOUNT, i, errno);
	mnt_fd = sys_fsmount(fs_fd, FSMOUNT_CLOEXEC, attrs);
	if (mnt_fd < 0)
		fail(STAGE_MOUNT, i, errno);
	close(fs_fd);
	return mnt_fd;
}

static void attach(int mnt_fd, int target_fd, uint32_t i)
{
	if (sys_move_mount(mnt_fd, "", target_fd, "",
			   MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		fail(STAGE_MOUNT, i, errno);
	close(mnt_fd);
}

static void write_file(int dir_fd, const char *name, const struct spec *sp,
		       const struct spec_mount *m, uint32_t i)
{
	int fd = openat(dir_fd, name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC,
			m->mode);
	int r;

	if (fd < 0)
		fail(STAGE_MOUNT_TARGET, i, errno);
	r = fd_write_all(fd, m->data, m->data_len);
	if (r < 0)
		fail(STAGE_MOUNT, i, -r);
	/* The jail's user owns what is staged for it (root invocations create
	 * it as an unmapped id otherwise); mode is not narrowed by umask. */
	if (fchown(fd, sp->uid_inside, sp->gid_inside) < 0 || fchmod(fd, m->mode) < 0)
		fail(STAGE_MOUNT, i, errno);
	close(fd);
}

static void mount_one(int root_fd, const struct spec *sp, uint32_t i)
{
	const struct spec_mount *m = &sp->mounts[i];
	char name[256];
	int dir_fd, target_fd;

	if ((m->kind == HUTCH_MOUNT_BIND || m->kind == HUTCH_MOUNT_OVERLAY) && tree_fd[i] < 0)
		return; /* optional and absent */
	if (m->kind >= HUTCH_MOUNT_HIDE && m->kind <= HUTCH_MOUNT_PIN) {
		parent_forget();
		mask_one(root_fd, m, i);	/* masks.c: creates nothing */
		return;
	}
	dir_fd = open_parent(root_fd, m->target, name, i);
	switch ((enum hutch_mount_kind)m->kind) {
	case HUTCH_MOUNT_BIND:
		target_fd = tree_is_dir[i] ? make_dir(dir_fd, name, 0755, i)
					   : make_file(dir_fd, name, i);
		attach(tree_fd[i], target_fd, i);
		close(target_fd);
		break;
	case HUTCH_MOUNT_TMPFS: {
		int mnt_fd = mount_new_fs("tmpfs", sp, m, i);

		target_fd = make_dir(dir_fd, name, 0755, i);
		/* The frontend keeps this tmpfs alive after the jail is gone
		 * and collects files from it with nothing left to interfere. */
		if (m->flags & HUTCH_MF_SEND_FD)
			control_send_fd(mnt_fd, HUTCH_CONTROL_WORKDIR, STAGE_MOUNT, i);
		attach(mnt_fd, target_fd, i);
		close(target_fd);
		break;
	}
	case HUTCH_MOUNT_PROC: {
		struct statfs sfs;
		int mnt_fd;

		target_fd = make_dir(dir_fd, name, 0555, i);
		mnt_fd = mount_new_fs("proc", sp, m, i);
		/* Never hand the target something that only looks like /proc. */
		if (fstatfs(mnt_fd, &sfs) < 0)
			fail(STAGE_PROC_VERIFY, i, errno);
		if (sfs.f_type != PROC_SUPER_MAGIC)
			fail(STAGE_PROC_VERIFY, i, EXDEV); /* not a stale errno */
		attach(mnt_fd, target_fd, i);
		close(target_fd);
		break;
	}
	case HUTCH_MOUNT_SYMLINK:
		if (symlinkat(m->source, dir_fd, name) < 0)
			fail(STAGE_MOUNT, i, errno);
		break;
	case HUTCH_MOUNT_FILE:
		write_file(dir_fd, name, sp, m, i);
		break;
	case HUTCH_MOUNT_DIR:
		close(make_dir(dir_fd, name, m->mode, i));
		break;
	case HUTCH_MOUNT_DEVPTS:
		target_fd = make_dir(dir_fd, name, 0755, i);
		attach(devpts_new(m, i), target_fd, i);
		close(target_fd);
		break;
	case HUTCH_MOUNT_OVERLAY: {
		/* the layers are staged in the root first: before the target */
		int mnt_fd = overlay_new(root_fd, sp, i, tree_fd[i], tree_is_dir[i]);

		target_fd = make_dir(dir_fd, name, 0755, i);
		attach(mnt_fd, target_fd, i);
		close(target_fd);
		parent_forget();	/* its stage came and went in the root */
		break;
	}
	case HUTCH_MOUNT_HIDE:
	case HUTCH_MOUNT_READONLY:
	case HUTCH_MOUNT_PIN:
	case HUTCH_MOUNT_KIND_MAX:
		fail(STAGE_MOUNT, i, EINVAL);
	}
}

/* Read-only tmpfs mounts were writable while the spec filled them. */
static void seal_tmpfs(int root_fd, const struct spec *sp)
{
	struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY };
	struct open_how how = {
		.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS,
	};

	for (uint32_t i = 0; i < sp->n_mounts; i++) {
		const struct spec_mount *m = &sp->mounts[i];
		int fd;

		if (m->kind != HUTCH_MOUNT_TMPFS || (m->flags & HUTCH_MF_RW))
			continue;
		fd = (int)syscall(SYS_openat2, root_fd, m->target + 1, &how, sizeof(how));
		if (fd < 0 || sys_mount_setattr(fd, "", AT_EMPTY_PATH, &ro) < 0)
			fail(STAGE_ROOT_READONLY, SITE_ROOT_READONLY_MOUNTS + i, errno);
		close(fd);
	}
}

/* What the mounts depend on that no request decides, so that a pooled
 * jail's pid 1 does it before its job (pool.c): the jail user's ids for
 * what we create, and the root's propagation made private, so that
 * nothing mounted from here on reaches the host's namespace. */
void root_private(uint32_t uid_inside, uint32_t gid_inside)
{
	/* Everything we create belongs to the jail's user, and a root caller's
	 * uid 0 is not even mapped here (the kernel refuses to create inodes
	 * for it). setfs[ug]id of an unmapped id keeps our capabilities. */
	setfsgid(gid_inside);
	setfsuid(uid_inside);
	if ((uid_t)setfsuid((uid_t)-1) != uid_inside || (gid_t)setfsgid((gid_t)-1) != gid_inside)
		fail(STAGE_MOUNT_PRIVATE, SITE_MOUNT_PRIVATE_FS_IDS, EPERM);

	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		fail(STAGE_MOUNT_PRIVATE, SITE_MOUNT_PRIVATE_PROPAGATION, errno);
}

/* A pooled jail's prefix (build_prefix): how many of the job's mounts
 * its root already holds, and the root. */
static uint32_t staged_k;
static int staged_root_fd = -1;
static bool root_pivoted;	/* build_whole: the root is finished and ours */

/* The sources of the bind and overlay mounts in [from, to), cloned. */
static void clone_sources(const struct spec *sp, uint32_t from, uint32_t to)
{
	/* an overlay's lower layer is a read-only bind until overlay.c
	 * stages it */
	for (uint32_t i = from; i < to; i++)
		if (sp->mounts[i].kind == HUTCH_MOUNT_BIND || sp->mounts[i].kind == HUTCH_MOUNT_OVERLAY) {
			clone_bind_source(sp, i);
			timing_mount(&sp->mounts[i], tree_is_dir[i]);
		}
}

/* The new root's tmpfs at STAGING_DIR, after every source it must not
 * cover was cloned: its fd. */
static int root_tmpfs(void)
{
	int root_fd;

	if (mount("hutch-root", STAGING_DIR, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		  ROOT_OPTIONS) < 0)
		fail(STAGE_ROOT_TMPFS, SITE_ROOT_TMPFS_MOUNT, errno);
	root_fd = open(STAGING_DIR, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (root_fd < 0)
		fail(STAGE_ROOT_TMPFS, SITE_ROOT_TMPFS_OPEN, errno);
	return root_fd;
}

static void mount_range(int root_fd, const struct spec *sp, uint32_t from, uint32_t to)
{
	for (uint32_t i = from; i < to; i++) {
		mount_one(root_fd, sp, i);
		timing_mount(&sp->mounts[i], tree_is_dir[i]);
	}
	parent_forget();	/* its kept target may be another spec's string */
}

/* A pooled jail's pid 1, after root_private, before its job: the first
 * tpl->n_mounts mounts of every job it may take (the template,
 * forkserver-wire.h) built into the new root at STAGING_DIR. From here
 * on the root covers that path of the host, so a job's own sources are
 * cloned with it there: pool_check_prefix refuses a job with a source
 * at or under it (or "/"; the frontend sends those no template). The
 * root's descriptor is kept at a fixed number for the job
 * (job_fds_place_keeping). */
void build_prefix(const struct spec *tpl)
{
	int fd;

	_Static_assert(PREFIX_KEEP_FDS == 1, "the root alone");
	/* its number taken first (fd 0 is /dev/null until the job), so
	 * that no clone lands there to be closed by the dup3 onto it */
	if (dup3(0, JOB_KEEP_FD_FIRST, O_CLOEXEC) < 0)
		fail(STAGE_ROOT_TMPFS, SITE_ROOT_TMPFS_OPEN, errno);
	clone_sources(tpl, 0, tpl->n_mounts);
	fd = root_tmpfs();
	if (fd != JOB_KEEP_FD_FIRST && dup3(fd, JOB_KEEP_FD_FIRST, O_CLOEXEC) < 0)
		fail(STAGE_ROOT_TMPFS, SITE_ROOT_TMPFS_OPEN, errno);
	if (fd != JOB_KEEP_FD_FIRST)
		close(fd);
	staged_root_fd = JOB_KEEP_FD_FIRST;
	mount_range(staged_root_fd, tpl, 0, tpl->n_mounts);
	staged_k = tpl->n_mounts;
}

/* build_root's tail, with root_fd's tmpfs holding sp's mounts up to
 * from: the rest of them and the masks, the read-only tmpfs mounts and
 * the root sealed, the user count files opened, pivot_root; root_fd
 * closed. The job's (build_root), or a whole template's, ahead of any
 * job (build_whole). */
static void finish_root(int root_fd, const struct spec *sp, uint32_t from)
{
	struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY };

	/* The mask files go in the root tmpfs's own top directory, which
	 * no mount covers (no target is "/"), prefix or not. */
	masks_prepare(root_fd, sp);
	mount_range(root_fd, sp, from, sp->n_mounts);
	masks_done(root_fd, sp);

	seal_tmpfs(root_fd, sp);
	/* Non-recursive: only the root tmpfs; /tmp and /work stay writable. */
	if (sys_mount_setattr(root_fd, "", AT_EMPTY_PATH, &ro) < 0)
		fail(STAGE_ROOT_READONLY, SITE_ROOT_READONLY_ROOT, errno);
	timing_step(HUTCH_STEP_ROOT);

	user_counts_open();	/* the last moment the host's /proc is here */
	/* pivot_root(".", ".") stacks the old root on the new one; detaching
	 * it leaves no path back to the host tree. */
	if (fchdir(root_fd) < 0 || sys_pivot_root(".", ".") < 0)
		fail(STAGE_PIVOT_ROOT, SITE_PIVOT_ROOT_PIVOT, errno);
	if (umount2(".", MNT_DETACH) < 0)
		fail(STAGE_PIVOT_ROOT, SITE_PIVOT_ROOT_DETACH, errno);
	if (chdir("/") < 0)
		fail(STAGE_PIVOT_ROOT, SITE_PIVOT_ROOT_CHDIR, errno);
	close(root_fd);
	timing_step(HUTCH_STEP_PIVOT_ROOT);
}

/* After root_private (and build_prefix, in a pooled jail whose job
 * begins with its template's mounts: helper_run_pooled checked them). */
void build_root(const struct spec *sp)
{
	int root_fd;

	/* helper_run_pooled compared them, and a whole-built root is
	 * never built again (jail_init): cannot be */
	if (staged_k > sp->n_mounts || root_pivoted)
		fail(STAGE_HELPER_EXEC, SITE_HELPER_EXEC_POOL_PREFIX, EINVAL);
	clone_sources(sp, staged_k, sp->n_mounts);
	root_fd = staged_root_fd >= 0 ? staged_root_fd : root_tmpfs();
	timing_step(HUTCH_STEP_ROOT);
	finish_root(root_fd, sp, staged_k);
}

/* A pooled jail's pid 1 with a whole template (HUTCH_SPEC_TEMPLATE_WHOLE),
 * before its job: build_prefix, then build_root's tail for the template,
 * so that its job, which must be the template in every mount
 * (spec_whole_equal), finds its root pivoted. Kept for it
 * (job_fds_place_keeping): the user count files (limit_user_counts
 * writes them at the job) from WHOLE_COUNT_FD_FIRST on, and
 * WHOLE_RULESET_FD, /dev/null until pool.c puts the Landlock ruleset
 * there. Each number taken first, so that nothing opened on the way
 * lands on one to be closed by the dup3 onto it. */
void build_whole(const struct spec *tpl)
{
	_Static_assert(WHOLE_RULESET_FD == JOB_KEEP_FD_FIRST, "the root's number, reused");
	_Static_assert(WHOLE_COUNT_FD_FIRST + HUTCH_USER_COUNT_MAX ==
			       JOB_KEEP_FD_FIRST + WHOLE_KEEP_FDS,
		       "the ruleset and the counts");
	for (int fd = WHOLE_COUNT_FD_FIRST; fd < JOB_KEEP_FD_FIRST + WHOLE_KEEP_FDS; fd++)
		if (dup3(0, fd, O_CLOEXEC) < 0)
			fail(STAGE_USER_COUNTS, 0, errno);
	build_prefix(tpl);
	finish_root(staged_root_fd, tpl, tpl->n_mounts);	/* closes it */
	staged_root_fd = -1;
	root_pivoted = true;
	user_counts_keep(WHOLE_COUNT_FD_FIRST);
	if (dup3(0, WHOLE_RULESET_FD, O_CLOEXEC) < 0)
		fail(STAGE_LANDLOCK_CREATE, SITE_LANDLOCK_CREATE_RULESET, errno);
}
