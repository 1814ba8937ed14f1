/* test-policy-shipped.c: unit tests of the shipped policies (policy/NAME.json
 * in the source tree): each loads and is canonical, and each says what
 * DESIGN.md and hutch-policy(5) say it does. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "doc/json-util.h"
#include "doc/policy.h"

#include "cunit-main.h"
#include "policy-text.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static void test_shipped_valid(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(shipped); i++) {
		struct policy p = { 0 }, again = { 0 };
		struct verrors e = { 0 };
		size_t len;
		char *text = read_policy(shipped[i], &len);

		CU_ASSERT_EQUAL_FATAL(policy_parse(text, len, shipped[i], &p, &e), 0);
		CU_ASSERT_EQUAL(e.n, 0);
		CU_ASSERT_STRING_EQUAL(p.name, shipped[i]);
		CU_ASSERT_PTR_NOT_NULL_FATAL(p.canonical);
		CU_ASSERT_STRING_EQUAL(p.work_dir, "/work");
		CU_ASSERT_STRING_EQUAL(p.hostname, "hutch");
		CU_ASSERT_EQUAL(p.uid, 65534);
		CU_ASSERT_EQUAL(p.gid, 65534);
		CU_ASSERT_TRUE(p.net_allowed[p.net_default]);
		for (int l = 0; l < LIM_COUNT; l++) {
			CU_ASSERT(p.limits[l].def <= p.limits[l].max);
			CU_ASSERT(p.limits[l].def >= limit_defs[l].min);
			CU_ASSERT(p.limits[l].max <= limit_defs[l].max);
		}
		CU_ASSERT(p.requires & REQ_USER_NAMESPACES);
		CU_ASSERT(p.requires & REQ_SECCOMP);
		CU_ASSERT_FALSE(p.partial_output);	/* fail closed */

		/* The canonical form is itself a policy with the same form. */
		CU_ASSERT_EQUAL_FATAL(parse_text(p.canonical, shipped[i], &again, &e), 0);
		CU_ASSERT_STRING_EQUAL(again.canonical, p.canonical);
		policy_free(&again);
		policy_free(&p);
		CU_ASSERT_PTR_NULL(p.canonical);
		free(text);
	}
}

/* build and convert: default's kernel surface, their own grants. */
static void test_job_policies(const struct policy *d)
{
	struct policy b = { 0 }, c = { 0 };

	parse_shipped("build", &b);
	parse_shipped("convert", &c);
	CU_ASSERT_TRUE(b.writable_exec && b.request_exec && b.env_allow_any);
	CU_ASSERT_EQUAL(b.net_default, NET_LOOPBACK);
	CU_ASSERT(b.limits[LIM_PROCESSES].def > d->limits[LIM_PROCESSES].def);
	CU_ASSERT(b.limits[LIM_WALL_MS].def > d->limits[LIM_WALL_MS].def);
	CU_ASSERT_FALSE(c.writable_exec || c.request_exec);
	CU_ASSERT_EQUAL(c.net_default, NET_LOOPBACK);
	CU_ASSERT(c.n_binds > d->n_binds);
	CU_ASSERT_EQUAL(b.seccomp_mode, SECCOMP_DENY_LIST);
	CU_ASSERT_EQUAL(c.seccomp_mode, SECCOMP_DENY_LIST);
	policy_free(&b);
	policy_free(&c);
}

