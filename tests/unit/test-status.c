/* test-status.c: unit tests of the helper's status record (shared/status.c)
 * and the user-visible error table (shared/errors.c): every enum value named
 * exactly once, the strings and exit statuses DESIGN.md promises, the
 * record check that stands between the status pipe and the frontend, and
 * the words for every stage and site (status_describe). */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "errors.h"
#include "spec.h"
#include "status.h"

#include "cunit-main.h"

/* ---- the wire record ---- */

static void test_status_record_layout(void)
{
	/* The record crosses a pipe between two binaries: its layout is ABI. */
	CU_ASSERT_EQUAL(sizeof(struct hutch_status), 16);
	CU_ASSERT_EQUAL(offsetof(struct hutch_status, magic), 0);
	CU_ASSERT_EQUAL(offsetof(struct hutch_status, code), 4);
	CU_ASSERT_EQUAL(offsetof(struct hutch_status, stage), 6);
	CU_ASSERT_EQUAL(offsetof(struct hutch_status, item), 8);
	CU_ASSERT_EQUAL(offsetof(struct hutch_status, err), 12);
	CU_ASSERT(sizeof(struct hutch_status) <= PIPE_BUF);
	CU_ASSERT_EQUAL(HUTCH_STATUS_MAGIC, 0x48535431u);
}

/* Numbers are stable across releases (status.h: append only). */
static void test_status_numbers_stable(void)
{
	CU_ASSERT_EQUAL(HUTCH_SETUP_FAILED, 1);
	CU_ASSERT_EQUAL(HUTCH_EXEC_FAILED, 2);
	CU_ASSERT_EQUAL(HUTCH_MECH_UNAVAILABLE, 3);
	CU_ASSERT_EQUAL(HUTCH_PRIVILEGED_BINARY, 4);
	CU_ASSERT_EQUAL(HUTCH_BAD_SPEC, 5);
	CU_ASSERT_EQUAL(HUTCH_HELPER_CRASHED, 6);
	CU_ASSERT_EQUAL(STAGE_SELF_CHECK, 1);
	CU_ASSERT_EQUAL(STAGE_SPEC_DECODE, 3);
	CU_ASSERT_EQUAL(STAGE_MOUNT, 15);
	CU_ASSERT_EQUAL(STAGE_SECCOMP, 31);
	CU_ASSERT_EQUAL(STAGE_EXEC, 32);
	CU_ASSERT_EQUAL(STAGE_JAIL_INIT, 34);
}

/* ---- name tables ---- */

/* Every value in [1, max) has a distinct, non-empty, lower_snake name;
 * 0, max and far beyond have none. */
static void check_name_table(const char *(*name_of)(unsigned), unsigned max)
{
	for (unsigned i = 1; i < max; i++) {
		const char *n = name_of(i);

		CU_ASSERT_PTR_NOT_NULL_FATAL(n);
		CU_ASSERT(n[0] != '\0');
		CU_ASSERT_EQUAL(strspn(n, "abcdefghijklmnopqrstuvwxyz_"), strlen(n));
		for (unsigned j = 1; j < i; j++)
			CU_ASSERT(strcmp(n, name_of(j)) != 0);
	}
	CU_ASSERT_PTR_NULL(name_of(0));
	CU_ASSERT_PTR_NULL(name_of(max));
	CU_ASSERT_PTR_NULL(name_of(max + 1));
	CU_ASSERT_PTR_NULL(name_of(0xffffu));
	CU_ASSERT_PTR_NULL(name_of(UINT_MAX));
}

static void test_stage_names(void)
{
	check_name_table(status_stage_name, STAGE_MAX);
	CU_ASSERT_STRING_EQUAL(status_stage_name(STAGE_SELF_CHECK), "self_check");
	CU_ASSERT_STRING_EQUAL(status_stage_name(STAGE_SPEC_DECODE), "spec_decode");
	CU_ASSERT_STRING_EQUAL(status_stage_name(STAGE_USERNS), "user_namespace");
	CU_ASSERT_STRING_EQUAL(status_stage_name(STAGE_MOUNT), "mount");
	CU_ASSERT_STRING_EQUAL(status_stage_name(STAGE_SECCOMP), "seccomp");
	CU_ASSERT_STRING_EQUAL(status_stage_name(STAGE_EXEC), "exec");
	CU_ASSERT_STRING_EQUAL(status_stage_name(STAGE_JAIL_INIT), "jail_init");
}

/* Every stage is decided: the mechanism a refusal there names (then
 * sandbox_unavailable), or none (spawn_error). A new stage fails here
 * until it is put on one side. */
