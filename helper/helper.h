/* helper.h: the steps of hutch-exec, one file each, in the order main.c
 * calls them. Phase-1 steps may allocate; phase-2 steps are async-signal-safe
 * and end in fail() on any error. */
#ifndef HUTCH_HELPER_H
#define HUTCH_HELPER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "forkserver-wire.h"
#include "spec-compare.h"
#include "spec.h"
#include "status.h"
#include "timings-record.h"

/* main.c: the one-shot helper, from fds 3-6 as hutch-exec(8) says;
 * helper_run_pooled, pid 1 of a pooled jail once its job's descriptors
 * are in place; jail_init, pid 1's steps from the mounts to the exec,
 * which both run (ahead: what a pooled jail's pid 1 did before its job,
 * pool.c, whose steps it skips; NULL for none); make_mirror_pipe, pid 1's
 * pipe to the outer process at HUTCH_MIRROR_FD, its read end in *ret_rd. */
_Noreturn void helper_run_one(void);
/* Also main.c, the one-shot helper's parts, for ahead.c: helper_start
 * (status pipe sealed, signals held, self check); helper_prepare, phase 1
 * once the spec is read (ret_ruleset_fd NULL: no Landlock ruleset made
 * nor cap_last_cap read, a whole-built pooled jail did both before its
 * job); helper_clone_and_run, from the outer steps before the clone to
 * outer_wait; helper_outer_run, the outer process
 * once pid 1 runs; helper_run_released, an early pid 1 once released. */
void helper_start(void);
void helper_prepare(struct spec *sp, int *ret_ruleset_fd);
_Noreturn void helper_clone_and_run(const struct spec *sp, int ruleset_fd, int mirror_rd);
_Noreturn void helper_outer_run(pid_t child, int mirror_rd);
_Noreturn void helper_run_released(uint64_t clone_ns, uint64_t spec_in_ns,
				   uint64_t released_ns);

/* ahead.c: `hutch-exec --ahead [UID]` (argc, argv: what follows
 * --ahead), pid 1 cloned into the default namespaces before the spec is
 * read; ahead_fits: the spec has that shape (else the
 * early pid 1 is discarded); ahead_check_spec, in pid 1: it has, or fail. */
_Noreturn void helper_run_ahead(int argc, char **argv);
bool ahead_fits(const struct spec *sp);
void ahead_check_spec(const struct spec *sp);
/* What a pooled jail's pid 1 did before its job (pool.c): its shape's
 * steps; with a template (tpl, else NULL), the template's mounts; with a
 * whole one (whole), also the rest of the root and the template's
 * Landlock rules in ruleset_fd (-1: no Landlock). */
struct pool_built {
	const struct hutch_fs_shape *shape;
	const struct spec *tpl;
	bool whole;
	int ruleset_fd;
};
_Noreturn void helper_run_pooled(const struct pool_built *built);
_Noreturn void jail_init(const struct spec *sp, int ruleset_fd,
			 const struct pool_built *ahead);
void make_mirror_pipe(int *ret_rd);

/* forkserver.c: `hutch-exec --forkserver [--pool N]`, one helper_run_one
 * per request on fd 3 (forkserver-wire.h), or a pooled jail's;
 * exits when that socket ends. */
_Noreturn void forkserver_run(int argc, char **argv);

/* pool.c: a pooled jail's outer process, forked by the forkserver with
 * sock its end of the outer's socket and sock1 that of pid 1's;
 * pool_check_spec, in its pid 1: the
 * spec fits the jail it was cloned as, or fail. */
_Noreturn void pool_child_run(int sock, int sock1, const struct hutch_fs_shape *shape,
			      int template_fd);
/* forkserver -> a pooled jail's outer process, once pid 1 has its job
 * (on pid 1's own socket, sock1): the job's status pipe as the one
 * descriptor. */
struct pool_outer_msg {
	uint32_t magic;		/* HUTCH_FS_MAGIC */
};
void pool_check_spec(const struct spec *sp, const struct hutch_fs_shape *shape);
/* pool_check_prefix: the job's flags, ids, hostname and first mounts are
 * the template's the jail built (built->tpl NULL: none was), all of its
 * mounts and no more when the jail was built whole, or fail. */
void pool_check_prefix(const struct spec *sp, const struct pool_built *built);

/* job-fds.c: a forkserver message's descriptors by slot (pooled: the
 * message a pooled jail gets, without cgroup and exit pipe); 0 or
 * -EBADMSG. job_fds_place: them at the numbers hutch-exec(8) gives,
 * nothing else open but keep_fd (-1: none); on failure a record on the
 * status pipe and exit 71. JOB_FDS_HIGH: where the forkserver's own
 * descriptors live, clear of every number a job's take, and low enough
 * for a server under a small RLIMIT_NOFILE (`ulimit -n 64`: F_DUPFD
 * above the limit fails). */
#define JOB_FDS_HIGH (HUTCH_BIND_FD_FIRST + HUTCH_BIND_FDS_MAX)
/* job_fds_place_keeping: the same, also keeping n_high descriptors from
 * JOB_KEEP_FD_FIRST on (a pooled jail's pid 1: what build_prefix keeps
 * for its job, rootfs.c), above the pool's own three (pool.c). */