static bool listed(char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

/* agent: build's layout, secrets hidden, .git's hooks and config kept
 * read-only, never the host network; the others mask nothing. */
static void test_agent_policy(void)
{
	struct policy a = { 0 }, d = { 0 };

	parse_shipped("agent", &a);
	parse_shipped("default", &d);
	CU_ASSERT_TRUE(listed(a.hide, a.n_hide, "**/.env"));
	CU_ASSERT_TRUE(listed(a.hide, a.n_hide, "**/.ssh/id_*"));
	CU_ASSERT_TRUE(listed(a.hide, a.n_hide, "**/.aws/credentials"));
	CU_ASSERT_TRUE(listed(a.read_only, a.n_read_only, "**/.git/hooks"));
	CU_ASSERT_TRUE(listed(a.read_only, a.n_read_only, "**/.git/config"));
	CU_ASSERT_FALSE(a.net_allowed[NET_HOST]);
	CU_ASSERT_EQUAL(a.seccomp_mode, SECCOMP_DENY_LIST);
	CU_ASSERT_TRUE(a.writable_exec && a.request_exec);
	CU_ASSERT_EQUAL(d.n_hide + d.n_read_only, 0);
	policy_free(&a);
	policy_free(&d);
}

/* What each shipped policy promises (DESIGN.md "Policies"). */
static void test_shipped_contents(void)
{
	struct policy d = { 0 }, s = { 0 }, n = { 0 };

	parse_shipped("default", &d);
	parse_shipped("strict", &s);
	parse_shipped("network", &n);

	CU_ASSERT_EQUAL(d.net_default, NET_LOOPBACK);
	CU_ASSERT_TRUE(d.net_allowed[NET_NONE]);
	CU_ASSERT_TRUE(d.net_allowed[NET_LOOPBACK]);
	CU_ASSERT_FALSE(d.net_allowed[NET_HOST]);
	CU_ASSERT_EQUAL(d.seccomp_mode, SECCOMP_DENY_LIST);
	CU_ASSERT_EQUAL(d.landlock, LANDLOCK_BEST_EFFORT);
	CU_ASSERT_EQUAL(d.requires, REQ_USER_NAMESPACES | REQ_SECCOMP);
	CU_ASSERT_EQUAL(d.limits[LIM_WALL_MS].def, 30000);
	CU_ASSERT_EQUAL(d.limits[LIM_WALL_MS].max, 3600000);
	/* the shipped files state the built-in inode counts explicitly */
	CU_ASSERT_EQUAL(d.limits[LIM_TMP_INODES].max, limit_defs[LIM_TMP_INODES].if_absent);
	CU_ASSERT_EQUAL(d.limits[LIM_WORK_INODES].max, limit_defs[LIM_WORK_INODES].if_absent);
	CU_ASSERT(strstr(d.canonical, "\"tmp_inodes\":{\"default\":32768,\"max\":32768}") != NULL);
	CU_ASSERT(s.limits[LIM_TMP_INODES].max < d.limits[LIM_TMP_INODES].max);
	CU_ASSERT(s.limits[LIM_WORK_INODES].max < d.limits[LIM_WORK_INODES].max);
	CU_ASSERT_EQUAL(d.n_binds, 28);	/* /usr and the secret-free /etc list */
	CU_ASSERT_FALSE(d.request_exec);
	CU_ASSERT_TRUE(d.env_allow_any);
	CU_ASSERT(strstr(d.canonical, "\"allow_any\":true") != NULL);
	CU_ASSERT_STRING_EQUAL(d.binds[0].path, "/usr");
	CU_ASSERT_TRUE(d.binds[0].exec);
	CU_ASSERT_FALSE(d.binds[1].exec);
	/* data locations only: never "/", /run, /proc, /sys or /dev */
	CU_ASSERT_EQUAL(d.n_mount_rules, 8);
	CU_ASSERT_STRING_EQUAL(d.mount_rules[0].prefix, "/home");
	CU_ASSERT_TRUE(d.mount_rules[0].ro);
	CU_ASSERT_TRUE(d.mount_rules[0].rw);
	for (size_t i = 0; i < d.n_mount_rules; i++) {
		const char *p = d.mount_rules[i].prefix;

		CU_ASSERT(strcmp(p, "/") != 0 && strncmp(p, "/run", 4) != 0 &&
			  strncmp(p, "/var/run", 8) != 0 && strncmp(p, "/proc", 5) != 0 &&
			  strncmp(p, "/sys", 4) != 0 && strncmp(p, "/dev", 4) != 0);
	}
	CU_ASSERT_STRING_EQUAL(d.mount_rules[7].prefix, "/usr");
	CU_ASSERT_FALSE(d.mount_rules[7].rw);
	CU_ASSERT_EQUAL(d.n_env_set, 4);
	CU_ASSERT_EQUAL(d.n_env_allow_prefixes, 1);
	CU_ASSERT_STRING_EQUAL(d.env_allow_prefixes[0], "LC_");

	/* strict: allow-list, Landlock required, no request mounts, no network */
	CU_ASSERT_EQUAL(s.seccomp_mode, SECCOMP_ALLOW_LIST);
	CU_ASSERT(s.n_syscalls > 100);
	CU_ASSERT_EQUAL(s.landlock, LANDLOCK_REQUIRED);
	CU_ASSERT(s.requires & REQ_LANDLOCK);
	CU_ASSERT_EQUAL(s.n_mount_rules, 0);
	CU_ASSERT_EQUAL(s.net_default, NET_NONE);
	CU_ASSERT_FALSE(s.net_allowed[NET_LOOPBACK]);
	CU_ASSERT_FALSE(s.net_allowed[NET_HOST]);
	CU_ASSERT_EQUAL(s.n_env_allow_prefixes, 0);
	CU_ASSERT_FALSE(s.env_allow_any);
	CU_ASSERT_FALSE(s.request_exec);
	for (int l = 0; l < LIM_COUNT; l++)
		CU_ASSERT(s.limits[l].max <= d.limits[l].max);	/* smaller than default */

	/* network: loopback by default, host on request */
	CU_ASSERT_EQUAL(n.net_default, NET_LOOPBACK);
	CU_ASSERT_TRUE(n.net_allowed[NET_HOST]);
	CU_ASSERT_EQUAL(n.n_binds, 12);
	CU_ASSERT_EQUAL(n.seccomp_mode, SECCOMP_DENY_LIST);

	CU_ASSERT(strcmp(d.canonical, s.canonical) != 0);
	CU_ASSERT(strcmp(d.canonical, n.canonical) != 0);
	test_job_policies(&d);
	policy_free(&d);
	policy_free(&s);
	policy_free(&n);
}

static const struct unit_case cases[] = {
	{ "shipped policies are valid", test_shipped_valid },
	{ "shipped policies say what DESIGN.md says", test_shipped_contents },
	{ "agent hides secrets and protects .git", test_agent_policy },
	{ NULL, NULL },
};

UNIT_MAIN("policy-shipped")
