/* test-host-pattern.c: unit tests of the proxy's allow-list patterns
 * (frontend/doc/host-pattern.c): what parses, what a pattern matches, and
 * which patterns cover which (how a request narrows its policy). */
#include <stdint.h>
#include <string.h>

#include "doc/host-pattern.h"

#include "cunit-main.h"

static void test_parse_accepts(void)
{
	static const struct {
		const char *pat, *host;
		uint16_t port;
	} ok[] = {
		{ "pypi.org:443", "pypi.org", 443 },
		{ "PyPI.Org.", "pypi.org", 0 },
		{ "*.pythonhosted.org:443", "*.pythonhosted.org", 443 },
		{ "*", "*", 0 },
		{ "*:80", "*", 80 },
		{ "10.0.0.1:8080", "10.0.0.1", 8080 },
		{ "[::1]:443", "::1", 443 },
		{ "[FD00::1]", "fd00::1", 0 },
		{ "deb.debian.org", "deb.debian.org", 0 },
		{ "a-b_c.example:65535", "a-b_c.example", 65535 },
	};

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		char host[HOST_NAME_MAX_LEN + 1] = "";
		uint16_t port = 1;

		CU_ASSERT_TRUE(host_pattern_parse(ok[i].pat, host, &port));
		CU_ASSERT_STRING_EQUAL(host, ok[i].host);
		CU_ASSERT_EQUAL(port, ok[i].port);
	}
}

static void test_parse_refuses(void)
{
	static const char *const bad[] = {
		"",	      ":443",	     "pypi.org:",   "pypi.org:0",  "pypi.org:65536",
		"pypi.org:044", "a b",	     "a..b",	    ".a",	   "*.",
		"**",	      "*a.org",	     "a.*.org",	    "[::1",	   "[zz::1]",
		"::1",	      "a.org:443:1", "user@a.org", "a/b",	   "a.org:-1",
		"x.org:4 43", "-",	     "[::1]x",
	};
	char longname[300];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (host_pattern_parse(bad[i], NULL, NULL)) {
			fprintf(stderr, "\n  accepted: \"%s\"", bad[i]);
			CU_FAIL("a bad pattern parsed");
		}
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	CU_ASSERT_FALSE(host_pattern_parse(longname, NULL, NULL));
	memset(longname, 'a', 64);
	strcpy(longname + 64, ".org");
	CU_ASSERT_FALSE(host_pattern_parse(longname, NULL, NULL)); /* a label past 63 */
}

static void test_match(void)
{
	CU_ASSERT_TRUE(host_pattern_match("pypi.org:443", "pypi.org", 443));
	CU_ASSERT_FALSE(host_pattern_match("pypi.org:443", "pypi.org", 80));
	CU_ASSERT_TRUE(host_pattern_match("pypi.org", "pypi.org", 80));
	CU_ASSERT_FALSE(host_pattern_match("pypi.org", "evilpypi.org", 443));
	CU_ASSERT_FALSE(host_pattern_match("pypi.org", "pypi.org.evil.com", 443));
	CU_ASSERT_TRUE(host_pattern_match("*.pythonhosted.org", "files.pythonhosted.org", 443));
	CU_ASSERT_TRUE(host_pattern_match("*.pythonhosted.org", "a.b.pythonhosted.org", 443));
	CU_ASSERT_FALSE(host_pattern_match("*.pythonhosted.org", "pythonhosted.org", 443));
	CU_ASSERT_FALSE(host_pattern_match("*.pythonhosted.org", "xpythonhosted.org", 443));
	CU_ASSERT_TRUE(host_pattern_match("*", "10.0.0.1", 22));
	CU_ASSERT_TRUE(host_pattern_match("[::1]:80", "::1", 80));
	CU_ASSERT_EQUAL(host_patterns_match(NULL, 0, "a.org", 80), -1);
}

static void test_covers(void)
{
	CU_ASSERT_TRUE(host_pattern_covers("*", "pypi.org:443"));
	CU_ASSERT_TRUE(host_pattern_covers("*", "*"));
	CU_ASSERT_FALSE(host_pattern_covers("*:443", "*"));
	CU_ASSERT_TRUE(host_pattern_covers("*:443", "a.org:443"));
	CU_ASSERT_FALSE(host_pattern_covers("*:443", "a.org"));
	CU_ASSERT_TRUE(host_pattern_covers("pypi.org", "pypi.org:443"));
	CU_ASSERT_FALSE(host_pattern_covers("pypi.org:443", "pypi.org"));
	CU_ASSERT_FALSE(host_pattern_covers("pypi.org", "*.pypi.org"));
	CU_ASSERT_TRUE(host_pattern_covers("*.org", "*.pypi.org"));
	CU_ASSERT_TRUE(host_pattern_covers("*.org", "*.org"));
	CU_ASSERT_TRUE(host_pattern_covers("*.org", "pypi.org"));
	CU_ASSERT_FALSE(host_pattern_covers("*.org", "org"));
	CU_ASSERT_FALSE(host_pattern_covers("*.pypi.org", "*.org"));
	CU_ASSERT_FALSE(host_pattern_covers("*.org", "*"));
	CU_ASSERT_FALSE(host_pattern_covers("a.org", "b.org"));
}

static void test_normalize(void)
{
	char out[HOST_NAME_MAX_LEN + 1] = "untouched";

	CU_ASSERT_TRUE(host_normalize("WWW.Example.COM.", 16, out));
	CU_ASSERT_STRING_EQUAL(out, "www.example.com");
	strcpy(out, "untouched");
	CU_ASSERT_FALSE(host_normalize("a\0b", 3, out));
	CU_ASSERT_FALSE(host_normalize("a%2eb", 5, out));
	CU_ASSERT_FALSE(host_normalize("", 0, out));
	CU_ASSERT_STRING_EQUAL(out, "untouched"); /* written only on success */
}

static const struct unit_case cases[] = {
	{ "parse accepts names, wildcards, literals, ports", test_parse_accepts },
	{ "parse refuses the malformed", test_parse_refuses },
	{ "match by host and port, suffix below only", test_match },
	{ "covers: a request may only narrow", test_covers },
	{ "normalize lowercases, drops a dot, refuses the rest", test_normalize },
	{ NULL, NULL },
};

UNIT_MAIN("host-pattern")
