/* test-policy.c: unit tests of policies (frontend/doc/policy.c): a table of
 * one-mutation invalid policies with the exact pointer, variants that are
 * fine, several problems reported at once, and a failed allocation that
 * leaves nothing behind. Loading, the canonical form and the digest:
 * test-policy-canonical.c; the shipped policies themselves:
 * test-policy-shipped.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "doc/json-util.h"
#include "doc/policy.h"

#include "cunit-main.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define INVALID HUTCH_ERR_POLICY_INVALID

#include "policy-text.h"
#include "policy-mutate.h"

/* ---- failing one allocation ---- */

/* This calloc interposes libc's (the executable comes first in symbol
 * lookup, as in test-spec-frames.c): while armed, the first request for
 * exactly fail_n elements of fail_size bytes fails, as an exhausted heap
 * would. Memory still comes from malloc(), called through a volatile
 * pointer so the compiler cannot fold malloc+memset back into calloc. */
static void *(*volatile real_malloc)(size_t) = malloc;
static size_t fail_n, fail_size;
static int fail_armed, fail_hits;

void *calloc(size_t n, size_t size)
{
	size_t bytes;
	void *p;

	if (__builtin_mul_overflow(n, size, &bytes)) {
		errno = ENOMEM;
		return NULL;
	}
	if (fail_armed && n == fail_n && size == fail_size) {
		fail_armed = 0;
		fail_hits++;
		errno = ENOMEM;
		return NULL;
	}
	p = real_malloc(bytes ? bytes : 1);
	if (p)
		memset(p, 0, bytes);
	return p;
}

static void fail_calloc(size_t n, size_t size)
{
	fail_n = n;
	fail_size = size;
	fail_hits = 0;
	fail_armed = 1;
}

/* ---- invalid policies: mutations of default.json ---- */

#define HOST65 "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\""

