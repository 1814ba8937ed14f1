/* test-host-ids.c: unit tests of the pure halves of frontend/jail/host-ids.c
 * and user-caps.c: which range /etc/subuid and /etc/subgid give a root
 * caller's jails (the default block without entries; both entries or a
 * refusal in one line; bounds that keep clear of root, nobody, systemd's
 * dynamic users and 2^31), and how the per-jail caps divide an
 * unprivileged caller's quota by twice its concurrency, never above the
 * ceilings. */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "jail/host-ids.h"
#include "jail/user-caps.h"

#include "cunit-main.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static void test_default_range(void)
{
	struct host_id_range r = { 0 };
	char why[256] = "";

	CU_ASSERT_EQUAL(host_ids_parse(NULL, NULL, &r, why, sizeof(why)), 0);
	CU_ASSERT_EQUAL(r.uid_base, 0x70000000u);
	CU_ASSERT_EQUAL(r.gid_base, 0x70000000u);
	CU_ASSERT_EQUAL(r.count, 65536u);
	/* other users' entries are not ours */
	CU_ASSERT_EQUAL(host_ids_parse("alice:100000:65536\n", "alice:100000:65536\n", &r, why,
				       sizeof(why)),
			0);
	CU_ASSERT_EQUAL(r.uid_base, HOST_IDS_DEFAULT_BASE);
}

static void test_entries(void)
{
	struct host_id_range r = { 0 };
	char why[256] = "";

	CU_ASSERT_EQUAL(host_ids_parse("alice:100000:65536\nhutch:2000000000:4096\n",
				       "hutch:2000100000:8192\n", &r, why, sizeof(why)),
			0);
	CU_ASSERT_EQUAL(r.uid_base, 2000000000u);
	CU_ASSERT_EQUAL(r.gid_base, 2000100000u);
	CU_ASSERT_EQUAL(r.count, 4096u); /* the smaller of the two */
	CU_ASSERT_EQUAL(host_ids_parse("hutch:50000:10000", "hutch:50000:10000", &r, why,
				       sizeof(why)),
			0);
	CU_ASSERT_EQUAL(r.count, 10000u);
}

static void test_refusals(void)
{
	static const struct {
		const char *uid, *gid, *says;
	} bad[] = {
		{ "hutch:2000000000:10\n", NULL, "/etc/subuid has a hutch entry but /etc/subgid has none" },
		{ NULL, "hutch:2000000000:10\n", "/etc/subgid has a hutch entry but /etc/subuid has none" },
		{ "hutch:x:10\n", "hutch:1:10\n", "the hutch entry of /etc/subuid is not START:COUNT" },
		{ "hutch:1:10\n", "hutch:1:10:5\n", "the hutch entry of /etc/subgid is not START:COUNT" },
		{ "hutch:-5:10\n", "hutch:1:10\n", "not START:COUNT" },
		{ "hutch:0:10\n", "hutch:1:10\n", "must lie from 1 to 2147483647" },
		{ "hutch:1:0\n", "hutch:1:10\n", "must lie" },
		{ "hutch:65534:1\n", "hutch:100000:1\n", "miss 61184-65535" },
		{ "hutch:60000:2000\n", "hutch:100000:2000\n", "miss 61184-65535" },
		{ "hutch:65535:1\n", "hutch:100000:1\n", "miss 61184-65535" },
		{ "hutch:2147483647:2\n", "hutch:100000:2\n", "must lie" },
		{ "hutch:4294967295:1\n", "hutch:100000:1\n", "must lie" },
	};
	struct host_id_range r = { 7, 7, 7 };

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		char why[256] = "";

		CU_ASSERT_EQUAL(host_ids_parse(bad[i].uid, bad[i].gid, &r, why, sizeof(why)),
				-EINVAL);
		CU_ASSERT_PTR_NOT_NULL(strstr(why, bad[i].says));
		if (!strstr(why, bad[i].says))
			fprintf(stderr, "case %zu: %s\n", i, why);
		CU_ASSERT_EQUAL(r.uid_base, 7u); /* untouched on failure */
	}
}

static void test_caps(void)
{
	const uint64_t quota[HUTCH_UCAP_COUNT] = { 128, 192546, 819200, 96369 };
	const uint64_t unlimited[HUTCH_UCAP_COUNT] = { UINT64_MAX, UINT64_MAX, UINT64_MAX,
							UINT64_MAX };
	uint64_t c[HUTCH_UCAP_COUNT];

	user_caps_from_quota(quota, 4, c); /* the CLI's bound */
	CU_ASSERT_EQUAL(c[HUTCH_UCAP_INOTIFY_INSTANCES], 16);
	CU_ASSERT_EQUAL(c[HUTCH_UCAP_INOTIFY_WATCHES], 16384);
	CU_ASSERT_EQUAL(c[HUTCH_UCAP_MSGQUEUE_BYTES], 65536);
	CU_ASSERT_EQUAL(c[HUTCH_UCAP_SIGPENDING], 1024);
	CU_ASSERT(4 * c[HUTCH_UCAP_INOTIFY_INSTANCES] <= quota[0] / 2);
	user_caps_from_quota(quota, 128, c); /* a default server */
	CU_ASSERT_EQUAL(c[HUTCH_UCAP_INOTIFY_INSTANCES], 0);
	CU_ASSERT_EQUAL(c[HUTCH_UCAP_INOTIFY_WATCHES], 752);
	CU_ASSERT_EQUAL(c[HUTCH_UCAP_MSGQUEUE_BYTES], 3200);
	CU_ASSERT_EQUAL(c[HUTCH_UCAP_SIGPENDING], 376);
	for (unsigned n = 1; n <= 4096; n *= 2) {
		user_caps_from_quota(quota, n, c);
		for (int i = 0; i < HUTCH_UCAP_COUNT; i++) {
			CU_ASSERT(n * c[i] <= quota[i] / 2);
			CU_ASSERT(c[i] <= user_caps_ceiling[i]);
		}
	}
	user_caps_from_quota(unlimited, 0, c);
	for (int i = 0; i < HUTCH_UCAP_COUNT; i++)
		CU_ASSERT_EQUAL(c[i], user_caps_ceiling[i]);
}

static const struct unit_case cases[] = {
	{ "no hutch entries: the default block", test_default_range },
	{ "hutch entries in both files", test_entries },
	{ "entries refused in one line", test_refusals },
	{ "caps: half the quota over the concurrency, at most the ceiling", test_caps },
	{ NULL, NULL },
};

UNIT_MAIN("host-ids")
