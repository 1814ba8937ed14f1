/* kernel-steps-tree.c: kernel-steps' jail filesystem and Landlock rules,
 * the system calls helper/rootfs.c and helper/landlock.c make, in their
 * order, for the mounts of the plan: every bind source opened without
 * links, cloned (open_tree) and flagged (mount_setattr) while detached; a
 * tmpfs root; the mounts attached in spec order (move_mount), new tmpfs,
 * proc and devpts instances through fsopen/fsconfig/fsmount; the read-only
 * tmpfs mounts and the root sealed; pivot_root and the old root detached.
 * Then one Landlock rule per mount target plus "/". None of hutch's own
 * checks beyond what the kernel work needs, no error reporting but die().
 * A benchmark aid (bench/README). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <linux/mount.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernel-steps.h"

static long mount_setattr(int fd, unsigned set)
{
	struct mount_attr a = { .attr_set = set };

	return syscall(__NR_mount_setattr, fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &a, sizeof(a));
}

void mount_private(void)
{
	setfsgid(plan.gid_in);
	setfsuid(plan.uid_in);
	if (syscall(SYS_mount, NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		die("mount private");
}

/* Which step a mount is charged to, as helper/timings.c does. */
static enum step step_of(int i)
{
	switch (plan.m[i].kind) {
	case K_BIND: return tree_dir[i] ? S_BINDS_DIR : S_BINDS_FILE;
	case K_TMPFS: return S_TMPFS;
	case K_PROC: return S_PROC;
	case K_DEVPTS: return S_DEVPTS;
	default: return S_FILES;
	}
}

/* The source opened without links, cloned, its flags set while detached. */
static void clone_source(int i)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC,
				.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	const struct mnt *m = &plan.m[i];
	unsigned set = MOUNT_ATTR_NOSUID;
	struct stat st;
	int fd = (int)syscall(__NR_openat2, AT_FDCWD, m->source, &how, sizeof(how));

	tree_fd[i] = -1;
	if (fd < 0 && errno == ENOENT && (m->flags & F_OPTIONAL))
		return;
	if (fd < 0 || fstat(fd, &st) < 0)
		die(m->source);
	tree_fd[i] = (int)syscall(__NR_open_tree, fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
						       AT_EMPTY_PATH | AT_RECURSIVE);
	if (tree_fd[i] < 0)
		die("open_tree");
	close(fd);
	set |= (m->flags & F_RW) ? 0 : MOUNT_ATTR_RDONLY;
	set |= (m->flags & F_DEV) ? 0 : MOUNT_ATTR_NODEV;
	set |= (m->flags & F_EXEC) ? 0 : MOUNT_ATTR_NOEXEC;
	if (mount_setattr(tree_fd[i], set) < 0)
		die("mount_setattr");
}

/* The parent of target under root, made as needed, kept for the next
 * target in the same directory (as rootfs.c keeps it). */