static void test_stage_mechanisms(void)
{
	static const unsigned none[] = { STAGE_SELF_CHECK, STAGE_SPEC_READ, STAGE_SPEC_DECODE,
					 STAGE_FORK, STAGE_PARENT_GONE, STAGE_BIND_SOURCE,
					 STAGE_MOUNT_TARGET, STAGE_CHDIR, STAGE_CWD_CHECK,
					 STAGE_CLOSE_FDS, STAGE_SETSID, STAGE_EXEC,
					 STAGE_HELPER_EXEC, STAGE_JAIL_INIT, STAGE_BIND_IDMAP,
					 STAGE_TTY };
	static const char *const known[] = { "user_namespaces", "namespaces", "mounts",
					     "uts_namespace", "network_namespace", "landlock",
					     "rlimits", "privileges", "seccomp", "overlay" };
	unsigned n_mech = 0;

	for (unsigned st = 1; st < STAGE_MAX; st++) {
		const char *m = status_stage_mechanism(st);
		bool listed = false, named = false;

		for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
			listed |= none[i] == st;
		for (size_t i = 0; m && i < sizeof(known) / sizeof(known[0]); i++)
			named |= strcmp(m, known[i]) == 0;
		CU_ASSERT(listed != (m != NULL));
		CU_ASSERT(!m || named);
		n_mech += m != NULL;
	}
	CU_ASSERT_EQUAL(n_mech + sizeof(none) / sizeof(none[0]), STAGE_MAX - 1);
	CU_ASSERT_STRING_EQUAL(status_stage_mechanism(STAGE_MOUNT_PRIVATE), "mounts");
	CU_ASSERT_STRING_EQUAL(status_stage_mechanism(STAGE_USERNS), "user_namespaces");
	CU_ASSERT_PTR_NULL(status_stage_mechanism(0));
	CU_ASSERT_PTR_NULL(status_stage_mechanism(STAGE_MAX));
}

static void test_code_names(void)
{
	static const struct {
		unsigned code;
		const char *name;
	} want[] = {
		{ HUTCH_SETUP_FAILED, "setup_failed" },
		{ HUTCH_EXEC_FAILED, "exec_failed" },
		{ HUTCH_MECH_UNAVAILABLE, "mechanism_unavailable" },
		{ HUTCH_PRIVILEGED_BINARY, "privileged_binary" },
		{ HUTCH_BAD_SPEC, "bad_spec" },
		{ HUTCH_HELPER_CRASHED, "helper_crashed" },
	};

	check_name_table(status_code_name, HUTCH_STATUS_CODE_MAX);
	CU_ASSERT_EQUAL(sizeof(want) / sizeof(want[0]), HUTCH_STATUS_CODE_MAX - 1);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		CU_ASSERT_STRING_EQUAL(status_code_name(want[i].code), want[i].name);
}

/* ---- status_check ---- */

static const struct hutch_status good_status = {
	.magic = HUTCH_STATUS_MAGIC,
	.code = HUTCH_SETUP_FAILED,
	.stage = STAGE_MOUNT,
	.item = 3,
	.err = EPERM,
};

static void test_status_check_accepts(void)
{
	struct hutch_status st = good_status;

	CU_ASSERT_EQUAL(status_check(&st), 0);
	st.err = 0;
	CU_ASSERT_EQUAL(status_check(&st), 0);
	st.item = UINT32_MAX; /* an index: any value is well formed */
	CU_ASSERT_EQUAL(status_check(&st), 0);
	st.err = INT32_MAX;
	CU_ASSERT_EQUAL(status_check(&st), 0);

	/* The extremes of both ranges. */
	st = good_status;
	st.code = HUTCH_STATUS_CODE_MAX - 1;
	st.stage = STAGE_MAX - 1;
	CU_ASSERT_EQUAL(status_check(&st), 0);
	st.code = 1;
	st.stage = 1;
	CU_ASSERT_EQUAL(status_check(&st), 0);
	st.code = HUTCH_EXEC_FAILED;
	st.stage = STAGE_EXEC;
	st.err = ENOENT;
	CU_ASSERT_EQUAL(status_check(&st), 0);
}

static void test_status_check_rejects(void)
{
	static const struct {
		const char *what;
		uint32_t magic;
		uint16_t code, stage;
		int32_t err;
	} bad[] = {
		{ "magic 0", 0, HUTCH_SETUP_FAILED, STAGE_MOUNT, 0 },
		{ "magic byte-swapped", 0x31545348u, HUTCH_SETUP_FAILED, STAGE_MOUNT, 0 },
		{ "magic off by one", HUTCH_STATUS_MAGIC + 1, HUTCH_SETUP_FAILED, STAGE_MOUNT, 0 },
		{ "magic all ones", UINT32_MAX, HUTCH_SETUP_FAILED, STAGE_MOUNT, 0 },
		{ "code 0", HUTCH_STATUS_MAGIC, 0, STAGE_MOUNT, 0 },
		{ "code max", HUTCH_STATUS_MAGIC, HUTCH_STATUS_CODE_MAX, STAGE_MOUNT, 0 },
		{ "code 0xffff", HUTCH_STATUS_MAGIC, 0xffff, STAGE_MOUNT, 0 },
		{ "stage 0", HUTCH_STATUS_MAGIC, HUTCH_SETUP_FAILED, 0, 0 },
		{ "stage max", HUTCH_STATUS_MAGIC, HUTCH_SETUP_FAILED, STAGE_MAX, 0 },
		{ "stage 0xffff", HUTCH_STATUS_MAGIC, HUTCH_SETUP_FAILED, 0xffff, 0 },
		{ "err -1", HUTCH_STATUS_MAGIC, HUTCH_SETUP_FAILED, STAGE_MOUNT, -1 },
		{ "err -EPERM", HUTCH_STATUS_MAGIC, HUTCH_SETUP_FAILED, STAGE_MOUNT, -EPERM },
		{ "err INT32_MIN", HUTCH_STATUS_MAGIC, HUTCH_SETUP_FAILED, STAGE_MOUNT, INT32_MIN },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct hutch_status st = good_status;

		st.magic = bad[i].magic;
		st.code = bad[i].code;
		st.stage = bad[i].stage;
		st.err = bad[i].err;
		if (status_check(&st) != -EBADMSG)
			fprintf(stderr, "\n  accepted: %s\n", bad[i].what);
		CU_ASSERT_EQUAL(status_check(&st), -EBADMSG);
	}
}

