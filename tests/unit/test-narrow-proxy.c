/* test-narrow-proxy.c: unit tests of network "proxy" under a policy
 * (frontend/jail/narrow-proxy.c, through narrow()): the policy's default
 * list, a request's allow_hosts covered or refused by name, allow_private
 * only where the policy lets a run ask, the jail's proxy variables, and
 * the proxy fields refused without network proxy. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "doc/policy.h"
#include "doc/request.h"
#include "doc/strv.h"
#include "jail/narrow.h"

#include "cunit-main.h"
#include "policy-text.h"

static int narrow_text(const struct policy *pol, const char *req_text, struct plan *plan,
		       struct verrors *e)
{
	struct request req = { 0 };
	struct verrors pe = { 0 };
	int rc = request_parse(req_text, strlen(req_text), &req, &pe);

	CU_ASSERT_EQUAL_FATAL(rc, 0);
	rc = narrow(&req, pol, plan, e);
	request_free(&req);
	return rc;
}

static bool env_has(const struct plan *p, const char *kv)
{
	for (size_t i = 0; i < p->envc; i++)
		if (strcmp(p->envp[i], kv) == 0)
			return true;
	return false;
}

/* build, with its proxy's allow list replaced by pypi's. */
static void pypi_policy(struct policy *pol)
{
	parse_shipped("build", pol);
	strv_free(pol->proxy.lim.allow, pol->proxy.lim.n_allow);
	pol->proxy.lim.allow = NULL;
	pol->proxy.lim.n_allow = 0;
	CU_ASSERT_PTR_NOT_NULL_FATAL(strv_add(&pol->proxy.lim.allow, &pol->proxy.lim.n_allow, "pypi.org:443"));
	CU_ASSERT_PTR_NOT_NULL_FATAL(strv_add(&pol->proxy.lim.allow, &pol->proxy.lim.n_allow, "*.pythonhosted.org:443"));
}

static void test_default_list_is_empty_in_build(void)
{
	struct policy pol;
	struct plan plan;
	struct verrors e = { 0 };

	parse_shipped("build", &pol);
	CU_ASSERT_EQUAL_FATAL(narrow_text(&pol, "{\"version\":1,\"argv\":[\"/bin/true\"],\"network\":\"proxy\"}",
					  &plan, &e), 0);
	CU_ASSERT_EQUAL(plan.network, NET_PROXY);
	CU_ASSERT_EQUAL(plan.proxy.n_allow, 0);
	CU_ASSERT_FALSE(plan.proxy.allow_private);
	CU_ASSERT_TRUE(env_has(&plan, "HTTP_PROXY=http://127.0.0.1:3128"));
	CU_ASSERT_TRUE(env_has(&plan, "https_proxy=http://127.0.0.1:3128"));
	CU_ASSERT_TRUE(env_has(&plan, "NO_PROXY=localhost,127.0.0.0/8,::1"));
	plan_free(&plan);
	policy_free(&pol);
}

static void test_request_narrows(void)
{
	struct policy pol;
	struct plan plan;
	struct verrors e = { 0 };

	pypi_policy(&pol);
	CU_ASSERT_EQUAL_FATAL(narrow_text(&pol, "{\"version\":1,\"argv\":[\"/bin/true\"],\"network\":\"proxy\","
					  "\"allow_hosts\":[\"files.pythonhosted.org:443\"],"
					  "\"env\":{\"HTTP_PROXY\":\"http://evil:1\"}}", &plan, &e), 0);
	CU_ASSERT_EQUAL_FATAL(plan.proxy.n_allow, 1);
	CU_ASSERT_STRING_EQUAL(plan.proxy.allow[0], "files.pythonhosted.org:443");
	/* hutch's variable wins over the request's */
	CU_ASSERT_TRUE(env_has(&plan, "HTTP_PROXY=http://127.0.0.1:3128"));
	CU_ASSERT_FALSE(env_has(&plan, "HTTP_PROXY=http://evil:1"));
	plan_free(&plan);
	policy_free(&pol);
}

