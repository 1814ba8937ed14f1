/* test-policy-blob.c: unit tests of doc/policy-blob.c, the parsed policy
 * as the cache of parsed policies keeps it: every shipped policy comes
 * back with the same fields and canonical form; any byte cut off, any
 * byte added, and any byte flipped that changes a field is refused. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "doc/policy-blob.h"
#include "doc/policy.h"

#include "cunit-main.h"
#include "policy-text.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static void same_policy(const struct policy *a, const struct policy *b)
{
	CU_ASSERT_STRING_EQUAL(a->name, b->name);
	CU_ASSERT_STRING_EQUAL(a->description, b->description);
	CU_ASSERT_STRING_EQUAL(a->canonical, b->canonical);
	CU_ASSERT_EQUAL(memcmp(a->limits, b->limits, sizeof(a->limits)), 0);
	CU_ASSERT_EQUAL(a->n_binds, b->n_binds);
	CU_ASSERT_EQUAL(a->n_mount_rules, b->n_mount_rules);
	CU_ASSERT_EQUAL(a->n_env_set, b->n_env_set);
	CU_ASSERT_EQUAL(a->n_syscalls, b->n_syscalls);
	CU_ASSERT_EQUAL(a->uid, b->uid);
	CU_ASSERT_EQUAL(a->requires, b->requires);
	CU_ASSERT_EQUAL(a->seccomp_mode, b->seccomp_mode);
	CU_ASSERT_EQUAL(a->landlock, b->landlock);
	CU_ASSERT_EQUAL(a->net_default, b->net_default);
	CU_ASSERT_PTR_NULL(b->file);
}

static void test_round_trip(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(shipped); i++) {
		struct policy p = { 0 }, q = { 0 };
		uint8_t *b = NULL;
		size_t len = 0;

		parse_shipped(shipped[i], &p);
		CU_ASSERT_EQUAL_FATAL(policy_blob_encode(&p, &b, &len), 0);
		CU_ASSERT_EQUAL_FATAL(policy_blob_decode(b, len, &q), 0);
		same_policy(&p, &q);
		policy_free(&q);
		free(b);
		policy_free(&p);
	}
}

/* Every cut and one byte more: refused. Every single-bit change, in the
 * seal or anywhere before it (the name too): refused. */
static void test_damage(void)
{
	struct policy p = { 0 }, q;
	uint8_t *b = NULL, *c;
	size_t len = 0, accepted = 0;

	parse_shipped("strict", &p);
	CU_ASSERT_EQUAL_FATAL(policy_blob_encode(&p, &b, &len), 0);
	c = malloc(len + 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	for (size_t cut = 0; cut < len; cut++)
		CU_ASSERT_EQUAL(policy_blob_decode(b, cut, &q), -EBADMSG);
	memcpy(c, b, len);
	c[len] = 0;
	CU_ASSERT_EQUAL(policy_blob_decode(c, len + 1, &q), -EBADMSG);
	for (size_t at = 0; at < len; at++) {
		memcpy(c, b, len);
		c[at] ^= 0x01;
		if (policy_blob_decode(c, len, &q) == 0) {
			accepted++;
			policy_free(&q);
		}
	}
	CU_ASSERT_EQUAL(accepted, 0);
	free(c);
	free(b);
	policy_free(&p);
}

/* A blob whose fields and seal agree but whose canonical text is not what
 * the fields render cannot come from policy_blob_encode of a parsed
 * policy; only a writer of the cache could make one, and the cache is
 * out of every jail's reach (jail/cache.h). What decode keeps checking:
 * every string a parsed policy has (here: no canonical text at all). */
static void test_sealed_but_not_whole(void)
{
	struct policy p = { 0 }, q;
	uint8_t *b = NULL;
	size_t len = 0;
	char *canon;

	parse_shipped("strict", &p);
	canon = p.canonical;
	p.canonical = NULL;
	CU_ASSERT_EQUAL_FATAL(policy_blob_encode(&p, &b, &len), 0);
	CU_ASSERT_EQUAL(policy_blob_decode(b, len, &q), -EBADMSG);
	p.canonical = canon;
	free(b);
	policy_free(&p);
}

/* the canonical form parses back to the same form, blob and all */
static void test_canonical_again(void)
{
	struct policy p = { 0 }, q = { 0 };
	struct verrors e = { 0 };

	parse_shipped("default", &p);
	CU_ASSERT_EQUAL_FATAL(parse_text(p.canonical, "default", &q, &e), 0);
	CU_ASSERT_STRING_EQUAL(q.canonical, p.canonical);
	policy_free(&q);
	policy_free(&p);
}

static const struct unit_case cases[] = {
	{ "shipped policies come back whole", test_round_trip },
	{ "damaged bytes are refused", test_damage },
	{ "sealed bytes missing a string are refused", test_sealed_but_not_whole },
	{ "the canonical form is stable", test_canonical_again },
	{ NULL, NULL },
};

UNIT_MAIN("policy-blob")