/* ---- sites and their words ---- */

/* Site numbers are on the wire: the ones that have shipped stay put. */
static void test_site_numbers_stable(void)
{
	static const struct {
		unsigned got, want;
	} n[] = {
		{ SITE_SELF_CHECK_SECURE, 0 }, { SITE_SELF_CHECK_SETID_BITS, 1 },
		{ SITE_SELF_CHECK_FILE_CAPS, 2 },
		{ SITE_SPEC_READ_HEADER, 0 }, { SITE_SPEC_READ_BODY, 1 },
		{ SITE_SPEC_DECODE_HEADER, 0 }, { SITE_SPEC_DECODE_TRAILING, 1 },
		{ SITE_SPEC_DECODE_BODY, 2 },
		{ SITE_LANDLOCK_CREATE_ABI, 0 }, { SITE_LANDLOCK_CREATE_RULESET, 1 },
		{ SITE_SETGROUPS_DROP, 0 }, { SITE_USERNS_CLONE, 0 },
		{ SITE_USERNS_OWNER, 1 }, { SITE_USERNS_OWNER_BACK, 2 },
		{ SITE_ID_MAP_SETGROUPS, 0 }, { SITE_ID_MAP_UID, 1 }, { SITE_ID_MAP_GID, 2 },
		{ SITE_FORK_MIRROR_PIPE, 0 }, { SITE_FORK_MIRROR_FD, 1 }, { SITE_FORK_TARGET, 2 },
		{ SITE_FORK_UNUSED_3, 3 }, { SITE_FORK_SYNC_PIPE, 4 },
		{ SITE_FORK_SYNC_RELEASE, 5 }, { SITE_FORK_MIRROR_REOPEN, 6 },
		{ SITE_PARENT_GONE_PDEATHSIG, 0 }, { SITE_PARENT_GONE_CHECK, 1 },
		{ SITE_MOUNT_PRIVATE_PROPAGATION, 0 }, { SITE_MOUNT_PRIVATE_FS_IDS, 1 },
		{ SITE_ROOT_TMPFS_MOUNT, 0 }, { SITE_ROOT_TMPFS_OPEN, 1 },
		{ SITE_ROOT_READONLY_ROOT, 0 }, { SITE_ROOT_READONLY_MOUNTS, 1 },
		{ SITE_PIVOT_ROOT_PIVOT, 0 }, { SITE_PIVOT_ROOT_DETACH, 1 },
		{ SITE_PIVOT_ROOT_CHDIR, 2 }, { SITE_HOSTNAME_SET, 0 },
		{ SITE_LOOPBACK_SOCKET, 0 }, { SITE_LOOPBACK_GET_FLAGS, 1 },
		{ SITE_LOOPBACK_UP, 2 },
		{ HUTCH_RLIM_AS, 0 }, { HUTCH_RLIM_NPROC, 4 }, { SITE_RLIMIT_CORE, 5 },
		{ SITE_RLIMIT_SIGPENDING, 6 }, { SITE_RLIMIT_MSGQUEUE, 7 },
		{ SITE_DROP_IDS_GID, 0 }, { SITE_DROP_IDS_UID, 1 },
		{ SITE_DROP_CAPS_BOUNDING, 0 }, { SITE_DROP_CAPS_AMBIENT, 100 },
		{ SITE_DROP_CAPS_APPLY, 101 }, { SITE_DROP_CAPS_READ, 102 },
		{ SITE_DROP_CAPS_LEFT, 103 }, { SITE_DROP_CAPS_BOUNDING_LEFT, 104 },
		{ SITE_NO_NEW_PRIVS_SET, 0 }, { SITE_NO_NEW_PRIVS_DUMPABLE, 1 },
		{ SITE_LANDLOCK_ENFORCE_RESTRICT, 0 }, { SITE_CHDIR_CWD, 0 },
		{ SITE_CWD_CHECK_GETCWD, 0 }, { SITE_CLOSE_FDS_RANGE, 0 },
		{ SITE_SETSID_SESSION, 0 },
		{ SITE_SECCOMP_SPEC_FILTER, 0 }, { SITE_SECCOMP_SEND_LISTENER, 1 },
		{ SITE_SECCOMP_BASE_FILTER, 2 }, { SITE_SECCOMP_NO_FILTER, 3 },
		{ SITE_EXEC_EXECVE, 0 }, { SITE_HELPER_EXEC_EXECVE, 0 }, { SITE_JAIL_INIT_WAIT, 0 },
		{ HUTCH_UC_USER_NS, 0 }, { HUTCH_UC_TIME_NS, 7 }, { HUTCH_UC_FANOTIFY_MARKS, 11 },
		{ STAGE_BIND_IDMAP, 36 }, { STAGE_TTY, 37 },
		{ SITE_TTY_OPEN_PTMX, 0 }, { SITE_TTY_UNLOCK, 1 }, { SITE_TTY_PEER, 2 },
		{ SITE_TTY_SEND, 3 }, { SITE_TTY_STDIO, 4 }, { SITE_TTY_CONTROLLING, 5 },
	};

	for (size_t i = 0; i < sizeof(n) / sizeof(n[0]); i++) {
		if (n[i].got != n[i].want)
			fprintf(stderr, "\n  entry %zu: %u, shipped as %u\n", i, n[i].got,
				n[i].want);
		CU_ASSERT_EQUAL(n[i].got, n[i].want);
	}
}