static const struct invalid_case {
	struct mutation m[3];
	const char *pointer;	/* of the first error */
	size_t n;		/* errors in all */
} invalid[] = {
	/* top level */
	{ { { "/version", NULL } }, "/version", 1 },
	{ { { "/version", "2" } }, "/version", 1 },
	{ { { "/version", "\"1\"" } }, "/version", 1 },
	{ { { "/description", NULL } }, "/description", 1 },
	{ { { "/description", "5" } }, "/description", 1 },
	{ { { "/extra", "1" } }, "/extra", 1 },
	/* limits */
	{ { { "/limits", NULL } }, "/limits", 1 },
	{ { { "/limits", "[]" } }, "/limits", 1 },
	{ { { "/limits/wall_ms", NULL } }, "/limits/wall_ms", 1 },
	{ { { "/limits/wall_ms", "5" } }, "/limits/wall_ms", 1 },
	{ { { "/limits/cpu_ms/default", NULL } }, "/limits/cpu_ms/default", 1 },
	/* a missing max is 0, so the default is above it too */
	{ { { "/limits/tmp_bytes/max", NULL } }, "/limits/tmp_bytes/max", 2 },
	{ { { "/limits/bogus", "{\"default\":1,\"max\":1}" } }, "/limits/bogus", 1 },
	{ { { "/limits/wall_ms/min", "1" } }, "/limits/wall_ms/min", 1 },
	{ { { "/limits/processes/default", "4097" } }, "/limits/processes/default", 1 },
	{ { { "/limits/wall_ms/default", "3600001" } }, "/limits/wall_ms/default", 1 },
	{ { { "/limits/memory_bytes/max", "1099511627777" } }, "/limits/memory_bytes/max", 2 },
	{ { { "/limits/memory_bytes/default", "16777215" } }, "/limits/memory_bytes/default", 1 },
	{ { { "/limits/memory_bytes/default", "1" } }, "/limits/memory_bytes/default", 1 },
	{ { { "/limits/open_files/max", "7" } }, "/limits/open_files/max", 2 },
	{ { { "/limits/processes/max", "0" } }, "/limits/processes/max", 2 },
	{ { { "/limits/wall_ms/max", "\"3600000\"" } }, "/limits/wall_ms/max", 2 },
	{ { { "/limits/tmp_bytes/default", "65535" } }, "/limits/tmp_bytes/default", 1 },
	{ { { "/limits/work_bytes/default", "-1" } }, "/limits/work_bytes/default", 1 },
	{ { { "/limits/idle_ms/default", "1.5" } }, "/limits/idle_ms/default", 1 },
	{ { { "/limits/stdout_bytes/max", "68719476737" } }, "/limits/stdout_bytes/max", 2 },
	/* the inode counts may be absent, but when present they are checked */
	{ { { "/limits/tmp_inodes", "5" } }, "/limits/tmp_inodes", 1 },
	{ { { "/limits/tmp_inodes", "null" } }, "/limits/tmp_inodes", 1 },
	{ { { "/limits/tmp_inodes/default", "63" } }, "/limits/tmp_inodes/default", 1 },
	{ { { "/limits/tmp_inodes/default", "0" } }, "/limits/tmp_inodes/default", 1 },
	{ { { "/limits/work_inodes/default", NULL } }, "/limits/work_inodes/default", 1 },
	{ { { "/limits/work_inodes/max", NULL } }, "/limits/work_inodes/max", 2 },
	{ { { "/limits/work_inodes/max", "16777217" } }, "/limits/work_inodes/max", 2 },
	{ { { "/limits/work_inodes/max", "65535" } }, "/limits/work_inodes/default", 1 },
	/* filesystem */
	{ { { "/filesystem", NULL } }, "/filesystem", 1 },
	{ { { "/filesystem/work_dir", "\"work\"" } }, "/filesystem/work_dir", 1 },
	{ { { "/filesystem/work_dir", "\"/tmp/work\"" } }, "/filesystem/work_dir", 1 },
	{ { { "/filesystem/work_dir", "\"/tmp\"" } }, "/filesystem/work_dir", 1 },
	{ { { "/filesystem/work_dir", "\"/proc\"" } }, "/filesystem/work_dir", 1 },
	{ { { "/filesystem/work_dir", "\"/dev/shm\"" } }, "/filesystem/work_dir", 1 },
	{ { { "/filesystem/work_dir", "\"/\"" } }, "/filesystem/work_dir", 1 },
	{ { { "/filesystem/work_dir", "\"/work/../etc\"" } }, "/filesystem/work_dir", 1 },
	{ { { "/filesystem/work_dir", "\"/work/\"" } }, "/filesystem/work_dir", 1 },
	{ { { "/filesystem/work_dir", "7" } }, "/filesystem/work_dir", 1 },
	{ { { "/filesystem/work_dir", NULL } }, "/filesystem/work_dir", 1 },
	{ { { "/filesystem/binds/1/path", "\"/proc/self\"" } }, "/filesystem/binds/1/path", 1 },
	{ { { "/filesystem/binds/1/path", "\"/proc\"" } }, "/filesystem/binds/1/path", 1 },
	{ { { "/filesystem/binds/0/path", "\"/dev\"" } }, "/filesystem/binds/0/path", 1 },
	{ { { "/filesystem/binds/0/path", "\"/tmp/x\"" } }, "/filesystem/binds/0/path", 1 },
	{ { { "/filesystem/binds/0/path", "\"/work\"" } }, "/filesystem/binds/0/path", 1 },
	{ { { "/filesystem/binds/0/path", "\"/work/lib\"" } }, "/filesystem/binds/0/path", 1 },
	{ { { "/filesystem/binds/0/path", "\"usr\"" } }, "/filesystem/binds/0/path", 1 },
	{ { { "/filesystem/binds/0/path", "\"/usr/../etc\"" } }, "/filesystem/binds/0/path", 1 },
	{ { { "/filesystem/binds/0/path", NULL } }, "/filesystem/binds/0/path", 1 },
	{ { { "/filesystem/binds/0/exec", NULL } }, "/filesystem/binds/0/exec", 1 },
	{ { { "/filesystem/binds/0/exec", "\"yes\"" } }, "/filesystem/binds/0/exec", 1 },
	{ { { "/filesystem/binds/0/rw", "true" } }, "/filesystem/binds/0/rw", 1 },
	{ { { "/filesystem/binds/2", "\"/usr\"" } }, "/filesystem/binds/2", 1 },
	{ { { "/filesystem/binds", "{}" } }, "/filesystem/binds", 1 },
	{ { { "/filesystem/usr_symlinks", "\"yes\"" } }, "/filesystem/usr_symlinks", 1 },
	{ { { "/filesystem/writable_exec", NULL } }, "/filesystem/writable_exec", 1 },
	{ { { "/filesystem/request_exec", "\"yes\"" } }, "/filesystem/request_exec", 1 },
	{ { { "/env/allow_any", "1" } }, "/env/allow_any", 1 },
	{ { { "/filesystem/extra", "1" } }, "/filesystem/extra", 1 },
	/* request mount rules */
	{ { { "/mounts", "{}" } }, "/mounts", 1 },
	{ { { "/mounts/0", "\"/\"" } }, "/mounts/0", 1 },
	{ { { "/mounts/1/modes/1", "\"rx\"" } }, "/mounts/1/modes/1", 1 },
	{ { { "/mounts/1/modes/0", "1" } }, "/mounts/1/modes/0", 1 },
	{ { { "/mounts/1/modes/0", "\"RO\"" } }, "/mounts/1/modes/0", 1 },
	{ { { "/mounts/2/prefix", "\"srv\"" } }, "/mounts/2/prefix", 1 },
	{ { { "/mounts/2/prefix", "\"/srv/\"" } }, "/mounts/2/prefix", 1 },
	{ { { "/mounts/2/prefix", "\"/srv/../etc\"" } }, "/mounts/2/prefix", 1 },
	{ { { "/mounts/0/prefix", NULL } }, "/mounts/0/prefix", 1 },
	{ { { "/mounts/0/modes", NULL } }, "/mounts/0/modes", 1 },
	{ { { "/mounts/0/modes", "\"ro\"" } }, "/mounts/0/modes", 1 },
	{ { { "/mounts/0/exec", "true" } }, "/mounts/0/exec", 1 },
	/* files, collect */
	{ { { "/files", "[]" } }, "/files", 1 },
	{ { { "/files/max_count", "4097" } }, "/files/max_count", 1 },
	{ { { "/files/max_bytes", "-1" } }, "/files/max_bytes", 1 },
	{ { { "/files/extra", "1" } }, "/files/extra", 1 },
	{ { { "/collect/max_bytes", "1073741825" } }, "/collect/max_bytes", 1 },
	{ { { "/collect/max_count", NULL } }, "/collect/max_count", 1 },
	/* network */
	{ { { "/network/default", "\"host\"" } }, "/network/default", 1 },
	{ { { "/network/default", "\"wifi\"" } }, "/network/default", 1 },
	{ { { "/network/default", NULL } }, "/network/default", 1 },
	{ { { "/network/allow/0", "\"wifi\"" } }, "/network/allow/0", 1 },
	{ { { "/network/allow/0", "2" } }, "/network/allow/0", 1 },
	{ { { "/network/allow", "[]" } }, "/network/default", 1 },
	{ { { "/network/allow", NULL } }, "/network/allow", 2 },
	{ { { "/network/extra", "1" } }, "/network/extra", 1 },
	/* env */
	{ { { "/env/set/1BAD", "\"x\"" } }, "/env/set/1BAD", 1 },
	{ { { "/env/set/A-B", "\"x\"" } }, "/env/set/A-B", 1 },
	{ { { "/env/set/A=B", "\"x\"" } }, "/env/set/A=B", 1 },
	{ { { "/env/set/PATH", "1" } }, "/env/set/PATH", 1 },
	{ { { "/env/set", "[]" } }, "/env/set", 1 },
	{ { { "/env/set", NULL } }, "/env/set", 1 },
	{ { { "/env/allow/0", "\"A-B\"" } }, "/env/allow/0", 1 },
	{ { { "/env/allow/0", "\"\"" } }, "/env/allow/0", 1 },
	{ { { "/env/allow/0", "5" } }, "/env/allow/0", 1 },
	{ { { "/env/allow/1", "\"LANG\"" } }, "/env/allow/1", 1 },	/* listed twice */
	{ { { "/env/allow_prefixes/0", "\"\"" } }, "/env/allow_prefixes/0", 1 },
	{ { { "/env/allow_prefixes/0", "\"1\"" } }, "/env/allow_prefixes/0", 1 },
	{ { { "/env/allow_prefixes/0", "\"LC-\"" } }, "/env/allow_prefixes/0", 1 },
	{ { { "/env/extra", "1" } }, "/env/extra", 1 },
	/* seccomp */
	{ { { "/seccomp/syscalls", "[\"nosuchcall\"]" } }, "/seccomp/syscalls/0", 1 },
	{ { { "/seccomp/syscalls", "[\"read\",\"read\"]" } }, "/seccomp/syscalls/1", 1 },
	{ { { "/seccomp/syscalls", "[1]" } }, "/seccomp/syscalls/0", 1 },
	{ { { "/seccomp/syscalls", "\"read\"" } }, "/seccomp/syscalls", 1 },
	{ { { "/seccomp/mode", "\"allow-list\"" },
	    { "/seccomp/syscalls", "[\"read\",\"mount\"]" } },
	  "/seccomp/syscalls/1", 1 },
	{ { { "/seccomp/mode", "\"allow-list\"" }, { "/seccomp/syscalls", "[\"ptrace\"]" } },
	  "/seccomp/syscalls/0", 1 },
	{ { { "/seccomp/mode", "\"allow-list\"" },
	    { "/seccomp/syscalls", "[\"read\",\"kexec_load\",\"bpf\"]" } },
	  "/seccomp/syscalls/1", 2 },
	{ { { "/seccomp/mode", "\"allow-list\"" },
	    { "/seccomp/syscalls", "[\"read\",\"nosuchcall\"]" } },
	  "/seccomp/syscalls/1", 1 },
	{ { { "/seccomp/mode", "\"whitelist\"" } }, "/seccomp/mode", 1 },
	{ { { "/seccomp/allow_ptrace", NULL } }, "/seccomp/allow_ptrace", 1 },
	{ { { "/seccomp/extra", "1" } }, "/seccomp/extra", 1 },
	/* landlock, requires */
	{ { { "/landlock", "\"maybe\"" } }, "/landlock", 1 },
	{ { { "/landlock", "1" } }, "/landlock", 1 },
	{ { { "/landlock", NULL } }, "/landlock", 1 },
	{ { { "/requires/2", "\"landlock\"" } }, "/landlock", 1 },	/* best-effort */
	{ { { "/requires/2", "\"landlock\"" }, { "/landlock", "\"off\"" } }, "/landlock", 1 },
	{ { { "/requires/0", "\"selinux\"" } }, "/requires/0", 1 },
	{ { { "/requires/1", "2" } }, "/requires/1", 1 },
	{ { { "/requires", "\"seccomp\"" } }, "/requires", 1 },
	/* user */
	{ { { "/user/uid", "0" } }, "/user/uid", 1 },
	{ { { "/user/gid", "0" } }, "/user/gid", 1 },
	{ { { "/user/uid", "4294967295" } }, "/user/uid", 1 },
	{ { { "/user/uid", "-1" } }, "/user/uid", 1 },
	{ { { "/user/gid", NULL } }, "/user/gid", 1 },
	{ { { "/user/name", "\"nobody\"" } }, "/user/name", 1 },
	/* on_limit */
	{ { { "/on_limit/overflow", "\"drop\"" } }, "/on_limit/overflow", 1 },
	{ { { "/on_limit/partial_output", "\"no\"" } }, "/on_limit/partial_output", 1 },
	{ { { "/on_limit/extra", "1" } }, "/on_limit/extra", 1 },
	/* hostname */
	{ { { "/hostname", "\"Hutch\"" } }, "/hostname", 1 },
	{ { { "/hostname", "\"\"" } }, "/hostname", 1 },
	{ { { "/hostname", "\"a b\"" } }, "/hostname", 1 },
	{ { { "/hostname", "\"a_b\"" } }, "/hostname", 1 },
	{ { { "/hostname", "\"h\\u00e9\"" } }, "/hostname", 1 },
	{ { { "/hostname", HOST65 } }, "/hostname", 1 },
	{ { { "/hostname", "5" } }, "/hostname", 1 },
	{ { { "/hostname", NULL } }, "/hostname", 1 },
};

