/* bind-fd.c: phase 2. Binds whose source is a descriptor a client passed
 * to `hutch serve` (HUTCH_MF_FD; the k-th such mount's descriptor is fd
 * HUTCH_BIND_FD_FIRST + k). The kernel clones a mount only from a process
 * in that mount's namespace (open_tree(OPEN_TREE_CLONE) checks it), and
 * pid 1 lives in a copy of the host's: so
 *   - with privilege over the host's mounts (root, the outer process,
 *     before the clone) the descriptor itself is cloned, flagged, and pid
 *     1 attaches the detached tree, as idmap.c's trees are (a descriptor
 *     of another mount namespace than ours is cloned from the path, as
 *     below);
 *   - without it (an unprivileged caller) pid 1 opens the path the
 *     frontend found for the descriptor, with no symbolic link followed,
 *     and refuses it unless it is the descriptor's very file (device and
 *     inode): bubblewrap's --bind-fd does the same, for the same reason.
 * Async-signal-safe: descriptors and fixed arrays only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helper.h"
#include "hutch-abi.h"
#include "sys.h"

static int pre_tree[HUTCH_SPEC_MAX_MOUNTS];

int bind_fd_of(const struct spec *sp, uint32_t item)
{
	int k = 0;

	for (uint32_t i = 0; i < item; i++)
		if (sp->mounts[i].flags & HUTCH_MF_FD)
			k++;
	return HUTCH_BIND_FD_FIRST + k;
}

/* The mount flags of a bind, set on its detached tree. */
static void flag_tree(int tree, const struct spec_mount *m, uint32_t i)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV };

	if (!(m->flags & HUTCH_MF_RW))
		attr.attr_set |= MOUNT_ATTR_RDONLY;
	if (!(m->flags & HUTCH_MF_EXEC))
		attr.attr_set |= MOUNT_ATTR_NOEXEC;
	if (sys_mount_setattr(tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr) < 0)
		fail(STAGE_BIND_SOURCE, i, errno);
}

void bind_fd_check(const struct spec *sp)
{
	/* Before we open anything that could take the numbers: missing is a
	 * spec that does not match what was passed; close-on-exec, nothing
	 * of a client's reaches the target by an exec. */
	for (uint32_t i = 0; i < sp->n_mounts; i++)
		if ((sp->mounts[i].flags & HUTCH_MF_FD) &&
		    fcntl(bind_fd_of(sp, i), F_SETFD, FD_CLOEXEC) < 0)
			fail(STAGE_BIND_SOURCE, i, EBADF);
}

void bind_fd_prepare(const struct spec *sp)
{
	for (uint32_t i = 0; i < sp->n_mounts; i++) {
		const struct spec_mount *m = &sp->mounts[i];

		pre_tree[i] = -1;
		if (!(m->flags & HUTCH_MF_FD) || (m->flags & HUTCH_MF_IDMAP) || geteuid() != 0)
			continue; /* idmap.c clones its own; pid 1 resolves the rest */
		pre_tree[i] = bind_fd_clone(sp, i);
		flag_tree(pre_tree[i], m, i);
	}
}

void bind_fd_prepare_none(const struct spec *sp)
{
	for (uint32_t i = 0; i < sp->n_mounts; i++)
		pre_tree[i] = -1;
}

int bind_fd_clone(const struct spec *sp, uint32_t i)
{
	unsigned flags = OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE;
	int tree = sys_open_tree(bind_fd_of(sp, i), "", flags), fd, err;

	/* EINVAL: a mount of another namespace (a server in a mount
	 * namespace of its own, as systemd's ProtectSystem= makes one); the
	 * frontend found the same file at this path in ours. */
	if (tree < 0 && errno == EINVAL) {
		fd = bind_fd_open_source(sp, i);
		tree = sys_open_tree(fd, "", flags);
		err = errno;
		close(fd);
		errno = err;
	}
	if (tree < 0)
		fail(STAGE_BIND_SOURCE, i, errno);
	return tree;
}

int bind_fd_tree(uint32_t item)
{
	return item < HUTCH_SPEC_MAX_MOUNTS ? pre_tree[item] : -1;
}

int bind_fd_open_source(const struct spec *sp, uint32_t i)
{
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	struct stat want, got;
	int fd;

	if (fstat(bind_fd_of(sp, i), &want) < 0)
		fail(STAGE_BIND_SOURCE, i, errno);
	fd = (int)syscall(SYS_openat2, AT_FDCWD, sp->mounts[i].source, &how, sizeof(how));
	if (fd < 0 || fstat(fd, &got) < 0)
		fail(STAGE_BIND_SOURCE, i, errno);
	/* Renamed or replaced since the frontend looked: not what was passed. */
	if (got.st_dev != want.st_dev || got.st_ino != want.st_ino)
		fail(STAGE_BIND_SOURCE, i, EXDEV);
	return fd;
}

void bind_fd_close(const struct spec *sp)
{
	int n = bind_fd_of(sp, sp->n_mounts) - HUTCH_BIND_FD_FIRST;

	for (uint32_t i = 0; i < sp->n_mounts; i++)
		if (pre_tree[i] >= 0)
			close(pre_tree[i]);
	if (n > 0)
		(void)sys_close_range(HUTCH_BIND_FD_FIRST, HUTCH_BIND_FD_FIRST + (unsigned)n - 1, 0);
}
