/* test-mask-pattern.c: the hide and read_only patterns of policies
 * (doc/mask-pattern.c): what is well formed and what matches. */
#include <stdbool.h>

#include "doc/mask-pattern.h"

#include "cunit-main.h"

static void test_pattern_ok(void)
{
	static const char *const good[] = { ".env", "**/.env", "**/.git/hooks", "/work/src/x",
					    "**/id_*", "**/.config/gcloud", "a/**/b", "[ab]?c" };
	static const char *const bad[] = { "", "**", "/**", "/", "a//b", "a/./b", "../x", "a/..",
					   "a/", "x\ny", "**/**/**/**/x" };

	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		CU_ASSERT_TRUE(mask_pattern_ok(good[i]));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CU_ASSERT_FALSE(mask_pattern_ok(bad[i]));
}

static void test_pattern_match(void)
{
	static const struct {
		const char *pattern, *path;
		bool match;
	} t[] = {
		{ ".env", "/work/src/.env", true },
		{ "**/.env", "/work/src/.env", true },
		{ "**/.env", "/.env", true },
		{ "**/.env", "/work/src/.env.local", false },
		{ "**/.env.*", "/work/src/.env.local", true },
		{ "**/.git/hooks", "/work/src/a/b/.git/hooks", true },
		{ "**/.git/hooks", "/work/src/.git/hooks/pre-commit", false },
		{ "**/.ssh/id_*", "/w/home/.ssh/id_ed25519", true },
		{ "**/.ssh/id_*", "/w/home/.ssh/known_hosts", false },
		{ "**/id_*", "/w/.id_x", false },		/* '*' never takes a leading '.' */
		{ "*", "/w/.hidden", false },
		{ "/work/src/x", "/work/src/x", true },
		{ "/work/src/x", "/work/other/src/x", false },	/* absolute: the whole path */
		{ "/work/**/x", "/work/x", true },
		{ "/work/**/x", "/work/a/b/x", true },
		{ "a/**/b", "/q/a/b", true },
		{ "a/*/b", "/q/a/m/n/b", false },		/* '*' stays in one component */
	};

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		CU_ASSERT_EQUAL(mask_pattern_match(t[i].pattern, t[i].path), t[i].match);
}

static const struct unit_case cases[] = {
	{ "well-formed patterns", test_pattern_ok },
	{ "matching jail paths", test_pattern_match },
	{ NULL, NULL },
};

UNIT_MAIN("mask-pattern")
