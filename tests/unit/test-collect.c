/* test-collect.c: unit tests of collection (frontend/run/collect.c), the
 * files brought back from a jail's work dir, here a temporary directory
 * opened like the helper's tmpfs: a regular file is returned whole, a
 * symlink is never followed (reported not_regular, its target unread), a
 * directory is not_regular, a file over the budget is too_large, a name
 * not there is missing, the byte budget is shared by the files in the
 * order asked, and no work dir at all reports every name missing. */
#include "config.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/collect.h"

#include "cunit-main.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* mkdtemp's ".XXXXXX": the name run-errors.sh's /tmp check leaves out. */
static char dir_path[] = "/tmp/hutch-collect.XXXXXX";
static char secret_path[sizeof(dir_path) + 16];

static void put(const char *name, const char *text)
{
	char path[sizeof(dir_path) + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir_path, name);
	f = fopen(path, "w");
	CU_ASSERT_FATAL(f != NULL);
	fputs(text, f);
	CU_ASSERT_EQUAL(fclose(f), 0);
}

/* A work dir with a.txt (5 bytes), b.txt (10), c.txt (3), a directory,
 * and link -> a file outside it that must never be read. */
static int work_dir(void)
{
	char path[sizeof(dir_path) + 64];
	int fd;

	CU_ASSERT_FATAL(mkdtemp(dir_path) != NULL);
	put("a.txt", "hello");
	put("b.txt", "0123456789");
	put("c.txt", "xyz");
	snprintf(secret_path, sizeof(secret_path), "%s.secret", dir_path);
	{
		FILE *f = fopen(secret_path, "w");

		CU_ASSERT_FATAL(f != NULL);
		fputs("outside", f);
		fclose(f);
	}
	snprintf(path, sizeof(path), "%s/link", dir_path);
	CU_ASSERT_EQUAL_FATAL(symlink(secret_path, path), 0);
	snprintf(path, sizeof(path), "%s/sub", dir_path);
	CU_ASSERT_EQUAL_FATAL(mkdir(path, 0700), 0);
	fd = open(dir_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CU_ASSERT_FATAL(fd >= 0);
	return fd;
}

static void remove_work_dir(void)
{
	static const char *const names[] = { "a.txt", "b.txt", "c.txt", "link" };
	char path[sizeof(dir_path) + 64];

	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir_path, names[i]);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/sub", dir_path);
	rmdir(path);
	rmdir(dir_path);
	unlink(secret_path);
	memcpy(dir_path + strlen(dir_path) - 6, "XXXXXX", 6);
}

static struct collected collect_with(char *const *names, size_t n,
				     const struct collect_limits *lim)
{
	struct collected c = { 0 };
	int fd = work_dir();

	CU_ASSERT_EQUAL(collect_files(fd, names, n, lim, &c), 0);
	close(fd);
	remove_work_dir();
	return c;
}

static struct collected collect(char *const *names, size_t n, uint64_t max_bytes)
{
	struct collect_limits lim = { .max_count = 256, .max_bytes = max_bytes };
	struct collected c = collect_with(names, n, &lim);

	CU_ASSERT_EQUAL(c.n, n);
	return c;
}

static bool is_file(const struct collected_file *f, const char *name, const char *text)
{
	return f->error == NULL && strcmp(f->name, name) == 0 && f->len == strlen(text) &&
	       f->data && memcmp(f->data, text, f->len) == 0;
}

static bool is_error(const struct collected_file *f, const char *name, const char *error)
{
	return f->error && strcmp(f->error, error) == 0 && strcmp(f->name, name) == 0 &&
	       f->data == NULL && f->len == 0;
}

static void test_regular_file(void)
{
	char *names[] = { "a.txt" };
	struct collected c = collect(names, 1, 1024);

	CU_ASSERT(c.n == 1 && is_file(&c.files[0], "a.txt", "hello"));
	collected_free(&c);
	CU_ASSERT_PTR_NULL(c.files);
	CU_ASSERT_EQUAL(c.n, 0);
}

/* A symlink in the work dir could point anywhere on the host: reported,
 * never followed, whatever it points at. */
static void test_symlink_not_followed(void)
{
	char *names[] = { "link" };
	struct collected c = collect(names, 1, 1024);

	CU_ASSERT(c.n == 1 && is_error(&c.files[0], "link", "not_regular"));
	collected_free(&c);
}

static void test_directory_not_regular(void)
{
	char *names[] = { "sub" };
	struct collected c = collect(names, 1, 1024);

	CU_ASSERT(c.n == 1 && is_error(&c.files[0], "sub", "not_regular"));
	collected_free(&c);
}

/* A path whose first component is the link: not followed on the way. */
static void test_symlink_on_the_way(void)
{
	char *names[] = { "link/x" };
	struct collected c = collect(names, 1, 1024);

	CU_ASSERT(c.n == 1 && c.files[0].error && strcmp(c.files[0].error, "missing") != 0 &&
		  c.files[0].data == NULL);
	collected_free(&c);
}

