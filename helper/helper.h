/* helper.h: the steps of hutch-exec, one file each, in the order main.c
 * calls them. Phase-1 steps may allocate; phase-2 steps are async-signal-safe
 * and end in fail() on any error. */
#ifndef HUTCH_HELPER_H
#define HUTCH_HELPER_H

#include <stdint.h>
#include <sys/types.h>

#include "spec.h"
#include "status.h"

/* main.c: the one-shot helper, from fds 3-6 as hutch-exec(8) says. */
_Noreturn void helper_run_one(void);

/* forkserver.c: `hutch-exec --forkserver`, one helper_run_one per request
 * on fd 3 (forkserver-wire.h); exits when that socket ends. */
_Noreturn void forkserver_run(void);

/* control.c (phase 2): send fd with a one-byte tag on HUTCH_CONTROL_FD. */
void control_send_fd(int fd, char tag, enum hutch_stage stage, uint32_t item);

/* fail.c: one status record on HUTCH_STATUS_FD, then _exit(71). */
_Noreturn void fail(enum hutch_stage stage, uint32_t item, int err);
_Noreturn void fail_code(enum hutch_status_code code, enum hutch_stage stage, uint32_t item,
			 int err);

/* self-check.c: setuid, setgid or file capabilities on us: refuse. */
void self_check(void);

/* spec-read.c (phase 1): read and strictly decode the spec from HUTCH_SPEC_FD. */
void spec_read(struct spec *ret_sp);

/* landlock.c: phase 1 creates the ruleset (or -1); phase 2 adds the jail's
 * rules after pivot_root and enforces it after no_new_privs. */
int landlock_prepare(const struct spec *sp);
void landlock_add_rules(int ruleset_fd, const struct spec *sp);
void landlock_enforce(int ruleset_fd);
int landlock_abi(void);

/* idmap.c (phase 2, outer process, before the clone, while we hold our
 * privileges): each HUTCH_MF_IDMAP bind as a detached idmapped tree mapping
 * its source's owner to the jail's user; pid 1 attaches idmap_tree(i). */
void idmap_prepare(const struct spec *sp);
int idmap_tree(uint32_t item);
void idmap_close(const struct spec *sp);	/* the outer process's copies */

/* namespaces.c (phase 2, outer process): clone pid 1 of the jail into new
 * namespaces and write its id maps. Returns its pid to us, 0 to it (once
 * its maps are written). */
pid_t clone_into_namespaces(const struct spec *sp);
/* Also namespaces.c, for idmap.c: v in decimal at p (no NUL), returning
 * the end; SIGKILL a child of ours and reap it. Async-signal-safe. */
char *fmt_u32(char *p, uint32_t v);
void kill_child(pid_t child);

/* user-counts.c (phase 2, pid 1): the jail's user namespace may make no
 * namespaces and bounds the inotify, fanotify counts it charges to the
 * caller. HUTCH_JAIL_* are the bounds, as text; items by enum
 * hutch_user_count (status.h). */
#define HUTCH_JAIL_INOTIFY_INSTANCES "32"
#define HUTCH_JAIL_INOTIFY_WATCHES "16384"
void user_counts_open(void);	/* before the mounts */
void limit_user_counts(void);	/* after them, before the privileges go */

/* rootfs.c (phase 2, pid 1): tmpfs root, the spec's mounts, pivot_root. */
void build_root(const struct spec *sp);

/* masks.c (phase 2, pid 1, from build_root): masks_prepare makes the
 * empty file hidden files are covered with (in the root tmpfs, unlinked by
 * masks_done); mask_one enacts a HIDE, READONLY or PIN mount. */
void masks_prepare(int root_fd, const struct spec *sp);
void mask_one(int root_fd, const struct spec_mount *m, uint32_t item);
void masks_done(int root_fd, const struct spec *sp);

/* devpts.c (phase 2, pid 1, from build_root): a devpts instance of the
 * jail's own as a detached mount; its fd. */
int devpts_new(const struct spec_mount *m, uint32_t item);

/* tty.c (phase 2, pid 1; HUTCH_SPEC_TTY only): a pty of the jail's devpts
 * as 0-2, its master sent to hutch; after setsid, the controlling tty. */
void tty_prepare(const struct spec *sp);
void tty_take_controlling(const struct spec *sp);

/* netdev.c (phase 2): hostname, loopback. */
void set_hostname(const struct spec *sp);
void bring_up_loopback(void);

/* privileges.c: phase 1 reads cap_last_cap; phase 2 sets rlimits, drops
 * ids and every capability set, sets no_new_privs. */
void privileges_prepare(void);
void apply_rlimits(const struct spec *sp);
void drop_privileges(const struct spec *sp);
void set_no_new_privs(void);

/* seccomp-load.c: phase 1 refuses a spec without a filter; phase 2, the
 * last step before exec, loads base-filter.c's program, then the spec's. */
void seccomp_check_spec(const struct spec *sp);
void seccomp_enforce(const struct spec *sp);

/* base-filter.c: the fixed program under every spec's filter: no new
 * namespaces, no mounts, no set-id files, whatever the spec allows. */
struct sock_filter;
const struct sock_filter *base_filter(size_t *ret_len);

/* reaper.c: the outer process mirrors pid 1; pid 1 reaps and mirrors the
 * target. Both forward signals. */
_Noreturn void outer_wait(int child_pid);
_Noreturn void reaper_run(int target_pid);
void parent_death_guard(void);

/* exec.c (phase 2): execve the target, searching PATH from its env. */
_Noreturn void exec_target(const struct spec *sp);

#endif
