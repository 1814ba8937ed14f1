/* test-changes.c: unit tests of the change-set reader (frontend/run/
 * changes.c) without overlayfs: an upper layer made by hand the way
 * overlayfs leaves it in userxattr mode (whole copies, a character device
 * 0/0 for a deletion, user.overlay.opaque="y" on a directory that
 * replaced the lower one) beside a lower tree, and the change set the
 * reader makes of them, sorted by path, with digests, data within the
 * bound, and the entries past the cap counted. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "doc/plan.h"
#include "run/changes.h"

#include "cunit-main.h"

static char base[] = "/tmp/hutch-changes.XXXXXX";
static char lower[sizeof(base) + 16], upper_root[sizeof(base) + 16];

static void put(const char *root, const char *rel, const char *text, mode_t mode)
{
	char p[512];
	int fd;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT_FATAL(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	fchmod(fd, mode);
	close(fd);
}

static void dir(const char *root, const char *rel)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	CU_ASSERT_FATAL(mkdir(p, 0755) == 0 || errno == EEXIST);
	chmod(p, 0755);
}

static int whiteout(const char *root, const char *rel)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	return mknod(p, S_IFCHR | 0600, makedev(0, 0));
}

static int opaque(const char *root, const char *rel)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	return setxattr(p, "user.overlay.opaque", "y", 1, 0);
}

static void fresh_trees(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s' && mkdir -p '%s/lower' '%s/tmpfs/upper'", base, base,
		 base);
	CU_ASSERT_FATAL(system(cmd) == 0);
	snprintf(lower, sizeof(lower), "%s/lower", base);
	snprintf(upper_root, sizeof(upper_root), "%s/tmpfs/upper", base);
	chmod(lower, 0755);
	chmod(upper_root, 0755);
}

/* The change set of the trees as made, one line per entry. */
static char *read_set(bool with_data, uint64_t max_bytes, struct outcome *o)
{
	char tmpfs[600];
	struct plan_mount pm = { .source = lower, .target = (char *)"/t", .overlay = true };
	struct plan p = { .mounts = &pm, .n_mounts = 1, .limits.overlay_bytes = 1u << 20 };
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	snprintf(tmpfs, sizeof(tmpfs), "%s/tmpfs", base);
	memset(o, 0, sizeof(*o));
	o->overlay_fd[0] = open(tmpfs, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	o->n_overlay_fds = 1;
	CU_ASSERT_FATAL(o->overlay_fd[0] >= 0);
	CU_ASSERT_EQUAL(changes_read(&p, o, with_data, max_bytes), 0);
	CU_ASSERT_EQUAL(o->n_overlay_fds, 0);	/* closed */
	for (size_t i = 0; i < o->changes.n; i++) {
		const struct change_entry *e = &o->changes.e[i];
		static const char *const kinds[] = { "added", "modified", "deleted", "type_changed" };

		fprintf(f, "%s %s %d %04o%s%s\n", e->path, kinds[e->kind], (int)e->type, e->mode,
			e->link ? " -> " : "", e->link ? e->link : "");
	}
	fclose(f);
	return out;
}

static void test_each_kind(void)
{
	static const char want[] = "/t/chmod modified 0 0755\n"
				   "/t/d/add added 0 0644\n"
				   "/t/f2d type_changed 1 0755\n"
				   "/t/f2d/in added 0 0644\n"
				   "/t/gone deleted 0 0000\n"
				   "/t/link modified 2 0777 -> mod\n"
				   "/t/mod modified 0 0644\n"
				   "/t/new added 0 0600\n"
				   "/t/opq/hidden deleted 0 0000\n";
	struct outcome o;
	char *got;

	fresh_trees();
	put(lower, "same", "same\n", 0644);
	put(lower, "mod", "old\n", 0644);
	put(lower, "chmod", "x\n", 0644);
	put(lower, "gone", "g\n", 0644);
	put(lower, "f2d", "f\n", 0644);
	dir(lower, "d");
	put(lower, "d/keep", "k\n", 0644);
	dir(lower, "opq");
	put(lower, "opq/hidden", "h\n", 0644);
	put(lower, "opq/again", "a\n", 0644);
	{
		char p[512];

		snprintf(p, sizeof(p), "%s/link", lower);
		CU_ASSERT_FATAL(symlink("same", p) == 0);
		snprintf(p, sizeof(p), "%s/link", upper_root);
		CU_ASSERT_FATAL(symlink("mod", p) == 0);
	}
	put(upper_root, "same", "same\n", 0644);	/* copied up, unchanged */
	put(upper_root, "mod", "new\n", 0644);
	put(upper_root, "chmod", "x\n", 0755);
	put(upper_root, "new", "n\n", 0600);
	dir(upper_root, "f2d");
	put(upper_root, "f2d/in", "i\n", 0644);
	dir(upper_root, "d");				/* on the way, same mode */
	put(upper_root, "d/add", "a\n", 0644);
	dir(upper_root, "opq");
	CU_ASSERT_FATAL(opaque(upper_root, "opq") == 0);
	put(upper_root, "opq/again", "a\n", 0644);	/* same bytes: no change */
	if (whiteout(upper_root, "gone") < 0 || whiteout(upper_root, "never") < 0) {
		CU_FAIL("mknod of a 0:0 whiteout");
		return;
	}
	got = read_set(false, 0, &o);
	if (strcmp(got, want) != 0)
		fprintf(stderr, "\n%s", got);
	CU_ASSERT_STRING_EQUAL(got, want);
	CU_ASSERT_TRUE(o.changes.present);
	CU_ASSERT_EQUAL(o.changes.omitted, 0);
	/* /t/mod: sha256("new\n") begins 7a */
	CU_ASSERT_FATAL(o.changes.n > 6);
	CU_ASSERT_EQUAL(o.changes.e[6].have_sha256, true);
	CU_ASSERT_EQUAL(o.changes.e[6].sha256[0], 0x7a);
	CU_ASSERT_PTR_NULL(o.changes.e[6].data);
	free(got);
	change_set_free(&o.changes);
}

static void test_data_bound(void)
{
	struct outcome o;
	char *got;

	fresh_trees();
	put(upper_root, "a", "12345", 0644);
	put(upper_root, "b", "123456", 0644);
	got = read_set(true, 10, &o);
	CU_ASSERT_EQUAL_FATAL(o.changes.n, 2);
	/* 5 + 6 > 10: the first read (in directory order) is kept */
	for (size_t i = 0; i < 2; i++) {
		const struct change_entry *e = &o.changes.e[i], *other = &o.changes.e[1 - i];

		CU_ASSERT_TRUE(e->have_sha256);	/* hashed either way */
		if (!e->data)
			continue;
		CU_ASSERT_EQUAL(e->len, i ? 6 : 5);
		CU_ASSERT_NSTRING_EQUAL(e->data, i ? "123456" : "12345", e->len);
		CU_ASSERT_PTR_NULL(other->data);
		CU_ASSERT_STRING_EQUAL(other->error ? other->error : "", "too_large");
	}
	CU_ASSERT_TRUE(o.changes.e[0].data || o.changes.e[1].data);
	CU_ASSERT_EQUAL(o.changes.data_bytes, o.changes.e[0].data ? 5 : 6);
	free(got);
	change_set_free(&o.changes);
}

/* A sparse file's size is the jail's to choose, and each hard link is read
 * again: the reading stops at twice overlay_bytes (1 MiB here). */
static void test_hash_bound(void)
{
	struct outcome o;
	char p[600], *got;
	int fd;

	fresh_trees();
	snprintf(p, sizeof(p), "%s/hole", upper_root);
	fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	CU_ASSERT_FATAL(fd >= 0 && ftruncate(fd, 3 << 20) == 0);
	close(fd);
	put(upper_root, "small", "x", 0644);
	got = read_set(false, 0, &o);
	CU_ASSERT_EQUAL_FATAL(o.changes.n, 2);
	CU_ASSERT_STRING_EQUAL(o.changes.e[0].path, "/t/hole");
	CU_ASSERT_STRING_EQUAL(o.changes.e[0].error ? o.changes.e[0].error : "", "too_large");
	CU_ASSERT_FALSE(o.changes.e[0].have_sha256);
	CU_ASSERT_EQUAL(o.changes.e[0].size, 3u << 20);
	CU_ASSERT_TRUE(o.changes.e[1].have_sha256);	/* the rest is still read */
	free(got);
	change_set_free(&o.changes);
}

static void test_cap_counts_the_rest(void)
{
	struct outcome o;
	char *got;

	fresh_trees();
	for (unsigned i = 0; i < CHANGES_MAX_ENTRIES + 5; i++) {
		char name[32];

		snprintf(name, sizeof(name), "f%05u", i);
		put(upper_root, name, "", 0644);
	}
	got = read_set(false, 0, &o);
	CU_ASSERT_EQUAL(o.changes.n, CHANGES_MAX_ENTRIES);
	CU_ASSERT_EQUAL(o.changes.omitted, 5);
	free(got);
	change_set_free(&o.changes);
}

static void test_no_upper(void)
{
	struct plan_mount pm = { .source = lower, .target = (char *)"/t", .overlay = true };
	struct plan p = { .mounts = &pm, .n_mounts = 1 };
	struct outcome o = { 0 };

	/* the jail was refused before pid 1 sent anything */
	CU_ASSERT_EQUAL(changes_read(&p, &o, false, 0), 0);
	CU_ASSERT_TRUE(o.changes.present);
	CU_ASSERT_EQUAL(o.changes.n, 0);
	change_set_free(&o.changes);
}

static void cleanup(void)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", base);
}

static void test_setup(void)
{
	CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(base));
	atexit(cleanup);
}

static const struct unit_case cases[] = {
	{ "setup", test_setup },
	{ "each kind of change, and none for a copy-up", test_each_kind },
	{ "data within the bound, hashed past it", test_data_bound },
	{ "hashing stops at twice overlay_bytes", test_hash_bound },
	{ "entries past the cap are counted", test_cap_counts_the_rest },
	{ "no upper layer sent", test_no_upper },
	{ NULL, NULL },
};

UNIT_MAIN("changes")