static int parent_of(int root_fd, const char *target, char *name)
{
	static int kept_1;	/* the kept fd + 1, 0: none (.bss, see prefault) */
	static char kept_dir[4096];
	int kept = kept_1 - 1;
	const char *last = strrchr(target, '/'), *p = target + 1;
	size_t len = (size_t)(last - target);
	int dir;

	strcpy(name, last + 1);
	if (kept >= 0 && strlen(kept_dir) == len && memcmp(kept_dir, target, len) == 0)
		return kept;
	if (kept >= 0)
		close(kept);
	dir = openat(root_fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	while (p < last) {
		char comp[256];
		size_t n = strcspn(p, "/");
		int next;

		memcpy(comp, p, n);
		comp[n] = '\0';
		mkdirat(dir, comp, 0755);
		next = openat(dir, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0)
			die(target);
		close(dir);
		dir = next;
		p += n + 1;
	}
	memcpy(kept_dir, target, len);
	kept_dir[len] = '\0';
	kept_1 = dir + 1;
	return dir;
}

static int make_dir(int dir, const char *name, unsigned mode)
{
	int fd;

	mkdirat(dir, name, mode);
	fd = openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		die(name);
	return fd;
}

static void attach(int mnt, int target)
{
	if (syscall(__NR_move_mount, mnt, "", target, "",
		    MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0)
		die("move_mount");
	close(mnt);
	close(target);
}

static void fs_set(int fs, const char *key, const char *fmt, unsigned long long v)
{
	char num[24];

	snprintf(num, sizeof(num), fmt, v);
	if (syscall(__NR_fsconfig, fs, FSCONFIG_SET_STRING, key, num, 0) < 0)
		die(key);
}

/* a new tmpfs, proc or devpts instance, detached */
static int new_fs(const struct mnt *m)
{
	unsigned attrs = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC;
	const char *type = m->kind == K_TMPFS ? "tmpfs" : m->kind == K_PROC ? "proc" : "devpts";
	int fs = (int)syscall(__NR_fsopen, type, FSOPEN_CLOEXEC), mnt;

	if (fs < 0)
		die("fsopen");
	if (m->kind == K_TMPFS) {
		fs_set(fs, "size", "%llu", m->size);
		fs_set(fs, "nr_inodes", "%llu", m->inodes);
		fs_set(fs, "mode", "%llo", m->mode);
		fs_set(fs, "uid", "%llu", plan.uid_in);
		fs_set(fs, "gid", "%llu", plan.gid_in);
		if (m->flags & F_EXEC)
			attrs &= ~(unsigned)MOUNT_ATTR_NOEXEC;
	} else if (m->kind == K_DEVPTS) {
		syscall(__NR_fsconfig, fs, FSCONFIG_SET_FLAG, "newinstance", NULL, 0);
		fs_set(fs, "ptmxmode", "%04llo", m->mode & 0777);
		fs_set(fs, "mode", "%llo", 0620);
		fs_set(fs, "max", "%llu", 64);
		attrs &= ~(unsigned)MOUNT_ATTR_NODEV;
	}
	if (syscall(__NR_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) < 0)
		die("fsconfig create");
	mnt = (int)syscall(__NR_fsmount, fs, FSMOUNT_CLOEXEC, attrs);
	if (mnt < 0)
		die("fsmount");
	close(fs);
	return mnt;
}

static void mount_one(int root_fd, int i)
{
	const struct mnt *m = &plan.m[i];
	char name[256], zeros[4096] = { 0 };
	struct statfs sfs;
	int dir, fd, mnt;

	if (m->kind == K_BIND && tree_fd[i] < 0)
		return;
	dir = parent_of(root_fd, m->target, name);
	switch (m->kind) {
	case K_BIND:
		if (tree_dir[i])
			fd = make_dir(dir, name, 0755);
		else
			fd = openat(dir, name, O_CREAT | O_EXCL | O_RDONLY | O_NOFOLLOW | O_CLOEXEC, 0444);
		if (fd < 0)
			die(m->target);
		attach(tree_fd[i], fd);
		break;
	case K_TMPFS:
	case K_DEVPTS:
		mnt = new_fs(m);
		attach(mnt, make_dir(dir, name, 0755));
		break;
	case K_PROC:
		fd = make_dir(dir, name, 0555);
		mnt = new_fs(m);
		if (fstatfs(mnt, &sfs) < 0)
			die("fstatfs");
		attach(mnt, fd);
		break;
	case K_SYMLINK:
		if (symlinkat(m->source, dir, name) < 0)
			die(m->target);
		break;
	case K_FILE:
		fd = openat(dir, name, O_CREAT | O_EXCL | O_WRONLY | O_NOFOLLOW | O_CLOEXEC, m->mode);
		if (fd < 0 || write(fd, zeros, m->data_len < 4096 ? m->data_len : 4096) < 0 ||
		    fchown(fd, plan.uid_in, plan.gid_in) < 0 || fchmod(fd, m->mode) < 0)
			die(m->target);
		close(fd);
		break;
	case K_DIR:
		close(make_dir(dir, name, m->mode));
		break;
	}
}

/* binds' sources, the root tmpfs, the mounts in order, sealed, pivoted */
void build_tree(void)
{
	int root_fd;

	for (int i = 0; i < plan.n; i++)
		if (plan.m[i].kind == K_BIND && RUN(step_of(i))) {
			clone_source(i);
			mark(step_of(i));
		}
	if (syscall(SYS_mount, "hutch-root", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC,
		    "mode=0755,size=64m,nr_inodes=16384") < 0)
		die("root tmpfs");
	root_fd = open("/tmp", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (root_fd < 0)
		die("/tmp");
	mark(S_ROOT);
	for (int i = 0; i < plan.n; i++)
		if (RUN(step_of(i))) {
			mount_one(root_fd, i);
			mark(step_of(i));
		}
	for (int i = 0; i < plan.n; i++) {
		struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
					.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS };
		struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY };
		int fd;

		if (plan.m[i].kind != K_TMPFS || (plan.m[i].flags & F_RW) || !RUN(S_TMPFS))
			continue;
		fd = (int)syscall(__NR_openat2, root_fd, plan.m[i].target + 1, &how, sizeof(how));
		if (fd < 0 || syscall(__NR_mount_setattr, fd, "", AT_EMPTY_PATH, &ro, sizeof(ro)) < 0)
			die("seal");
		close(fd);
	}
	{
		struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY };

		if (syscall(__NR_mount_setattr, root_fd, "", AT_EMPTY_PATH, &ro, sizeof(ro)) < 0)
			die("root ro");
	}
	mark(S_ROOT);
	if (!RUN(S_PIVOT_ROOT))
		return;
	if (fchdir(root_fd) < 0 || syscall(SYS_pivot_root, ".", ".") < 0 ||
	    syscall(SYS_umount2, ".", 2 /* MNT_DETACH */) < 0 || chdir("/") < 0)
		die("pivot_root");
	close(root_fd);
	mark(S_PIVOT_ROOT);
}

