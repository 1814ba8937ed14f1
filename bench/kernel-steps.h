/* kernel-steps.h: what kernel-steps.c and kernel-steps-tree.c share: the
 * steps, the plan read from spec-plan's output, the run's record and the
 * clock that charges time to steps. A benchmark aid (bench/README). */
#ifndef KERNEL_STEPS_H
#define KERNEL_STEPS_H

/* x86-64 numbers, for a libc older than the calls */
#ifndef __NR_open_tree
#define __NR_open_tree 428
#define __NR_move_mount 429
#define __NR_fsopen 430
#define __NR_fsconfig 431
#define __NR_fsmount 432
#endif
#ifndef __NR_openat2
#define __NR_openat2 437
#endif
#ifndef __NR_close_range
#define __NR_close_range 436
#endif
#ifndef __NR_mount_setattr
#define __NR_mount_setattr 442
#endif
#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif
#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT 47
#define PR_CAP_AMBIENT_CLEAR_ALL 4
#endif

/* the order of jail.timings (shared/timings-record.h), teardown added */
enum step {
	S_PREPARE, S_CLONE, S_ID_MAPS, S_MOUNT_PRIVATE, S_BINDS_DIR, S_BINDS_FILE, S_ROOT,
	S_TMPFS, S_PROC, S_DEVPTS, S_FILES, S_PIVOT_ROOT, S_NETWORK, S_LANDLOCK, S_RLIMITS,
	S_PRIVILEGES, S_SESSION, S_SECCOMP, S_FORK, S_EXEC, S_TEARDOWN, S_MAX
};
#define BIT(s) (1u << (s))
#define RUN(s) (run_mask & BIT(s))

/* spec.h's mount kinds and flags, as spec-plan prints them */
enum { K_BIND = 1, K_TMPFS, K_PROC, K_SYMLINK, K_FILE, K_DIR, K_DEVPTS };
enum { F_RW = 1, F_EXEC = 2, F_DEV = 4, F_OPTIONAL = 8 };
#define MAX_MOUNTS 256

struct mnt {
	int kind, flags;
	unsigned mode;
	unsigned long long size, inodes, data_len;
	const char *source, *target;	/* in paths[] */
};

struct plan {
	unsigned flags;			/* spec flags */
	unsigned uid_in, gid_in, uid_out, gid_out;
	unsigned long long rlim[5], ucap[4];
	char hostname[65], cwd[256];
	int n;
	struct mnt m[MAX_MOUNTS];
};
extern struct plan plan;


/* one run's record, in memory shared with pid 1 */
struct rec {
	double wall[S_MAX], cpu[S_MAX];
	double t_exit, cpu_before_exit;
};
extern struct rec *rec;
extern unsigned run_mask;
extern int tree_fd[MAX_MOUNTS], tree_dir[MAX_MOUNTS];
extern int ruleset_fd;

_Noreturn void die(const char *what);
void mark(enum step s);		/* charge the time since the last mark to s */

/* kernel-steps-tree.c */
void mount_private(void);
void build_tree(void);		/* binds .. pivot_root, each step marked */
void landlock_create(void);
void landlock_rules(void);

#endif