static void test_invalid_table(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(invalid); i++) {
		const struct invalid_case *c = &invalid[i];
		char *text = mutated_default(c->m, ARRAY_SIZE(c->m));
		struct policy p = { .uid = 77 };
		struct verrors e = { 0 };
		int rc = policy_parse(text, strlen(text), "mutant", &p, &e);

		if (rc != -EINVAL || e.n != c->n || strcmp(e.items[0].pointer, c->pointer) != 0) {
			fprintf(stderr, "\n  invalid[%zu] (%s = %s): rc %d, want \"%s\" x%zu", i,
				c->m[0].pointer, c->m[0].json ? c->m[0].json : "removed", rc,
				c->pointer, c->n);
			print_errors("  got", &e);
		}
		CU_ASSERT_EQUAL(rc, -EINVAL);
		CU_ASSERT_EQUAL(e.n, c->n);
		CU_ASSERT_FATAL(e.n >= 1);
		CU_ASSERT_STRING_EQUAL(e.items[0].pointer, c->pointer);
		for (size_t k = 0; k < e.n; k++) {
			CU_ASSERT_EQUAL(e.items[k].code, INVALID);
			CU_ASSERT_PTR_NOT_NULL(e.items[k].reason);
		}
		CU_ASSERT_EQUAL(p.uid, 77);	/* *ret untouched */
		CU_ASSERT_PTR_NULL(p.canonical);
		free(text);
	}
}