/* What each stage's item is. Sites [first, max); an indexed stage names a
 * mount and is checked with a spec below. Every stage is here once: a new
 * stage fails the count, a new site past a stage's max has no words. */
static const struct {
	unsigned stage;
	uint32_t first, max;
	int is_mount_index;
} stage_items[] = {
	{ STAGE_SELF_CHECK, 0, SITE_SELF_CHECK_MAX, 0 },
	{ STAGE_SPEC_READ, 0, SITE_SPEC_READ_MAX, 0 },
	{ STAGE_SPEC_DECODE, 0, SITE_SPEC_DECODE_MAX, 0 },
	{ STAGE_LANDLOCK_CREATE, 0, SITE_LANDLOCK_CREATE_MAX, 0 },
	{ STAGE_SETGROUPS, 0, SITE_SETGROUPS_MAX, 0 },
	{ STAGE_USERNS, 0, SITE_USERNS_MAX, 0 },
	{ STAGE_ID_MAP, 0, SITE_ID_MAP_MAX, 0 },
	{ STAGE_NAMESPACES, 0, SITE_NAMESPACES_MAX, 0 },
	{ STAGE_FORK, 0, SITE_FORK_MAX, 0 },
	{ STAGE_PARENT_GONE, 0, SITE_PARENT_GONE_MAX, 0 },
	{ STAGE_MOUNT_PRIVATE, 0, SITE_MOUNT_PRIVATE_MAX, 0 },
	{ STAGE_BIND_SOURCE, 0, 0, 1 },
	{ STAGE_ROOT_TMPFS, 0, SITE_ROOT_TMPFS_MAX, 0 },
	{ STAGE_MOUNT_TARGET, 0, 0, 1 },
	{ STAGE_MOUNT, 0, 0, 1 },
	{ STAGE_PROC_VERIFY, 0, 0, 1 },
	{ STAGE_ROOT_READONLY, 0, SITE_ROOT_READONLY_MAX, 1 },
	{ STAGE_PIVOT_ROOT, 0, SITE_PIVOT_ROOT_MAX, 0 },
	{ STAGE_HOSTNAME, 0, SITE_HOSTNAME_MAX, 0 },
	{ STAGE_LOOPBACK, 0, SITE_LOOPBACK_MAX, 0 },
	{ STAGE_LANDLOCK_RULES, 0, 0, 1 },
	{ STAGE_RLIMIT, 0, SITE_RLIMIT_MAX, 0 },
	{ STAGE_DROP_IDS, 0, SITE_DROP_IDS_MAX, 0 },
	{ STAGE_DROP_CAPS, SITE_DROP_CAPS_AMBIENT, SITE_DROP_CAPS_MAX, 0 },
	{ STAGE_NO_NEW_PRIVS, 0, SITE_NO_NEW_PRIVS_MAX, 0 },
	{ STAGE_LANDLOCK_ENFORCE, 0, SITE_LANDLOCK_ENFORCE_MAX, 0 },
	{ STAGE_CHDIR, 0, SITE_CHDIR_MAX, 0 },
	{ STAGE_CWD_CHECK, 0, SITE_CWD_CHECK_MAX, 0 },
	{ STAGE_CLOSE_FDS, 0, SITE_CLOSE_FDS_MAX, 0 },
	{ STAGE_SETSID, 0, SITE_SETSID_MAX, 0 },
	{ STAGE_SECCOMP, 0, SITE_SECCOMP_MAX, 0 },
	{ STAGE_EXEC, 0, SITE_EXEC_MAX, 0 },
	{ STAGE_HELPER_EXEC, 0, SITE_HELPER_EXEC_MAX, 0 },
	{ STAGE_JAIL_INIT, 0, SITE_JAIL_INIT_MAX, 0 },
	{ STAGE_USER_COUNTS, 0, HUTCH_USER_COUNT_MAX, 0 },
	{ STAGE_BIND_IDMAP, 0, 0, 1 },
	{ STAGE_TTY, 0, SITE_TTY_MAX, 0 },
	{ STAGE_OVERLAY, 0, 0, 1 },
};

