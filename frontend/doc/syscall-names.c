/* syscall-names.c: the syscall names a policy may use (see
 * syscall-names.h). libseccomp's name table is a lookup, no system call:
 * checking a policy stays pure; jail/filter.c compiles the program.
 * Frontend only. */
#include "config.h"

#include <seccomp.h>
#include <stddef.h>

#include "doc/syscall-names.h"

const char *const syscall_default_deny[] = {
	/* kernel modules and kexec */
	"init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load",
	/* kernel attack surface rarely needed by jailed work */
	"bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter",
	"io_uring_register",
	/* keyrings */
	"keyctl", "add_key", "request_key",
	/* file handles ("shocker") */
	"open_by_handle_at", "name_to_handle_at",
	/* mounts and namespaces after setup */
	"mount", "umount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen",
	"fsconfig", "fsmount", "fspick", "mount_setattr", "setns", "unshare",
	/* the machine's state */
	"reboot", "swapon", "swapoff", "clock_settime", "clock_adjtime", "settimeofday",
	"adjtimex", "acct", "quotactl", "syslog", "sethostname", "setdomainname", "iopl", "ioperm",
	/* obsolete or dangerous */
	"lookup_dcookie", "vhangup", "nfsservctl", "uselib", "ustat", "sysfs", "_sysctl",
	"fanotify_init", "process_vm_writev",
	NULL
};

bool syscall_name_known(const char *name)
{
	return seccomp_syscall_resolve_name(name) != __NR_SCMP_ERROR;
}