/* Walking (host output): a directory is an entry of its own, then what
 * it holds; the count budget covers every entry. */
static void test_walk_counts_entries(void)
{
	char *names[] = { "sub", "a.txt", "b.txt" };
	struct collect_limits lim = { .max_count = 2, .max_bytes = 1024, .walk_dirs = true };
	struct collected c = collect_with(names, ARRAY_SIZE(names), &lim);

	CU_ASSERT_FATAL(c.n == 3);
	CU_ASSERT(c.files[0].is_dir && !c.files[0].error && strcmp(c.files[0].name, "sub") == 0);
	CU_ASSERT(is_file(&c.files[1], "a.txt", "hello"));
	CU_ASSERT(is_error(&c.files[2], "b.txt", "too_many"));
	collected_free(&c);
}

static void test_missing(void)
{
	char *names[] = { "nope.txt" };
	struct collected c = collect(names, 1, 1024);

	CU_ASSERT(c.n == 1 && is_error(&c.files[0], "nope.txt", "missing"));
	collected_free(&c);
}

static void test_too_large(void)
{
	char *names[] = { "b.txt" };
	struct collected c = collect(names, 1, 9);

	CU_ASSERT(c.n == 1 && is_error(&c.files[0], "b.txt", "too_large"));
	collected_free(&c);
}

/* Exactly the budget fits. */
static void test_budget_exact(void)
{
	char *names[] = { "b.txt" };
	struct collected c = collect(names, 1, 10);

	CU_ASSERT(c.n == 1 && is_file(&c.files[0], "b.txt", "0123456789"));
	collected_free(&c);
}

/* 16 bytes for 5 + 10 + 3 in that order: a and b fit (15), c does not
 * (1 left); a file refused costs nothing, so a later small one still
 * fits; every name is reported in the order asked. */
static void test_budget_shared_in_order(void)
{
	char *names[] = { "a.txt", "b.txt", "c.txt", "nope.txt", "link" };
	struct collected c = collect(names, ARRAY_SIZE(names), 16);

	CU_ASSERT_FATAL(c.n == ARRAY_SIZE(names));
	CU_ASSERT(is_file(&c.files[0], "a.txt", "hello"));
	CU_ASSERT(is_file(&c.files[1], "b.txt", "0123456789"));
	CU_ASSERT(is_error(&c.files[2], "c.txt", "too_large"));
	CU_ASSERT(is_error(&c.files[3], "nope.txt", "missing"));
	CU_ASSERT(is_error(&c.files[4], "link", "not_regular"));
	collected_free(&c);
}

static void test_budget_refused_costs_nothing(void)
{
	char *names[] = { "b.txt", "a.txt", "c.txt" };
	struct collected c = collect(names, ARRAY_SIZE(names), 8);

	CU_ASSERT_FATAL(c.n == ARRAY_SIZE(names));
	CU_ASSERT(is_error(&c.files[0], "b.txt", "too_large"));
	CU_ASSERT(is_file(&c.files[1], "a.txt", "hello"));
	CU_ASSERT(is_file(&c.files[2], "c.txt", "xyz"));
	collected_free(&c);
}

/* The helper sent no work dir: every name is missing, nothing is read. */
static void test_no_work_dir(void)
{
	char *names[] = { "a.txt", "b.txt" };
	struct collected c = { 0 };

	struct collect_limits lim = { .max_count = 256, .max_bytes = 1024 };

	CU_ASSERT_EQUAL(collect_files(-1, names, ARRAY_SIZE(names), &lim, &c), 0);
	CU_ASSERT_FATAL(c.n == 2);
	CU_ASSERT(is_error(&c.files[0], "a.txt", "missing"));
	CU_ASSERT(is_error(&c.files[1], "b.txt", "missing"));
	collected_free(&c);
}

static void test_nothing_asked(void)
{
	struct collected c = collect(NULL, 0, 1024);

	CU_ASSERT_EQUAL(c.n, 0);
	collected_free(&c);
	collected_free(&c); /* idempotent */
}

static const struct unit_case cases[] = {
	{ "regular file", test_regular_file },
	{ "symlink not followed", test_symlink_not_followed },
	{ "directory not regular", test_directory_not_regular },
	{ "symlink on the way not followed", test_symlink_on_the_way },
	{ "walking counts every entry", test_walk_counts_entries },
	{ "missing", test_missing },
	{ "too large", test_too_large },
	{ "budget exact", test_budget_exact },
	{ "budget shared in order", test_budget_shared_in_order },
	{ "budget refused costs nothing", test_budget_refused_costs_nothing },
	{ "no work dir", test_no_work_dir },
	{ "nothing asked", test_nothing_asked },
	{ NULL, NULL },
};

UNIT_MAIN("collect")