/* What is fine: the same mutation machinery must not explain the table. */
static void test_valid_variants(void)
{
	static const struct mutation ok[][2] = {
		{ { "/seccomp/mode", "\"allow-list\"" }, { "/seccomp/syscalls", "[\"read\"]" } },
		{ { "/seccomp/allow_ptrace", "true" }, { "/seccomp/syscalls", "[\"ptrace\"]" } },
		{ { "/requires/2", "\"landlock\"" }, { "/landlock", "\"required\"" } },
		{ { "/requires/2", "\"cgroup\"" }, { NULL, NULL } },
		{ { "/network/default", "\"loopback\"" }, { NULL, NULL } },
		{ { "/limits/wall_ms/default", "3600000" }, { NULL, NULL } },
		{ { "/limits/memory_bytes/default", "16777216" }, { NULL, NULL } },
		{ { "/limits/idle_ms/max", "0" }, { NULL, NULL } },
		{ { "/mounts", "[]" }, { "/filesystem/binds", "[]" } },
		{ { "/mounts/0/modes", "[]" }, { NULL, NULL } },
		{ { "/filesystem/work_dir", "\"/home/w\"" }, { NULL, NULL } },
		{ { "/hostname", "\"a-b.c9\"" }, { NULL, NULL } },
		{ { "/user/uid", "4294967294" }, { NULL, NULL } },
		{ { "/on_limit/overflow", "\"truncate\"" },
		  { "/on_limit/partial_output", "true" } },
		{ { "/env/set/_X1", "\"\"" }, { "/env/allow_prefixes/1", "\"_\"" } },
	};

	for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
		char *text = mutated_default(ok[i], 2);
		struct policy p = { 0 };
		struct verrors e = { 0 };

		if (parse_text(text, "variant", &p, &e) != 0)
			fprintf(stderr, "\n  variant %zu rejected\n", i);
		CU_ASSERT_EQUAL(e.n, 0);
		policy_free(&p);
		free(text);
	}
}

