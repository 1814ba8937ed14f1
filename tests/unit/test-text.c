/* test-text.c: unit tests of bytes as document text (frontend/doc/text.c):
 * the strict UTF-8 check that picks text or base64 for streams and files,
 * and the strict base64 codec requests and results share (RFC 4648
 * vectors, round trips of every byte value, rejections). */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc/text.h"

#include "cunit-main.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* ---- utf8_valid ---- */

static const struct {
	const char *s;
	size_t len;	/* 0: strlen */
	bool ok;
} utf8_cases[] = {
	{ "", 0, true },
	{ "plain ASCII\n\t", 0, true },
	{ "\x7f", 0, true },
	{ "a\0b", 3, true },			/* NUL is UTF-8; base64 is chosen elsewhere */
	{ "\xc2\x80", 0, true },		/* U+0080, the first 2-byte */
	{ "\xdf\xbf", 0, true },		/* U+07FF */
	{ "\xe0\xa0\x80", 0, true },		/* U+0800 */
	{ "\xef\xbf\xbf", 0, true },		/* U+FFFF */
	{ "\xed\x9f\xbf", 0, true },		/* U+D7FF, below the surrogates */
	{ "\xee\x80\x80", 0, true },		/* U+E000, above them */
	{ "\xf0\x90\x80\x80", 0, true },	/* U+10000 */
	{ "\xf4\x8f\xbf\xbf", 0, true },	/* U+10FFFF, the last */
	{ "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 0, true },
	/* overlong */
	{ "\xc0\x80", 0, false },
	{ "\xc0\xaf", 0, false },
	{ "\xc1\xbf", 0, false },
	{ "\xe0\x80\x80", 0, false },
	{ "\xe0\x9f\xbf", 0, false },
	{ "\xf0\x80\x80\x80", 0, false },
	{ "\xf0\x8f\xbf\xbf", 0, false },
	/* surrogates */
	{ "\xed\xa0\x80", 0, false },
	{ "\xed\xad\xbf", 0, false },
	{ "\xed\xbf\xbf", 0, false },
	{ "\xed\xa0\xbd\xed\xb8\x80", 0, false },	/* a CESU-8 pair */
	/* beyond U+10FFFF, and bytes never used */
	{ "\xf4\x90\x80\x80", 0, false },
	{ "\xf5\x80\x80\x80", 0, false },
	{ "\xf7\xbf\xbf\xbf", 0, false },
	{ "\xf8\x88\x80\x80\x80", 0, false },
	{ "\xfc\x84\x80\x80\x80\x80", 0, false },
	{ "\xfe", 0, false },
	{ "\xff", 0, false },
	/* truncated, stray continuation, bad continuation */
	{ "\xc2", 0, false },
	{ "\xe0\xa0", 0, false },
	{ "\xf0\x90\x80", 0, false },
	{ "ab\xe2\x82", 0, false },
	{ "\x80", 0, false },
	{ "a\xbf", 0, false },
	{ "\xc2\x41", 0, false },
	{ "\xe0\xa0\xc0", 0, false },
	{ "\xf0\x90\x80\x7f", 0, false },
	{ "\xc3\xa9\xc3", 0, false },
};

static void test_utf8_valid(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(utf8_cases); i++) {
		const char *s = utf8_cases[i].s;
		size_t len = utf8_cases[i].len ? utf8_cases[i].len : strlen(s);

		if (utf8_valid((const uint8_t *)s, len) != utf8_cases[i].ok)
			fprintf(stderr, "\n  utf8_cases[%zu]: want %d\n", i, utf8_cases[i].ok);
		CU_ASSERT_EQUAL(utf8_valid((const uint8_t *)s, len), utf8_cases[i].ok);
	}
	/* The length bounds the check: a valid prefix of an invalid buffer. */
	CU_ASSERT_TRUE(utf8_valid((const uint8_t *)"ab\xff", 2));
	CU_ASSERT_FALSE(utf8_valid((const uint8_t *)"\xc3\xa9", 1));
}

