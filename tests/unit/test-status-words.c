/* test-status-words.c: unit tests of the words for a helper's status record
 * (shared/status.c, status_describe): site numbers stay where they shipped,
 * every stage and site has words of its own, unknown ones fall back to
 * numbers, mount indexes are named from the spec (and never read past it),
 * and a buffer too small is cut and terminated. The record itself:
 * test-status.c. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "spec.h"
#include "status.h"

#include "cunit-main.h"

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

static const struct unit_case cases[] = {
	{ "site numbers stable", test_site_numbers_stable },
	{ "every stage and site has words", test_every_site_has_words },
	{ "unknown sites fall back to numbers", test_unknown_sites_fall_back },
	{ "words: the issue's examples", test_words_examples },
	{ "words: mount indexes, with and without the spec", test_words_mounts },
	{ "words: caps, counts, cwd, other codes", test_words_special },
	{ "words: cut to fit, always terminated", test_words_cut },
	{ NULL, NULL },
};

UNIT_MAIN("status-words")
