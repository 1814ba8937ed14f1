/* memfd-notify.c: memfd_create on behalf of a jail (see memfd-notify.h).
 * Why here: vm.memfd_noexec=2 would make the kernel do this, but only the
 * initial user namespace's root may set it, and a jail's pid 1 never is.
 * So the filter lets only MFD_NOEXEC_SEAL through and sends the rest to
 * us; we create the memfd with the seal (mode 0666, F_SEAL_EXEC: no chmod
 * can add an x bit) and hand it over, so fexecve() and execve of
 * /proc/self/fd/N fail with EACCES while shared memory, sealing and JIT
 * double-mapping keep working. Frontend only; called from supervise.c. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/audit.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cleanup.h"
#include "run/memfd-notify.h"

#define X32 0x40000000u
#define NR64_MEMFD_CREATE 319
#define NR32_MEMFD_CREATE 356
#define MFD_NAME_MAX 249	/* NAME_MAX - strlen("memfd:"), mm/memfd.c */
#define FALLBACK_NAME "hutch"
#define PAGE 4096u

bool memfd_notify_is_memfd(const struct seccomp_data *d)
{
	if (d->arch == AUDIT_ARCH_X86_64)
		return d->nr == NR64_MEMFD_CREATE || d->nr == (int)(X32 | NR64_MEMFD_CREATE);
	return d->arch == AUDIT_ARCH_I386 && d->nr == NR32_MEMFD_CREATE;
}

/* The caller's name argument, NUL-terminated, at most MFD_NAME_MAX bytes
 * (the kernel's own rules: longer is EINVAL, unreadable EFAULT). Read in
 * two pieces split at a page boundary, because process_vm_readv fails a
 * piece whole when any of it faults. The name is cosmetic: where we may
 * not read the caller's memory (Yama's EPERM, or ESRCH for a pid our
 * namespace does not show) a fixed name stands in; install() then checks
 * that the caller still waits. */
static int read_name(const struct seccomp_notif *n, char ret[MFD_NAME_MAX + 1])
{
	uint64_t addr = n->data.args[0];
	size_t want = MFD_NAME_MAX + 1, first;
	struct iovec local = { ret, want }, remote[2];
	ssize_t got;

	if (n->data.arch == AUDIT_ARCH_I386)
		addr = (uint32_t)addr;
	first = PAGE - (size_t)(addr % PAGE);
	if (first > want)
		first = want;
	remote[0] = (struct iovec){ (void *)(uintptr_t)addr, first };
	remote[1] = (struct iovec){ (void *)(uintptr_t)(addr + first), want - first };
	got = process_vm_readv((pid_t)n->pid, &local, 1, remote, first < want ? 2 : 1, 0);
	if (got < 0 && errno != EFAULT) {
		memcpy(ret, FALLBACK_NAME, sizeof(FALLBACK_NAME));
		return 0;
	}
	if (got <= 0)
		return -EFAULT;
	if (memchr(ret, '\0', (size_t)got))
		return 0;
	return (size_t)got < want ? -EFAULT : -EINVAL;
}

/* A memfd sealed against exec, close-on-exec here; -ENOSYS where the
 * kernel cannot seal (an unknown flag is EINVAL, so ask once more with no
 * flag of the caller's to tell that from the caller's own bad flags). */
static int create_sealed(const char *name, unsigned int flags)
{
	unsigned int ours = MFD_CLOEXEC | MFD_NOEXEC_SEAL;
	_cleanup_close_ int fd = memfd_create(name, (flags & ~MFD_CLOEXEC) | ours);
	int err = errno, seals;

	if (fd < 0 && err == EINVAL) {
		_cleanup_close_ int probe = memfd_create(FALLBACK_NAME, ours);

		return probe < 0 ? -ENOSYS : -EINVAL;
	}
	if (fd < 0)
		return -err;
	/* Fail closed should a kernel accept the flag without sealing. */
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || !(seals & F_SEAL_EXEC))
		return -ENOSYS;
	return TAKE_FD(fd);
}

/* >= 0: answered with the descriptor; else the errno to answer with
 * (-ENOENT: nobody waits any more). */
static int install(int listener_fd, const struct seccomp_notif *n)
{
	unsigned int flags = (unsigned int)n->data.args[1]; /* an unsigned int */
	char name[MFD_NAME_MAX + 1];
	struct seccomp_notif_addfd add;
	_cleanup_close_ int fd = -1;
	int r;

	if (flags & MFD_EXEC)
		return -EINVAL; /* the filter refuses it already; never here */
	r = read_name(n, name);
	if (r < 0)
		return r;
	/* The pid may have died and been reused while we read its memory:
	 * only a notification still pending makes the bytes the caller's. */
	if (ioctl(listener_fd, SECCOMP_IOCTL_NOTIF_ID_VALID, &n->id) < 0)
		return -ENOENT;
	fd = create_sealed(name, flags);
	if (fd < 0)
		return fd;
	add = (struct seccomp_notif_addfd){
		.id = n->id,
		.flags = SECCOMP_ADDFD_FLAG_SEND,
		.srcfd = (uint32_t)fd,
		.newfd_flags = (flags & MFD_CLOEXEC) ? O_CLOEXEC : 0,
	};
	/* The target installs it itself, under its own RLIMIT_NOFILE: EMFILE
	 * comes back here and is its answer. EINVAL: no FLAG_SEND (< 5.14). */
	r = ioctl(listener_fd, SECCOMP_IOCTL_NOTIF_ADDFD, &add);
	if (r < 0)
		return errno == EINVAL ? -ENOSYS : -errno;
	return r;
}

void memfd_notify_answer(int listener_fd, const struct seccomp_notif *n,
			 struct seccomp_notif_resp *resp, size_t resp_size)
{
	int r = install(listener_fd, n);

	if (r >= 0 || r == -ENOENT)
		return;
	memset(resp, 0, resp_size);
	resp->id = n->id;
	resp->error = r;
	/* ENOENT: the caller died meanwhile; nothing to answer. */
	(void)ioctl(listener_fd, SECCOMP_IOCTL_NOTIF_SEND, resp);
}

bool memfd_notify_probe(char *why, size_t cap)
{
	_cleanup_close_ int fd = memfd_create("hutch-probe", MFD_CLOEXEC | MFD_NOEXEC_SEAL);
	int seals = fd < 0 ? -1 : fcntl(fd, F_GET_SEALS);

	if (seals >= 0 && (seals & F_SEAL_EXEC)) {
		snprintf(why, cap, "memfd_create is sealed against exec by the supervisor "
				   "(MFD_NOEXEC_SEAL, F_SEAL_EXEC)");
		return true;
	}
	snprintf(why, cap, "the kernel lacks MFD_NOEXEC_SEAL (Linux 6.3): memfd_create "
			   "without it fails with ENOSYS in a jail; exec of a memfd stays refused");
	return false;
}