#define JOB_KEEP_FD_FIRST (JOB_FDS_HIGH + 3)
void job_fds_place_keeping(const int slot_fd[FS_SLOTS], const int *bind_fds, uint32_t n_bind,
			   int keep_fd, unsigned n_high);
int job_fds_split(const struct hutch_fs_request *rq, ssize_t len, const int *fds, size_t n_fds,
		  bool pooled, int slot_fd[FS_SLOTS], const int **ret_bind);
void job_fds_place(const int slot_fd[FS_SLOTS], const int *bind_fds, uint32_t n_bind, int keep_fd);

/* control.c (phase 2): send fd with a one-byte tag on HUTCH_CONTROL_FD. */
void control_send_fd(int fd, char tag, enum hutch_stage stage, uint32_t item);

/* fail.c: one status record on HUTCH_STATUS_FD, then _exit(71). */
_Noreturn void fail(enum hutch_stage stage, uint32_t item, int err);
/* The same record on another descriptor (the forkserver's child, before
 * the job's status pipe is in place). */
_Noreturn void fail_to(int status_fd, enum hutch_status_code code, enum hutch_stage stage,
		       uint32_t item, int err);
_Noreturn void fail_code(enum hutch_status_code code, enum hutch_stage stage, uint32_t item,
			 int err);
/* A child of ours that any fail() kills and reaps first (0: none): an
 * early pid 1 until its release (ahead.c). */
void fail_kill_first(pid_t child);
/* The record fail_to writes, without the exit: for a job whose own
 * process cannot write it any more (forkserver-pool.c). */
void record_to(int status_fd, enum hutch_status_code code, enum hutch_stage stage,
	       uint32_t item, int err);
/* From here on, this process's records go to sink instead (NULL: back
 * to the status descriptor); sink must not return (pool.c). */
void fail_redirect(void (*sink)(const struct hutch_status *st));

/* self-check.c: setuid, setgid or file capabilities on us: refuse. */
void self_check(void);

/* spec-read.c (phase 1): read and strictly decode the spec from HUTCH_SPEC_FD;
 * spec_read_bytes, the read alone (the whole spec, EOF after it; malloc'd);
 * spec_decode_or_fail, the decode alone (bad_spec record on failure; *ret_sp
 * points into buf, which must stay). */
void spec_read(struct spec *ret_sp);
void spec_read_bytes(uint8_t **ret_buf, uint32_t *ret_total);
void spec_decode_or_fail(const uint8_t *buf, uint32_t total, struct spec *ret_sp);

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
int idmap_tree(uint32_t item, int *ret_is_dir);
void idmap_close(const struct spec *sp);	/* the outer process's copies */

/* bind-fd.c (phase 2): binds of descriptors a serve client passed
 * (HUTCH_MF_FD). bind_fd_of: the fd of mount item. Phase 1, right after
 * the spec is read: bind_fd_check marks them close-on-exec, refusing a
 * spec whose descriptor is missing. The outer process, before the clone:
 * bind_fd_prepare, when it holds privilege over the host's mounts, clones
 * and flags each non-idmapped one; bind_fd_close closes its copies after
 * the clone. pid 1: bind_fd_tree(i), or -1 when
 * it must bind_fd_open_source(sp, i): the frontend's path, opened with no
 * link followed and refused unless it is the descriptor's file. */
int bind_fd_of(const struct spec *sp, uint32_t item);
void bind_fd_check(const struct spec *sp);
void bind_fd_prepare(const struct spec *sp);
void bind_fd_prepare_none(const struct spec *sp);	/* a pooled jail's pid 1: no tree prepared */
int bind_fd_clone(const struct spec *sp, uint32_t item);	/* the outer process, as root */
int bind_fd_tree(uint32_t item);
int bind_fd_open_source(const struct spec *sp, uint32_t item);
void bind_fd_close(const struct spec *sp);

/* namespaces.c (phase 2, outer process): clone pid 1 of the jail into new
 * namespaces and write its id maps. Returns its pid to us, 0 to it (once
 * its maps are written). */
pid_t clone_into_namespaces(const struct spec *sp);
/* Its parts, for ahead.c: ns_clone (see namespaces.c), ns_write_id_maps
 * (the outer process, pid 1 waiting), ns_child_released (pid 1 once
 * released: a root owner's secure bits back). */
pid_t ns_clone(uint32_t spec_flags, uint32_t uid_outside, int *ret_sync);
void ns_write_id_maps(pid_t child, const struct spec *sp);
void ns_child_released(void);
/* Also namespaces.c, for idmap.c: v in decimal at p (no NUL), returning
 * the end; SIGKILL a child of ours and reap it. Async-signal-safe. */
char *fmt_u32(char *p, uint32_t v);
void kill_child(pid_t child);

/* user-counts.c (phase 2, pid 1): the jail's user namespace may make no
 * namespaces and bounds the inotify, fanotify counts it charges to the
 * caller, inotify's to the spec's user caps; items by enum
 * hutch_user_count (status.h). */
