/* test-plan-json.c: unit tests of the --dry-run plan (frontend/jail/
 * plan-json.c): a small plan renders with every field hutch(1) documents
 * for --dry-run, each with the value the plan holds, and the mount list is
 * the one layout_build gives the run. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jail/plan-json.h"

#include "cunit-main.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static char *argv_[] = { "/bin/echo", "hi", NULL };
static char *envp_[] = { "PATH=/usr/bin:/bin", "LANG=C.UTF-8", NULL };
static char *collect_[] = { "out.txt" };
static char *names_[] = { "uname" };

static struct plan small_plan(void)
{
	return (struct plan){
		.argv = argv_, .argc = 2, .envp = envp_, .envc = 2,
		.cwd = "/work", .work_dir = "/work", .hostname = "hutch",
		.network = NET_NONE, .collect = collect_, .n_collect = 1,
		.stdout_mode = STDOUT_STREAM,
		.limits = { .wall_ms = 30000, .cpu_ms = 20000, .idle_ms = 0,
			    .memory_bytes = 512u << 20, .stdout_bytes = 1u << 20,
			    .stderr_bytes = 1u << 20, .file_size_bytes = 64u << 20,
			    .processes = 64, .open_files = 256, .tmp_bytes = 64u << 20,
			    .work_bytes = 128u << 20, .tmp_inodes = 32768,
			    .work_inodes = 65536 },
		.seccomp = SECCOMP_DENY_LIST, .seccomp_names = names_, .n_seccomp_names = 1,
		.landlock = LANDLOCK_BEST_EFFORT, .jail_uid = 65534, .jail_gid = 65534,
		.partial_output = true, .digest = "sha256:00",
	};
}

static struct json_object *member(struct json_object *o, const char *key, enum json_type t)
{
	struct json_object *v = NULL;

	CU_ASSERT(json_object_object_get_ex(o, key, &v));
	if (!json_object_is_type(v, t)) {
		CU_FAIL("member of the wrong type");
		fprintf(stderr, "\n  %s: %s\n", key, json_type_to_name(json_object_get_type(v)));
		return NULL;
	}
	return v;
}

static void test_fields(void)
{
	static const char *const top[] = { "policy", "digest", "argv", "env", "cwd", "limits",
					   "namespaces", "network", "user", "seccomp",
					   "landlock", "mounts", "collect", "stdout_mode",
					   "partial_output", "keep_partial" };
	struct plan p = small_plan();
	struct policy pol = { .name = "default" };
	struct json_object *o = plan_to_json(&p, &pol), *v;

	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT_EQUAL(json_object_object_length(o), (int)ARRAY_SIZE(top));
	for (size_t i = 0; i < ARRAY_SIZE(top); i++)
		CU_ASSERT(json_object_object_get_ex(o, top[i], NULL));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(member(o, "policy", json_type_string)),
			       "default");
	CU_ASSERT_STRING_EQUAL(json_object_get_string(member(o, "digest", json_type_string)),
			       "sha256:00");
	v = member(o, "argv", json_type_array);
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(v), 2);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_array_get_idx(v, 1)), "hi");
	CU_ASSERT_EQUAL(json_object_array_length(member(o, "env", json_type_array)), 2);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(member(o, "cwd", json_type_string)), "/work");
	CU_ASSERT_STRING_EQUAL(json_object_get_string(member(o, "network", json_type_string)),
			       "none");
	CU_ASSERT_STRING_EQUAL(json_object_get_string(member(o, "landlock", json_type_string)),
			       "best-effort");
	CU_ASSERT_STRING_EQUAL(json_object_get_string(member(o, "stdout_mode", json_type_string)),
			       "stream");
	CU_ASSERT(json_object_get_boolean(member(o, "partial_output", json_type_boolean)));
	v = member(o, "collect", json_type_array);
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(v), 1);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_array_get_idx(v, 0)), "out.txt");
	json_object_put(o);
}

static void test_limits_and_seccomp(void)
{
	static const char *const limits[] = { "wall_ms", "cpu_ms", "idle_ms", "memory_bytes",
					      "stdout_bytes", "stderr_bytes", "file_size_bytes",
					      "processes", "open_files", "tmp_bytes", "work_bytes",
					      "tmp_inodes", "work_inodes", "overlay_bytes",
					      "overlay_inodes" };
	struct plan p = small_plan();
	struct policy pol = { .name = "default" };
	struct json_object *o = plan_to_json(&p, &pol), *x, *v;

	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	x = member(o, "limits", json_type_object);
	CU_ASSERT_EQUAL(json_object_object_length(x), (int)ARRAY_SIZE(limits));
	for (size_t i = 0; i < ARRAY_SIZE(limits); i++)
		member(x, limits[i], json_type_int);
	CU_ASSERT_EQUAL(json_object_get_int64(member(x, "wall_ms", json_type_int)), 30000);
	CU_ASSERT_EQUAL(json_object_get_int64(member(x, "work_inodes", json_type_int)), 65536);
	x = member(o, "seccomp", json_type_object);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(member(x, "mode", json_type_string)),
			       "deny-list");
	v = member(x, "syscalls", json_type_array);
	CU_ASSERT_EQUAL_FATAL(json_object_array_length(v), 1);
	CU_ASSERT_STRING_EQUAL(json_object_get_string(json_object_array_get_idx(v, 0)), "uname");
	CU_ASSERT(json_object_array_length(member(x, "always_denied", json_type_array)) > 0);
	CU_ASSERT_FALSE(json_object_get_boolean(member(x, "allow_ptrace", json_type_boolean)));
	x = member(o, "user", json_type_object);
	member(x, "uid", json_type_int);
	member(x, "gid", json_type_int);
	json_object_put(o);
}

/* net is unshared unless the network is the host's. */
static bool has_net(struct json_object *o)
{
	struct json_object *a = member(o, "namespaces", json_type_array);

	for (size_t i = 0; a && i < json_object_array_length(a); i++)
		if (strcmp(json_object_get_string(json_object_array_get_idx(a, i)), "net") == 0)
			return true;
	return false;
}

static void test_namespaces_and_mounts(void)
{
	struct plan p = small_plan();
	struct policy pol = { .name = "default" };
	struct json_object *o = plan_to_json(&p, &pol), *a;

	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT(has_net(o));
	a = member(o, "mounts", json_type_array);
	/* at least /proc, /tmp and the work dir; each with a kind and target */
	CU_ASSERT(a && json_object_array_length(a) >= 3);
	for (size_t i = 0; a && i < json_object_array_length(a); i++) {
		struct json_object *m = json_object_array_get_idx(a, i);

		member(m, "kind", json_type_string);
		member(m, "target", json_type_string);
	}
	json_object_put(o);
	p.network = NET_HOST;
	o = plan_to_json(&p, &pol);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT_FALSE(has_net(o));
	CU_ASSERT_STRING_EQUAL(json_object_get_string(member(o, "network", json_type_string)),
			       "host");
	json_object_put(o);
}

static const struct unit_case cases[] = {
	{ "a small plan has every documented field", test_fields },
	{ "limits, seccomp and user", test_limits_and_seccomp },
	{ "namespaces and mounts", test_namespaces_and_mounts },
	{ NULL, NULL },
};

UNIT_MAIN("plan-json")