/* The words for one record, asserting they were not cut. */
static const char *words(unsigned code, unsigned stage, uint32_t item, int err,
			 const struct spec *sp)
{
	static char buf[512];
	struct hutch_status st = { HUTCH_STATUS_MAGIC, (uint16_t)code, (uint16_t)stage, item, err };

	CU_ASSERT_EQUAL(status_describe(&st, sp, buf, sizeof(buf)), 0);
	return buf;
}

/* The fallback for a number status.c has no words for. */
static int is_fallback(const char *w)
{
	return strncmp(w, "stage ", 6) == 0;
}

static void test_every_site_has_words(void)
{
	CU_ASSERT_EQUAL(sizeof(stage_items) / sizeof(stage_items[0]), STAGE_MAX - 1);
	for (size_t k = 0; k < sizeof(stage_items) / sizeof(stage_items[0]); k++) {
		unsigned stage = stage_items[k].stage;

		CU_ASSERT_EQUAL(stage, k + 1); /* in order, each once */
		for (uint32_t i = stage_items[k].first; i < stage_items[k].max; i++) {
			char w[512];

			snprintf(w, sizeof(w), "%s", words(HUTCH_SETUP_FAILED, stage, i, 0, NULL));
			if (w[0] == '\0' || is_fallback(w))
				fprintf(stderr, "\n  no words: stage %s, item %u\n",
					status_stage_name(stage), (unsigned)i);
			CU_ASSERT(w[0] != '\0' && !is_fallback(w));
			CU_ASSERT_PTR_NULL(strchr(w, '%'));
			/* Two sites of a stage never read the same. */
			for (uint32_t j = stage_items[k].first; j < i; j++) {
				const char *o = words(HUTCH_SETUP_FAILED, stage, j, 0, NULL);

				CU_ASSERT(strcmp(w, o) != 0);
			}
		}
	}
}

/* Past the last site, and in a stage never written: the fallback, which
 * still names the stage and the number. */
static void test_unknown_sites_fall_back(void)
{
	CU_ASSERT_STRING_EQUAL(words(HUTCH_SETUP_FAILED, STAGE_FORK, SITE_FORK_MAX, EPERM, NULL),
			       "stage fork, item 7: EPERM");
	CU_ASSERT_STRING_EQUAL(words(HUTCH_SETUP_FAILED, STAGE_NAMESPACES, 0, EINVAL, NULL),
			       "stage namespaces, item 0: EINVAL");
	CU_ASSERT_STRING_EQUAL(words(HUTCH_SETUP_FAILED, STAGE_DROP_CAPS, SITE_DROP_CAPS_MAX, 0,
				     NULL), "stage drop_caps, item 105");
	CU_ASSERT_STRING_EQUAL(words(HUTCH_SETUP_FAILED, STAGE_USER_COUNTS, HUTCH_USER_COUNT_MAX,
				     0, NULL), "stage user_counts, item 12");
	CU_ASSERT_STRING_EQUAL(words(HUTCH_SETUP_FAILED, 0, 0, 0, NULL), "stage unknown, item 0");
	CU_ASSERT_STRING_EQUAL(words(HUTCH_SETUP_FAILED, 0xffff, UINT32_MAX, 0, NULL),
			       "stage unknown, item 4294967295");
	CU_ASSERT_STRING_EQUAL(words(HUTCH_SETUP_FAILED, STAGE_EXEC, 0, 4000, NULL),
			       "executing the command: errno 4000");
}

static struct spec_mount fixture_mounts[] = {
	{ .kind = HUTCH_MOUNT_BIND, .source = "/srv/data", .target = "/data" },
	{ .kind = HUTCH_MOUNT_TMPFS, .source = "", .target = "/tmp" },
	{ .kind = HUTCH_MOUNT_PROC, .source = "", .target = "/proc" },
	{ .kind = HUTCH_MOUNT_SYMLINK, .source = "usr/bin", .target = "/bin" },
	{ .kind = HUTCH_MOUNT_FILE, .source = "", .target = "/etc/passwd" },
	{ .kind = HUTCH_MOUNT_DIR, .source = "", .target = "/work" },
	{ .kind = HUTCH_MOUNT_BIND, .source = "/srv/a\nb\x1b", .target = "/x\ty" },
};
static const struct spec fixture = {
	.cwd = "/work",
	.n_mounts = sizeof(fixture_mounts) / sizeof(fixture_mounts[0]),
	.mounts = fixture_mounts,
};