void user_counts_open(void);	/* while the host's /proc is here: before pivot_root */
/* Those opened moved to first + their item (build_whole's kept numbers,
 * each taken already: dup3 replaces it). */
void user_counts_keep(int first);
void limit_user_counts(const struct spec *sp);	/* after them, before the privileges go */

/* rootfs.c (phase 2, pid 1): root_private, what the mounts need that only
 * the shape decides (the jail user's fs ids, propagation private); then
 * build_root: tmpfs root, the spec's mounts, the user count files opened,
 * pivot_root.
 * The new root is assembled at STAGING_DIR before pivot_root; our mount
 * namespace is private by then, so covering it hides nothing from anyone
 * else. mount_new_fs: a new tmpfs (m's size, inodes, mode; owned by the
 * jail's user) or proc as a detached mount. */
#define STAGING_DIR HUTCH_STAGING_DIR	/* spec-compare.h */
void root_private(uint32_t uid_inside, uint32_t gid_inside);
void build_root(const struct spec *sp);
/* build_prefix: a pooled jail's pid 1, before its job: the template's
 * mounts (forkserver-wire.h) built into the new root; build_root then
 * adds only the job's others. */
void build_prefix(const struct spec *tpl);
#define PREFIX_KEEP_FDS 1	/* what build_prefix keeps at JOB_KEEP_FD_FIRST and up */
/* build_whole: a whole template's (HUTCH_SPEC_TEMPLATE_WHOLE) root, all
 * of build_root done before the job, pivot_root included; kept for the
 * job: the user count files and the number of the Landlock ruleset
 * (pool.c makes it, with the template's rules). */
void build_whole(const struct spec *tpl);
#define WHOLE_RULESET_FD JOB_KEEP_FD_FIRST
#define WHOLE_COUNT_FD_FIRST (JOB_KEEP_FD_FIRST + 1)
#define WHOLE_KEEP_FDS (1 + HUTCH_USER_COUNT_MAX)
int mount_new_fs(const char *type, const struct spec *sp, const struct spec_mount *m, uint32_t i);

/* overlay.c (phase 2, pid 1, from build_root): a copy-on-write mount of
 * lower_tree (the cloned, read-only source of mount i) over a tmpfs of
 * its own, staged in the new root (root_fd) and unstaged again; the upper
 * tmpfs goes to hutch on the control socket. Returns the detached
 * overlay mount. */
int overlay_new(int root_fd, const struct spec *sp, uint32_t i, int lower_tree, int is_dir);
/* overlay-absent.c (phase 2, from overlay_new): the READONLY and PIN
 * targets in overlay i that its lower tree lacks, made as empty
 * directories in OVL_BASE_NAME of its upper tmpfs; 1 when any was. */
#define OVL_BASE_NAME "base"
int overlay_absent(const struct spec *sp, uint32_t i, int lower_fd, int upper_fd);

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

/* netdev.c (phase 2): hostname, loopback, the proxy's listening socket
 * (sent to hutch on HUTCH_CONTROL_FD). */
void set_hostname(uint32_t spec_flags, const char *hostname);
bool loopback_wanted(uint32_t spec_flags);	/* a netns of its own, lo up */
void bring_up_loopback(void);
void proxy_listen(void);

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

/* timings.c (phase 2): each step's time (timings-record.h), sent by pid 1 once
 * the target's execve is done. timings_start when the spec is in (and
 * whether there is a control socket to send on); timing_step(s) charges
 * the time since the last step to s; before seccomp, the close-on-exec
 * pipe that tells pid 1 of the execve; in the target after fork, the
 * control socket and that pipe's read end closed; in pid 1 after it
 * (reaper_run, once its signal forwarders are in place), fork and exec
 * charged, the record sent, the control socket closed. */
void timings_start(void);
/* An early pid 1 (ahead.c), after its timings_start: the record starts
 * when the outer process began the clone (clone_ns, before the spec was
 * in: hutch charges only what of it came after its own last step); clone
 * is from then until the outer process had the spec, id_maps from then
 * (its decode and check, the maps) until pid 1's release, prepare the
 * rest. timings_now: the monotonic clock in ns. */
void timings_ahead(uint64_t clone_ns, uint64_t spec_in_ns, uint64_t released_ns);
uint64_t timings_now(void);
bool timings_enabled(void);
void timing_step(enum hutch_step s);
void timing_mount(const struct spec_mount *m, bool is_dir);	/* its kind's step */
void timings_exec_pipe(void);
void timings_in_target(void);
void timings_send(void);

/* reaper.c: the outer process mirrors pid 1; pid 1 reaps and mirrors the
 * target. Both forward signals. */
_Noreturn void outer_wait(int child_pid);
/* A pooled jail's outer process: fd reads pid 1's records from before
 * its job, which outer_wait passes on to the job (pool.c). */
void outer_relay_early(int fd);
_Noreturn void reaper_run(int target_pid);
void parent_death_guard(void);
void signals_hold(void);		/* first thing: forwarded signals wait */
void signals_release_target(void);	/* the target's own mask back */

/* exec.c (phase 2): execve the target, searching PATH from its env. */
_Noreturn void exec_target(const struct spec *sp);

#endif