/* ---- base64 ---- */

static void test_base64_vectors(void)
{
	/* RFC 4648, section 10 */
	static const char *const vec[][2] = {
		{ "", "" },		{ "f", "Zg==" },	{ "fo", "Zm8=" },
		{ "foo", "Zm9v" },	{ "foob", "Zm9vYg==" }, { "fooba", "Zm9vYmE=" },
		{ "foobar", "Zm9vYmFy" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(vec); i++) {
		char *enc = base64_encode_alloc((const uint8_t *)vec[i][0], strlen(vec[i][0]));
		uint8_t *dec = NULL;
		size_t len = 99;

		CU_ASSERT_PTR_NOT_NULL_FATAL(enc);
		CU_ASSERT_STRING_EQUAL(enc, vec[i][1]);
		CU_ASSERT_EQUAL(base64_decode_strict(vec[i][1], strlen(vec[i][1]), &dec, &len), 0);
		CU_ASSERT_EQUAL(len, strlen(vec[i][0]));
		CU_ASSERT_PTR_NOT_NULL_FATAL(dec);
		CU_ASSERT_EQUAL(memcmp(dec, vec[i][0], len), 0);
		free(enc);
		free(dec);
	}
}

/* Every byte value, at every length up to 3 blocks and past them. */
static void test_base64_round_trip(void)
{
	uint8_t data[300];

	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i * 7 + 3);
	for (size_t n = 0; n <= sizeof(data); n++) {
		char *enc = base64_encode_alloc(data, n);
		uint8_t *dec = NULL;
		size_t len = 0;

		CU_ASSERT_PTR_NOT_NULL_FATAL(enc);
		CU_ASSERT_EQUAL(strlen(enc), (n + 2) / 3 * 4);
		CU_ASSERT_EQUAL_FATAL(base64_decode_strict(enc, strlen(enc), &dec, &len), 0);
		CU_ASSERT_EQUAL(len, n);
		CU_ASSERT(n == 0 || memcmp(dec, data, n) == 0);
		free(enc);
		free(dec);
	}
}

static void test_base64_rejects(void)
{
	static const char *const bad[] = {
		"Z", "Zg", "Zg=", "Zm9vY", "Zm9vYg=",			/* length */
		"Zg==Zg==", "Z===", "====", "=Zg=", "Zg=a", "Z=g=",	/* padding */
		"Zm9v====",
		"Zm-_", "Zm9*", "Zm 9", "Zm9\n", " Zm9v", "Zm9v\r\n",	/* alphabet */
		"Zm9\xc3", "Zm\x80v",
		"Zh==", "Zm9=", "YWJ=",					/* stray bits */
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		uint8_t *dec = (uint8_t *)"untouched";
		size_t len = 77;
		int rc = base64_decode_strict(bad[i], strlen(bad[i]), &dec, &len);

		if (rc != -EINVAL)
			fprintf(stderr, "\n  accepted \"%s\"\n", bad[i]);
		CU_ASSERT_EQUAL(rc, -EINVAL);
		CU_ASSERT_EQUAL(len, 77);
		CU_ASSERT_STRING_EQUAL((const char *)dec, "untouched");
	}
	/* A NUL inside the given length is not base64 either. */
	{
		uint8_t *dec = NULL;
		size_t len = 0;

		CU_ASSERT_EQUAL(base64_decode_strict("Zm\0v", 4, &dec, &len), -EINVAL);
		CU_ASSERT_PTR_NULL(dec);
	}
}

static const struct unit_case cases[] = {
	{ "utf8_valid", test_utf8_valid },
	{ "base64 RFC 4648 vectors", test_base64_vectors },
	{ "base64 round trips", test_base64_round_trip },
	{ "base64 rejections", test_base64_rejects },
	{ NULL, NULL },
};

UNIT_MAIN("text")
