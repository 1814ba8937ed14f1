/* landlock.c: Landlock at the best ABI the kernel offers. Phase 1 creates
 * the ruleset (handled rights sized to the ABI); phase 2, after pivot_root,
 * grants each of the spec's mounts its rights by inode (read-only binds read
 * and, where exec is allowed, execute; writable tmpfs and binds read-write;
 * device binds read and write; /proc read) and "/" listing only; everything
 * else is denied. With ABI >= 4 and no network, TCP bind/connect are denied;
 * with ABI >= 6, abstract unix sockets and signals are scoped to the jail. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helper.h"
#include "sys.h"

#define FS_READ (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
#define FS_WRITE                                                                          \
	(LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |                   \
	 LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_DIR |                    \
	 LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |                      \
	 LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_SYM |                      \
	 LANDLOCK_ACCESS_FS_REFER | LANDLOCK_ACCESS_FS_TRUNCATE)
/* Rights that mean something on a non-directory; others make add_rule fail. */
#define FS_FILE_RIGHTS                                                                    \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |                      \
	 LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE |                      \
	 LANDLOCK_ACCESS_FS_IOCTL_DEV)

static int abi_version = -1;
static __u64 handled_fs;

int landlock_abi(void)
{
	if (abi_version < 0) {
		abi_version = sys_landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
		if (abi_version < 0)
			abi_version = 0;
	}
	return abi_version;
}

int landlock_prepare(const struct spec *sp)
{
	struct hutch_landlock_attr attr = { 0 };
	size_t size = sizeof(attr.handled_access_fs);
	int abi, fd;

	if (!(sp->flags & HUTCH_SPEC_LANDLOCK))
		return -1;
	abi = landlock_abi();
	if (abi < 1) {
		if (sp->flags & HUTCH_SPEC_LANDLOCK_REQUIRED)
			fail_code(HUTCH_MECH_UNAVAILABLE, STAGE_LANDLOCK_CREATE,
				  SITE_LANDLOCK_CREATE_ABI, EOPNOTSUPP);
		return -1;
	}
	handled_fs = ((LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1); /* ABI 1 */
	if (abi >= 2)
		handled_fs |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		handled_fs |= LANDLOCK_ACCESS_FS_TRUNCATE;
	if (abi >= 5)
		handled_fs |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
	attr.handled_access_fs = handled_fs;
	if (abi >= 4 && (sp->flags & HUTCH_SPEC_LANDLOCK_NET)) {
		attr.handled_access_net =
			LANDLOCK_ACCESS_NET_BIND_TCP | LANDLOCK_ACCESS_NET_CONNECT_TCP;
		size = offsetof(struct hutch_landlock_attr, scoped);
	}
	if (abi >= 6) {
		attr.scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL;
		size = sizeof(attr);
	}
	fd = sys_landlock_create_ruleset(&attr, size, 0);
	if (fd < 0)
		fail_code(HUTCH_MECH_UNAVAILABLE, STAGE_LANDLOCK_CREATE,
			  SITE_LANDLOCK_CREATE_RULESET, errno);
	return fd;
}

static __u64 rights_for(const struct spec_mount *m)
{
	__u64 exec = (m->flags & HUTCH_MF_EXEC) ? LANDLOCK_ACCESS_FS_EXECUTE : 0;

	switch ((enum hutch_mount_kind)m->kind) {
	case HUTCH_MOUNT_BIND:
		if (m->flags & HUTCH_MF_DEV)
			return LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE |
			       LANDLOCK_ACCESS_FS_TRUNCATE | LANDLOCK_ACCESS_FS_IOCTL_DEV;
		/* fallthrough */
	case HUTCH_MOUNT_TMPFS:
		return FS_READ | exec | ((m->flags & HUTCH_MF_RW) ? FS_WRITE : 0);
	case HUTCH_MOUNT_OVERLAY:
		return FS_READ | exec | FS_WRITE;	/* writes land in its upper layer */
	case HUTCH_MOUNT_PROC:
		return FS_READ;
	case HUTCH_MOUNT_FILE:
		return LANDLOCK_ACCESS_FS_READ_FILE;
	case HUTCH_MOUNT_DIR:
		return LANDLOCK_ACCESS_FS_READ_DIR;
	case HUTCH_MOUNT_DEVPTS:
		/* the jail's own terminals: open, read, write, ioctl (seccomp
		 * still refuses TIOCSTI and TIOCLINUX) */
		return LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_READ_FILE |
		       LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_IOCTL_DEV;
	case HUTCH_MOUNT_SYMLINK:
	case HUTCH_MOUNT_HIDE:		/* beneath a bind's rule; read-only mounts */
	case HUTCH_MOUNT_READONLY:
	case HUTCH_MOUNT_PIN:
	case HUTCH_MOUNT_KIND_MAX:
		break;
	}
	return 0;
}

/* The rule goes on the inode the mount put there, reached the way
 * rootfs.c reaches targets: no link followed in any component (open with
 * O_NOFOLLOW follows all but the last, so a link put in a host directory
 * bound above the target, or a later mount's link, would move the rule to
 * another inode). A link in the way is ELOOP and refused. */
static void add_path_rule(int ruleset_fd, const char *path, __u64 rights, uint32_t item)
{
	struct landlock_path_beneath_attr pb = { 0 };
	struct open_how how = {
		.flags = O_PATH | O_CLOEXEC,
		.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	struct stat st;
	int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));

	if (fd < 0 && errno == ENOENT)
		return; /* an optional bind that was absent */
	if (fd < 0 || fstat(fd, &st) < 0)
		fail(STAGE_LANDLOCK_RULES, item, errno);
	if (!S_ISDIR(st.st_mode))
		rights &= FS_FILE_RIGHTS;
	pb.allowed_access = rights & handled_fs;
	pb.parent_fd = fd;
	if (pb.allowed_access &&
	    sys_landlock_add_rule(ruleset_fd, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) < 0)
		fail(STAGE_LANDLOCK_RULES, item, errno);
	close(fd);
}

void landlock_add_rules(int ruleset_fd, const struct spec *sp)
{
	if (ruleset_fd < 0)
		return;
	for (uint32_t i = 0; i < sp->n_mounts; i++) {
		__u64 rights = rights_for(&sp->mounts[i]);

		if (rights)
			add_path_rule(ruleset_fd, sp->mounts[i].target, rights, i);
	}
	add_path_rule(ruleset_fd, "/", LANDLOCK_ACCESS_FS_READ_DIR, sp->n_mounts);
}

void landlock_enforce(int ruleset_fd)
{
	if (ruleset_fd < 0)
		return;
	if (sys_landlock_restrict_self(ruleset_fd, 0) < 0)
		fail(STAGE_LANDLOCK_ENFORCE, SITE_LANDLOCK_ENFORCE_RESTRICT, errno);
	close(ruleset_fd);
}