/* Landlock: landlock.c's rules, by path after pivot_root */

#define FS_READ (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
#define FS_FILE_RIGHTS                                                                    \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |                      \
	 LANDLOCK_ACCESS_FS_READ_FILE | (1ULL << 14) | (1ULL << 15))
static unsigned long long handled_fs;

void landlock_create(void)
{
	struct { unsigned long long fs, net, scoped; } attr = { 0 };
	int abi = (int)syscall(__NR_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	size_t size = 8;

	if (abi < 1)
		die("landlock ABI");
	handled_fs = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;
	handled_fs |= abi >= 2 ? (1ULL << 13) : 0;	/* REFER */
	handled_fs |= abi >= 3 ? (1ULL << 14) : 0;	/* TRUNCATE */
	handled_fs |= abi >= 5 ? (1ULL << 15) : 0;	/* IOCTL_DEV */
	attr.fs = handled_fs;
	if (abi >= 6) {
		attr.scoped = 3;	/* abstract unix sockets, signals */
		size = sizeof(attr);
	}
	ruleset_fd = (int)syscall(__NR_landlock_create_ruleset, &attr, size, 0);
	if (ruleset_fd < 0)
		die("landlock_create_ruleset");
}

static unsigned long long rights_of(const struct mnt *m)
{
	unsigned long long exec = (m->flags & F_EXEC) ? LANDLOCK_ACCESS_FS_EXECUTE : 0;

	switch (m->kind) {
	case K_BIND:
		if (m->flags & F_DEV)
			return FS_FILE_RIGHTS & ~(unsigned long long)LANDLOCK_ACCESS_FS_EXECUTE;
		/* fallthrough */
	case K_TMPFS:
		return FS_READ | exec | ((m->flags & F_RW) ? handled_fs & ~FS_READ : 0);
	case K_PROC: return FS_READ;
	case K_FILE: return LANDLOCK_ACCESS_FS_READ_FILE;
	case K_DIR: return LANDLOCK_ACCESS_FS_READ_DIR;
	case K_DEVPTS: return FS_READ | LANDLOCK_ACCESS_FS_WRITE_FILE | (1ULL << 15);
	}
	return 0;
}

static void rule(const char *path, unsigned long long rights)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC,
				.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS };
	struct landlock_path_beneath_attr pb = { 0 };
	struct stat st;
	int fd = (int)syscall(__NR_openat2, AT_FDCWD, path, &how, sizeof(how));

	if (fd < 0 && errno == ENOENT)
		return;
	if (fd < 0 || fstat(fd, &st) < 0)
		die(path);
	if (!S_ISDIR(st.st_mode))
		rights &= FS_FILE_RIGHTS;
	pb.allowed_access = rights & handled_fs;
	pb.parent_fd = fd;
	if (pb.allowed_access &&
	    syscall(__NR_landlock_add_rule, ruleset_fd, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0)
		die("landlock_add_rule");
	close(fd);
}

void landlock_rules(void)
{
	for (int i = 0; i < plan.n; i++)
		if (rights_of(&plan.m[i]))
			rule(plan.m[i].target, rights_of(&plan.m[i]));
	rule("/", LANDLOCK_ACCESS_FS_READ_DIR);
}