/* Not JSON, not one object, duplicates: pointer "" or the duplicate's. */
static void test_invalid_text(void)
{
	static const struct {
		const char *text;
		const char *pointer;
	} bad[] = {
		{ "", "" },
		{ "{", "" },
		{ "[]", "" },
		{ "{} {}", "" },
		{ "{\"landlock\":\"off\",\"landlock\":\"required\"}", "/landlock" },
		{ "{\"limits\":{\"wall_ms\":{\"max\":1,\"m\\u0061x\":2}}}", "/limits/wall_ms/max" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct policy p = { 0 };
		struct verrors e = { 0 };

		size_t len = strlen(bad[i].text);

		CU_ASSERT_EQUAL(policy_parse(bad[i].text, len, "x", &p, &e), -EINVAL);
		CU_ASSERT_EQUAL_FATAL(e.n, 1);
		CU_ASSERT_EQUAL(e.items[0].code, INVALID);
		CU_ASSERT_STRING_EQUAL(e.items[0].pointer, bad[i].pointer);
	}
}

/* `policy check` sees every problem at once, in document order. */
static void test_several_errors(void)
{
	static const struct mutation m[] = {
		{ "/extra", "1" },
		{ "/limits/wall_ms/default", "3600001" },
		{ "/landlock", "\"maybe\"" },
		{ "/user/uid", "0" },
		{ "/hostname", "\"BAD\"" },
	};
	static const char *const want[] = { "/extra", "/limits/wall_ms/default", "/landlock",
					     "/user/uid", "/hostname" };
	char *text = mutated_default(m, ARRAY_SIZE(m));
	struct policy p = { 0 };
	struct verrors e = { 0 };

	CU_ASSERT_EQUAL(policy_parse(text, strlen(text), "several", &p, &e), -EINVAL);
	CU_ASSERT(e.n >= 3);
	CU_ASSERT_EQUAL_FATAL(e.n, ARRAY_SIZE(want));
	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		CU_ASSERT_EQUAL(e.items[i].code, INVALID);
		CU_ASSERT_STRING_EQUAL(e.items[i].pointer, want[i]);
	}
	free(text);
}