/* The examples the issue asked for, word for word. */
static void test_words_examples(void)
{
	CU_ASSERT_STRING_EQUAL(words(HUTCH_SETUP_FAILED, STAGE_ID_MAP, SITE_ID_MAP_GID, EPERM,
				     NULL), "writing gid_map: EPERM");
	CU_ASSERT_STRING_EQUAL(words(HUTCH_SETUP_FAILED, STAGE_BIND_SOURCE, 0, ENOENT, &fixture),
			       "bind of /srv/data: ENOENT");
	CU_ASSERT_STRING_EQUAL(words(HUTCH_SETUP_FAILED, STAGE_MOUNT, 1, EINVAL, &fixture),
			       "mount of tmpfs at /tmp: EINVAL");
	CU_ASSERT_STRING_EQUAL(words(HUTCH_SETUP_FAILED, STAGE_RLIMIT, HUTCH_RLIM_NPROC, EPERM,
				     NULL), "setting RLIMIT_NPROC: EPERM");
	CU_ASSERT_STRING_EQUAL(words(HUTCH_MECH_UNAVAILABLE, STAGE_SECCOMP,
				     SITE_SECCOMP_SPEC_FILTER, EINVAL, NULL),
			       "loading the seccomp filter: EINVAL");
}

/* Every stage whose item is a mount index, with the spec and without. */
static void test_words_mounts(void)
{
	static const struct {
		unsigned stage;
		uint32_t item;
		const char *with, *without;
	} w[] = {
		{ STAGE_MOUNT_TARGET, 4, "creating the mount point for /etc/passwd",
		  "creating the mount point for mount 4" },
		{ STAGE_MOUNT, 0, "bind of /srv/data at /data", "mounting mount 0" },
		{ STAGE_MOUNT, 2, "mount of proc at /proc", "mounting mount 2" },
		{ STAGE_MOUNT, 3, "creating the symbolic link /bin", "mounting mount 3" },
		{ STAGE_MOUNT, 4, "writing the file /etc/passwd", "mounting mount 4" },
		{ STAGE_MOUNT, 5, "creating the directory /work", "mounting mount 5" },
		{ STAGE_PROC_VERIFY, 2, "checking that a procfs is at /proc",
		  "checking that a procfs is at mount 2" },
		{ STAGE_LANDLOCK_RULES, 0, "adding the Landlock rule for /data",
		  "adding the Landlock rule for mount 0" },
		{ STAGE_LANDLOCK_RULES, 7, "adding the Landlock rule for /",
		  "adding the Landlock rule for mount 7" },
		{ STAGE_ROOT_READONLY, SITE_ROOT_READONLY_MOUNTS + 1, "making /tmp read-only",
		  "making mount 1 read-only" },
		{ STAGE_ROOT_READONLY, SITE_ROOT_READONLY_ROOT, "making the root read-only",
		  "making the root read-only" },
		{ STAGE_BIND_SOURCE, 6, "bind of /srv/a?b?", "bind of mount 6" },
		{ STAGE_MOUNT, 6, "bind of /srv/a?b? at /x?y", "mounting mount 6" },
		/* An index past the spec's mounts: a number, never a read past it. */
		{ STAGE_BIND_SOURCE, 8, "bind of mount 8", "bind of mount 8" },
		{ STAGE_MOUNT, UINT32_MAX, "mounting mount 4294967295",
		  "mounting mount 4294967295" },
	};

	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		const char *with = words(HUTCH_SETUP_FAILED, w[i].stage, w[i].item, 0, &fixture);

		CU_ASSERT_STRING_EQUAL(with, w[i].with);
		CU_ASSERT_STRING_EQUAL(words(HUTCH_SETUP_FAILED, w[i].stage, w[i].item, 0, NULL),
				       w[i].without);
	}
}

/* Items with a meaning of their own, codes other than setup_failed. */
static void test_words_special(void)
{
	CU_ASSERT_STRING_EQUAL(words(HUTCH_SETUP_FAILED, STAGE_DROP_CAPS,
				     SITE_DROP_CAPS_BOUNDING + 21, EPERM, NULL),
			       "dropping capability 21 from the bounding set: EPERM");
	CU_ASSERT_STRING_EQUAL(words(HUTCH_SETUP_FAILED, STAGE_DROP_CAPS, SITE_DROP_CAPS_LEFT,
				     EPERM, NULL), "checking that no capability is left: EPERM");
	CU_ASSERT_STRING_EQUAL(words(HUTCH_SETUP_FAILED, STAGE_USER_COUNTS, HUTCH_UC_MNT_NS,
				     EACCES, NULL), "bounding max_mnt_namespaces: EACCES");
	CU_ASSERT_STRING_EQUAL(words(HUTCH_SETUP_FAILED, STAGE_RLIMIT, SITE_RLIMIT_MSGQUEUE,
				     EPERM, NULL), "setting RLIMIT_MSGQUEUE: EPERM");
	CU_ASSERT_STRING_EQUAL(words(HUTCH_SETUP_FAILED, STAGE_CHDIR, SITE_CHDIR_CWD, ENOENT,
				     &fixture), "changing to the working directory /work: ENOENT");
	CU_ASSERT_STRING_EQUAL(words(HUTCH_SETUP_FAILED, STAGE_CHDIR, SITE_CHDIR_CWD, ENOENT,
				     NULL), "changing to the working directory: ENOENT");
	CU_ASSERT_STRING_EQUAL(words(HUTCH_EXEC_FAILED, STAGE_EXEC, SITE_EXEC_EXECVE, ENOENT,
				     &fixture), "executing the command: ENOENT");
	CU_ASSERT_STRING_EQUAL(words(HUTCH_BAD_SPEC, STAGE_SECCOMP, SITE_SECCOMP_NO_FILTER,
				     EINVAL, NULL),
			       "checking that the spec has a seccomp filter: EINVAL");
	CU_ASSERT_STRING_EQUAL(words(HUTCH_PRIVILEGED_BINARY, STAGE_SELF_CHECK,
				     SITE_SELF_CHECK_FILE_CAPS, 0, NULL),
			       "checking hutch-exec for file capabilities: privileged_binary");
	CU_ASSERT_STRING_EQUAL(words(HUTCH_HELPER_CRASHED, STAGE_JAIL_INIT, SITE_JAIL_INIT_WAIT,
				     9, NULL), "pid 1 of the jail died of SIGKILL");
	CU_ASSERT_STRING_EQUAL(words(HUTCH_HELPER_CRASHED, STAGE_JAIL_INIT, SITE_JAIL_INIT_WAIT,
				     0, NULL), "pid 1 of the jail exited before the command ran");
	CU_ASSERT_STRING_EQUAL(words(HUTCH_MECH_UNAVAILABLE, STAGE_USERNS, SITE_USERNS_CLONE,
				     ENOSPC, NULL), "creating the jail's user namespace: ENOSPC");
}