static void test_uncovered_is_violation(void)
{
	struct policy pol;
	struct plan plan;
	struct verrors e = { 0 };

	pypi_policy(&pol);
	CU_ASSERT_EQUAL(narrow_text(&pol, "{\"version\":1,\"argv\":[\"/bin/true\"],\"network\":\"proxy\","
				    "\"allow_hosts\":[\"pypi.org:443\",\"pypi.org\"]}", &plan, &e), -EINVAL);
	CU_ASSERT_EQUAL_FATAL(e.n, 1);
	CU_ASSERT_EQUAL(e.items[0].code, HUTCH_ERR_POLICY_VIOLATION);
	CU_ASSERT_STRING_EQUAL(e.items[0].pointer, "/allow_hosts/1");
	CU_ASSERT_STRING_EQUAL(e.items[0].detail, "pypi.org");
	policy_free(&pol);
}

static void test_private_and_mode(void)
{
	struct policy pol;
	struct plan plan;
	struct verrors e = { 0 };

	parse_shipped("build", &pol);
	CU_ASSERT_EQUAL(narrow_text(&pol, "{\"version\":1,\"argv\":[\"/bin/true\"],\"network\":\"proxy\","
				    "\"allow_private\":true}", &plan, &e), -EINVAL);
	CU_ASSERT_STRING_EQUAL(e.items[0].pointer, "/allow_private");
	e.n = 0;
	CU_ASSERT_EQUAL(narrow_text(&pol, "{\"version\":1,\"argv\":[\"/bin/true\"],\"network\":\"loopback\","
				    "\"allow_hosts\":[\"a.org\"]}", &plan, &e), -EINVAL);
	CU_ASSERT_STRING_EQUAL(e.items[0].pointer, "/allow_hosts");
	e.n = 0;
	pol.proxy.lim.allow_private = true;
	CU_ASSERT_EQUAL_FATAL(narrow_text(&pol, "{\"version\":1,\"argv\":[\"/bin/true\"],\"network\":\"proxy\","
					  "\"allow_private\":true}", &plan, &e), 0);
	CU_ASSERT_TRUE(plan.proxy.allow_private);
	plan_free(&plan);
	policy_free(&pol);
}

static void test_default_refuses_proxy(void)
{
	struct policy pol;
	struct plan plan;
	struct verrors e = { 0 };

	parse_shipped("default", &pol);
	CU_ASSERT_EQUAL(narrow_text(&pol, "{\"version\":1,\"argv\":[\"/bin/true\"],\"network\":\"proxy\"}",
				    &plan, &e), -EINVAL);
	CU_ASSERT_STRING_EQUAL(e.items[0].pointer, "/network");
	policy_free(&pol);
}

/* The proxy section is in the canonical form (so in the digest) and
 * survives a round trip through it. */
static void test_canonical_round_trip(void)
{
	struct policy pol, again;
	struct verrors e = { 0 };

	parse_shipped("build", &pol);
	CU_ASSERT_PTR_NOT_NULL(strstr(pol.canonical, "\"proxy\":{\"allow\":[\"*\"],\"default\":[]"));
	CU_ASSERT_EQUAL_FATAL(parse_text(pol.canonical, "build", &again, &e), 0);
	CU_ASSERT_STRING_EQUAL(again.canonical, pol.canonical);
	CU_ASSERT_EQUAL(again.proxy.lim.max_connections, pol.proxy.lim.max_connections);
	policy_free(&again);
	policy_free(&pol);
}

static const struct unit_case cases[] = {
	{ "the proxy section round-trips through the canonical form", test_canonical_round_trip },
	{ "build offers proxy with an empty list; the jail's variables", test_default_list_is_empty_in_build },
	{ "a request narrows to patterns the policy covers", test_request_narrows },
	{ "an uncovered pattern is a violation naming it", test_uncovered_is_violation },
	{ "allow_private and allow_hosts need the policy and the mode", test_private_and_mode },
	{ "default does not offer proxy", test_default_refuses_proxy },
	{ NULL, NULL },
};

UNIT_MAIN("narrow-proxy")
