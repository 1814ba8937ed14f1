/* idmap.c: phase 2, outer process, before the jail's namespaces exist.
 * A root caller's jail runs as the policy's unprivileged user, so a --rw
 * bind of a directory the caller owns would not be writable in it. For a
 * bind the spec marks HUTCH_MF_IDMAP we clone the source's tree and make
 * it an idmapped mount (mount_setattr MOUNT_ATTR_IDMAP) whose map has one
 * line, "OWNER JAIL 1", for the uid and the gid of the source: the jail's
 * user acts as the source's owner there and nowhere else, files it creates
 * land on the host owned by that owner, and every other id is unmapped (so
 * only "other" permissions apply to it). This needs CAP_SYS_ADMIN over the
 * filesystem's superblock, which only we hold, as root, before the clone;
 * pid 1 attaches the tree like any other bind (rootfs.c). A kernel or
 * filesystem that cannot idmap fails closed (mechanism unavailable): the
 * jail never runs with a weaker bind. The set-id bits the jail could set
 * on its files stay refused by the base filter (base-filter.c).
 * Async-signal-safe: fork, pipes, /proc writes, numbers formatted by hand. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fd-util.h"
#include "helper.h"
#include "sys.h"

static int idmapped_fd[HUTCH_SPEC_MAX_MOUNTS];
static unsigned char idmapped_is_dir[HUTCH_SPEC_MAX_MOUNTS];

/* Others may write it: group- or world-writable, or sticky (a directory
 * users share, like /tmp). Its owner's ownership would let the jail chmod
 * it, read the owner's private files there, and rename or remove anyone's
 * (as a sticky directory's owner may): the frontend refuses such a bind
 * with words (hutch(1), --rw); this holds if one was swapped in since. */
static int is_shared(const struct stat *st)
{
	return (st->st_mode & (S_IWGRP | S_IWOTH | S_ISVTX)) != 0;
}

/* /proc/PID/NAME <- "INSIDE OUTSIDE 1\n"; -errno or 0. */
static int write_map(pid_t pid, const char *name, uint32_t inside, uint32_t outside)
{
	char path[48] = "/proc/", line[32], *p = fmt_u32(path + 6, (uint32_t)pid);
	int fd, r;

	*p++ = '/';
	memcpy(p, name, strlen(name) + 1);
	p = fmt_u32(line, inside);
	*p++ = ' ';
	p = fmt_u32(p, outside);
	memcpy(p, " 1\n", 3);
	p += 3;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = fd_write_all(fd, line, (size_t)(p - line));
	close(fd);
	return r;
}

/* A user namespace holding only owner -> jail (uid and gid), as an fd.
 * A child unshares it and waits on a pipe; we write its maps (as root in
 * the parent namespace), open its ns/user and let it go. */
static int make_userns(const struct stat *owner, const struct spec *sp, uint32_t i)
{
	char path[48] = "/proc/", *p, b = 0;
	int ready[2], hold[2], fd = -1, r, err = 0;
	pid_t pid;

	if (pipe2(ready, O_CLOEXEC) < 0 || pipe2(hold, O_CLOEXEC) < 0)
		fail(STAGE_BIND_IDMAP, i, errno);
	pid = fork();
	if (pid < 0)
		fail(STAGE_BIND_IDMAP, i, errno);
	if (pid == 0) {
		close(ready[0]);
		close(hold[1]);
		if (unshare(CLONE_NEWUSER) < 0)
			err = errno;
		(void)fd_write_all(ready[1], &err, sizeof(err)); /* 0: ready */
		if (err)
			_exit(1);
		(void)fd_read_full(hold[0], &b, 1); /* EOF: we are done with it */
		_exit(0);
	}
	close(ready[1]);
	close(hold[0]);
	/* The child's errno of unshare, as it was (EPIPE: it died first). */
	r = fd_read_full(ready[0], &err, sizeof(err)) == (long)sizeof(err) ? -err : -EPIPE;
	close(ready[0]);
	if (r == 0)
		r = write_map(pid, "uid_map", (uint32_t)owner->st_uid, sp->uid_outside);
	if (r == 0)
		r = write_map(pid, "gid_map", (uint32_t)owner->st_gid, sp->gid_outside);
	if (r == 0) {
		p = fmt_u32(path + 6, (uint32_t)pid);
		memcpy(p, "/ns/user", 9);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		r = fd < 0 ? -errno : 0;
	}
	close(hold[1]);
	kill_child(pid);
	if (r < 0)
		fail_code(HUTCH_MECH_UNAVAILABLE, STAGE_BIND_IDMAP, i, -r);
	return fd;
}

static void idmap_one(const struct spec *sp, const struct spec_mount *m, uint32_t i)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_IDMAP | MOUNT_ATTR_NOSUID |
					       MOUNT_ATTR_NODEV };
	struct stat st;
	int fd, tree;

	/* A passed descriptor is cloned itself (bind-fd.c says how). */
	fd = (m->flags & HUTCH_MF_FD) ? fcntl(bind_fd_of(sp, i), F_DUPFD_CLOEXEC, 0)
				      : (int)syscall(SYS_openat2, AT_FDCWD, m->source, &how, sizeof(how));
	if (fd < 0 || fstat(fd, &st) < 0)
		fail(STAGE_BIND_SOURCE, i, errno);
	if (S_ISSOCK(st.st_mode) || S_ISFIFO(st.st_mode) || is_shared(&st))
		fail(STAGE_BIND_SOURCE, i, EPERM);
	idmapped_is_dir[i] = S_ISDIR(st.st_mode) ? 1 : 0;
	if (m->flags & HUTCH_MF_FD)
		tree = bind_fd_clone(sp, i); /* the same file as fd, checked */
	else
		tree = sys_open_tree(fd, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH |
						     AT_RECURSIVE);
	if (tree < 0)
		fail(STAGE_BIND_SOURCE, i, errno);
	close(fd);
	if (!(m->flags & HUTCH_MF_EXEC))
		attr.attr_set |= MOUNT_ATTR_NOEXEC;
	if (!(m->flags & HUTCH_MF_RW))	/* an overlay's lower layer */
		attr.attr_set |= MOUNT_ATTR_RDONLY;
	attr.userns_fd = (uint64_t)make_userns(&st, sp, i);
	/* EINVAL: the filesystem cannot idmap (or a submount's cannot);
	 * EPERM: not ours to idmap. Either way there is no jail to offer. */
	if (sys_mount_setattr(tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr) < 0)
		fail_code(HUTCH_MECH_UNAVAILABLE, STAGE_BIND_IDMAP, i, errno);
	close((int)attr.userns_fd);
	idmapped_fd[i] = tree;
}

void idmap_prepare(const struct spec *sp)
{
	for (uint32_t i = 0; i < sp->n_mounts; i++) {
		idmapped_fd[i] = -1;
		if (sp->mounts[i].flags & HUTCH_MF_IDMAP)
			idmap_one(sp, &sp->mounts[i], i);
	}
}

int idmap_tree(uint32_t i, int *ret_is_dir)
{
	if (i >= HUTCH_SPEC_MAX_MOUNTS)
		return -1;
	*ret_is_dir = idmapped_is_dir[i];
	return idmapped_fd[i];
}

void idmap_close(const struct spec *sp)
{
	for (uint32_t i = 0; i < sp->n_mounts; i++)
		if (idmapped_fd[i] >= 0)
			close(idmapped_fd[i]);
}