/* A buffer too small is cut, terminated, and said to be. */
static void test_words_cut(void)
{
	struct hutch_status st = { HUTCH_STATUS_MAGIC, HUTCH_SETUP_FAILED, STAGE_ID_MAP,
				   SITE_ID_MAP_GID, EPERM };
	char buf[32];

	CU_ASSERT_EQUAL(status_describe(&st, NULL, buf, 0), -ENOBUFS);
	memset(buf, 'x', sizeof(buf));
	CU_ASSERT_EQUAL(status_describe(&st, NULL, buf, 1), -ENOBUFS);
	CU_ASSERT_EQUAL(buf[0], '\0');
	CU_ASSERT_EQUAL(buf[1], 'x');
	for (size_t cap = 2; cap <= sizeof("writing gid_map: EPERM") - 1; cap++) {
		memset(buf, 'x', sizeof(buf));
		CU_ASSERT_EQUAL(status_describe(&st, NULL, buf, cap), -ENOBUFS);
		CU_ASSERT_EQUAL(strlen(buf), cap - 1);
		CU_ASSERT_EQUAL(buf[cap], 'x');
	}
	CU_ASSERT_EQUAL(status_describe(&st, NULL, buf, sizeof("writing gid_map: EPERM")), 0);
	CU_ASSERT_STRING_EQUAL(buf, "writing gid_map: EPERM");
}

/* ---- the user-visible error table ---- */

static const struct {
	enum hutch_err e;
	const char *name;
	int exit_status;
} err_want[] = {
	/* DESIGN.md "Stable error codes", in order; exit statuses from its
	 * "Exit status of hutch run": 71 jail refused, 124 timeout, 126 could
	 * not execute, 125 any other hutch failure. */
	{ HUTCH_ERR_INVALID_REQUEST, "invalid_request", 125 },
	{ HUTCH_ERR_POLICY_VIOLATION, "policy_violation", 125 },
	{ HUTCH_ERR_POLICY_INVALID, "policy_invalid", 125 },
	{ HUTCH_ERR_SANDBOX_UNAVAILABLE, "sandbox_unavailable", 71 },
	{ HUTCH_ERR_SANDBOX_PROBE_FAILED, "sandbox_probe_failed", 71 },
	{ HUTCH_ERR_HELPER_NOT_FOUND, "helper_not_found", 125 },
	{ HUTCH_ERR_SPAWN_ERROR, "spawn_error", 71 },
	{ HUTCH_ERR_EXEC_FAILED, "exec_failed", 126 },
	{ HUTCH_ERR_TIMEOUT, "timeout", 124 },
	{ HUTCH_ERR_OUTPUT_OVERFLOW, "output_overflow", 125 },
	{ HUTCH_ERR_FRAME_OVERSIZED, "frame_oversized", 125 },
	{ HUTCH_ERR_PROTOCOL_ERROR, "protocol_error", 125 },
	{ HUTCH_ERR_DRAIN_TIMEOUT, "drain_timeout", 125 },
	{ HUTCH_ERR_CRASH, "crash", 125 },
	{ HUTCH_ERR_BUSY, "busy", 125 },
	{ HUTCH_ERR_CANCELLED, "cancelled", 125 },
	{ HUTCH_ERR_STATE_LOST, "state_lost", 125 },
	{ HUTCH_ERR_INTERNAL, "internal", 125 },
};