/* More problems than the list holds: it stays full and counts the rest. */
static void test_error_list_bounded(void)
{
	struct json_object *bad = json_object_new_array();
	struct mutation m[1];
	char *arr, *text;
	struct policy p = { 0 };
	struct verrors e = { 0 };

	for (int i = 0; i < VERROR_MAX + 10; i++)
		json_object_array_add(bad, json_object_new_string("-"));
	arr = strdup(json_object_to_json_string(bad));
	m[0] = (struct mutation){ "/env/allow", arr };
	text = mutated_default(m, 1);
	CU_ASSERT_EQUAL(policy_parse(text, strlen(text), "many", &p, &e), -EINVAL);
	CU_ASSERT_EQUAL(e.n, VERROR_MAX);
	CU_ASSERT_EQUAL(e.dropped, 10);
	CU_ASSERT_STRING_EQUAL(e.items[0].pointer, "/env/allow/0");
	CU_ASSERT_STRING_EQUAL(e.items[VERROR_MAX - 1].pointer, "/env/allow/63");
	json_object_put(bad);
	free(arr);
	free(text);
}

/* A failed allocation of the binds or mount rules array: the parse fails
 * with internal at that array, leaves *ret alone, and frees what it had
 * (the sanitizer build sees a leak or a bad free). Before the fix, n_binds
 * kept its count over a NULL array and the canonical form read through
 * it. */
static void test_array_alloc_fails(void)
{
	static const struct {
		const char *pointer;
		size_t size;
	} arrays[] = {
		{ "/filesystem/binds", sizeof(struct policy_bind) },
		{ "/mounts", sizeof(struct policy_mount_rule) },
	};
	size_t len;
	char *text = read_policy("network", &len);
	struct policy p = { 0 }, q;
	struct verrors e = { 0 };
	size_t counts[2];

	CU_ASSERT_EQUAL_FATAL(policy_parse(text, len, "network", &p, &e), 0);
	counts[0] = p.n_binds;
	counts[1] = p.n_mount_rules;
	CU_ASSERT_FATAL(counts[0] > 1 && counts[1] > 1);
	policy_free(&p);
	for (size_t i = 0; i < ARRAY_SIZE(arrays); i++) {
		struct verrors fe = { 0 };

		memset(&q, 0x5a, sizeof(q));
		fail_calloc(counts[i] + 1, arrays[i].size);
		CU_ASSERT_EQUAL(policy_parse(text, len, "network", &q, &fe), -EINVAL);
		fail_armed = 0;
		CU_ASSERT_EQUAL(fail_hits, 1);
		CU_ASSERT_EQUAL_FATAL(fe.n, 1);
		CU_ASSERT_EQUAL(fe.items[0].code, HUTCH_ERR_INTERNAL);
		CU_ASSERT_STRING_EQUAL(fe.items[0].pointer, arrays[i].pointer);
		CU_ASSERT_EQUAL(((unsigned char *)&q)[0], 0x5a); /* untouched */
	}
	free(text);
}

static const struct unit_case cases[] = {
	{ "invalid policies: one mutation each", test_invalid_table },
	{ "valid variants", test_valid_variants },
	{ "invalid text", test_invalid_text },
	{ "several errors at once", test_several_errors },
	{ "error list bounded", test_error_list_bounded },
	{ "a failed array allocation leaves nothing behind", test_array_alloc_fails },
	{ NULL, NULL },
};

UNIT_MAIN("policy")