static void test_err_exit_constants(void)
{
	CU_ASSERT_EQUAL(HUTCH_EXIT_REFUSED, 71);
	CU_ASSERT_EQUAL(HUTCH_EXIT_TIMEOUT, 124);
	CU_ASSERT_EQUAL(HUTCH_EXIT_FAILURE, 125);
	CU_ASSERT_EQUAL(HUTCH_EXIT_CANNOT_EXEC, 126);
	CU_ASSERT_EQUAL(HUTCH_EXIT_NOT_FOUND, 127);
}

static void test_err_names_complete(void)
{
	CU_ASSERT_PTR_NOT_NULL_FATAL(hutch_err_name(HUTCH_ERR_NONE));
	for (unsigned i = 0; i < HUTCH_ERR_MAX; i++) {
		const char *n = hutch_err_name((enum hutch_err)i);

		CU_ASSERT_PTR_NOT_NULL_FATAL(n);
		CU_ASSERT(n[0] != '\0');
		CU_ASSERT_EQUAL(strspn(n, "abcdefghijklmnopqrstuvwxyz_"), strlen(n));
		for (unsigned j = 0; j < i; j++)
			CU_ASSERT(strcmp(n, hutch_err_name((enum hutch_err)j)) != 0);
	}
	CU_ASSERT_PTR_NULL(hutch_err_name(HUTCH_ERR_MAX));
	CU_ASSERT_PTR_NULL(hutch_err_name((enum hutch_err)(HUTCH_ERR_MAX + 1)));
	CU_ASSERT_PTR_NULL(hutch_err_name((enum hutch_err)-1));
	CU_ASSERT_PTR_NULL(hutch_err_name((enum hutch_err)INT_MAX));
}

/* Every code DESIGN.md lists, and nothing else besides NONE. */
static void test_err_names_match_design(void)
{
	CU_ASSERT_EQUAL(sizeof(err_want) / sizeof(err_want[0]), HUTCH_ERR_MAX - 1);
	CU_ASSERT_EQUAL(HUTCH_ERR_NONE, 0);
	for (size_t i = 0; i < sizeof(err_want) / sizeof(err_want[0]); i++) {
		const char *n = hutch_err_name(err_want[i].e);

		CU_ASSERT_EQUAL((unsigned)err_want[i].e, i + 1); /* never renumbered */
		CU_ASSERT_PTR_NOT_NULL_FATAL(n);
		CU_ASSERT_STRING_EQUAL(n, err_want[i].name);
	}
}

static void test_err_exit_statuses(void)
{
	for (size_t i = 0; i < sizeof(err_want) / sizeof(err_want[0]); i++)
		CU_ASSERT_EQUAL(hutch_err_exit_status(err_want[i].e), err_want[i].exit_status);
	CU_ASSERT_EQUAL(hutch_err_exit_status(HUTCH_ERR_NONE), 0);
	/* Out of range is a hutch failure, never success. */
	CU_ASSERT_EQUAL(hutch_err_exit_status(HUTCH_ERR_MAX), 125);
	CU_ASSERT_EQUAL(hutch_err_exit_status((enum hutch_err)-1), 125);
}

static void test_err_messages(void)
{
	for (unsigned i = 0; i < HUTCH_ERR_MAX; i++) {
		const char *m = hutch_err_message((enum hutch_err)i);

		CU_ASSERT_PTR_NOT_NULL_FATAL(m);
		CU_ASSERT(m[0] != '\0');
		/* Fixed text, never a format: a stray '%' would mean someone
		 * meant to splice request content in. */
		CU_ASSERT_PTR_NULL(strchr(m, '%'));
		CU_ASSERT_PTR_NULL(strchr(m, '\n'));
	}
	/* Out of range still yields text, so a caller can always print one. */
	CU_ASSERT_PTR_NOT_NULL_FATAL(hutch_err_message(HUTCH_ERR_MAX));
	CU_ASSERT(hutch_err_message(HUTCH_ERR_MAX)[0] != '\0');
	CU_ASSERT_PTR_NOT_NULL_FATAL(hutch_err_message((enum hutch_err)-1));
}

static const struct unit_case cases[] = {
	{ "status record layout", test_status_record_layout },
	{ "status numbers stable", test_status_numbers_stable },
	{ "stage names", test_stage_names },
	{ "every stage: a mechanism or none", test_stage_mechanisms },
	{ "code names", test_code_names },
	{ "status_check accepts valid records", test_status_check_accepts },
	{ "status_check rejects bad records", test_status_check_rejects },
	{ "site numbers stable", test_site_numbers_stable },
	{ "every stage and site has words", test_every_site_has_words },
	{ "unknown sites fall back to numbers", test_unknown_sites_fall_back },
	{ "words: the issue's examples", test_words_examples },
	{ "words: mount indexes, with and without the spec", test_words_mounts },
	{ "words: caps, counts, cwd, other codes", test_words_special },
	{ "words: cut to fit, always terminated", test_words_cut },
	{ "exit status constants", test_err_exit_constants },
	{ "error names complete and unique", test_err_names_complete },
	{ "error names match DESIGN.md", test_err_names_match_design },
	{ "error exit statuses", test_err_exit_statuses },
	{ "error messages", test_err_messages },
	{ NULL, NULL },
};

UNIT_MAIN("status")
