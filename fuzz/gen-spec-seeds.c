/* gen-spec-seeds.c: writes the spec corpus (fuzz/corpus/spec/) once: specs
 * the frontend really builds (request, narrowed under a shipped policy,
 * laid out by layout.c) plus hand-made ones that reach every mount kind
 * and flag. Not built by make; see fuzz/README for the command. The
 * seccomp program is a 4-instruction stand-in so each seed stays small. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"
#include "doc/policy-load.h"
#include "doc/policy.h"
#include "doc/request.h"
#include "jail/layout.h"
#include "jail/narrow.h"
#include "jail/user-caps.h"

static const uint8_t tiny_filter[32] = {
	0x20, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, /* ld [4]: arch */
	0x15, 0x00, 0x01, 0x00, 0x3e, 0x00, 0x00, 0xc0, /* jeq x86_64, 0, 1 */
	0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0xff, 0x7f, /* ret ALLOW */
	0x06, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, /* ret KILL_PROCESS */
};

static const char *out_dir;

static void write_seed(const char *name, const struct spec *sp)
{
	uint8_t *buf = NULL;
	size_t len = 0;
	char path[4096];
	FILE *f;
	int r = spec_encode(sp, &buf, &len);

	if (r < 0) {
		fprintf(stderr, "%s: spec_encode: %s\n", name, strerror(-r));
		exit(1);
	}
	if (len >= 4096)
		fprintf(stderr, "%s: %zu bytes (keep seeds under 4 KiB)\n", name, len);
	snprintf(path, sizeof(path), "%s/%s.bin", out_dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
	free(buf);
}

/* A request document under a policy file, as `hutch run` would send it. */
static void from_request(const char *name, const char *policy_file, const char *doc,
			 bool is_root, bool with_filter)
{
	struct policy pol = { 0 };
	struct request req = { 0 };
	struct plan plan = { 0 };
	struct layout *l = calloc(1, sizeof(*l));
	struct verrors e = { 0 };
	uint8_t *filter = NULL;

	if (!l || policy_load(policy_file, &pol, &e) < 0 ||
	    request_parse(doc, strlen(doc), &req, &e) < 0 || narrow(&req, &pol, &plan, &e) < 0) {
		fprintf(stderr, "%s: %s %s\n", name, e.n ? e.items[0].pointer : "",
			e.n ? e.items[0].reason : "no memory");
		exit(1);
	}
	if (with_filter && !(filter = malloc(sizeof(tiny_filter))))
		exit(1);
	if (filter)
		memcpy(filter, tiny_filter, sizeof(tiny_filter));
	if (layout_build(&plan, is_root, &filter, filter ? sizeof(tiny_filter) : 0, l) < 0) {
		fprintf(stderr, "%s: layout_build failed\n", name);
		exit(1);
	}
	/* as execute.c sizes them: a CLI run of an unprivileged caller */
	user_caps_from_quota((const uint64_t[HUTCH_UCAP_COUNT]){ 128, 192546, 819200, 96369 },
			     USER_CAPS_CLI_CONCURRENCY, l->sp.user_cap);
	write_seed(name, &l->sp);
	layout_free(l);
	free(l);
	plan_free(&plan);
	request_free(&req);
	policy_free(&pol);
}

static void hand_made(void)
{
	static const uint8_t data[] = { 'r', 'o', 'o', 't', ':', 0, 0xff, 0x80, '\n', 0 };
	static char *argv1[] = { "/bin/true", NULL };
	static char *argv3[] = { "/usr/bin/env", "", "caf\xc3\xa9", NULL };
	static char *envp[] = { "PATH=/usr/bin", "A==", "B=", NULL };
	struct spec_mount mounts[] = {
		{ .kind = HUTCH_MOUNT_BIND, .flags = HUTCH_MF_EXEC | HUTCH_MF_OPTIONAL,
		  .source = "/", .target = "/host" },
		{ .kind = HUTCH_MOUNT_BIND, .flags = HUTCH_MF_RW | HUTCH_MF_DEV,
		  .source = "/dev/null", .target = "/dev/null" },
		{ .kind = HUTCH_MOUNT_TMPFS, .flags = HUTCH_MF_RW | HUTCH_MF_SEND_FD, .mode = 01777,
		  .size_bytes = UINT64_MAX, .inodes = UINT64_MAX, .source = "", .target = "/work" },
		{ .kind = HUTCH_MOUNT_PROC, .mode = 0555, .source = "", .target = "/proc" },
		{ .kind = HUTCH_MOUNT_SYMLINK, .source = "../a//b/.", .target = "/l" },
		{ .kind = HUTCH_MOUNT_FILE, .mode = 07777, .source = "", .target = "/etc/f",
		  .data = data, .data_len = sizeof(data) },
		{ .kind = HUTCH_MOUNT_FILE, .source = "", .target = "/etc/empty" },
		{ .kind = HUTCH_MOUNT_DIR, .mode = 0700, .source = "", .target = "/a/.b/..c/..." },
		{ .kind = HUTCH_MOUNT_DEVPTS, .mode = 0666, .source = "", .target = "/dev/pts" },
		{ .kind = HUTCH_MOUNT_BIND, .flags = HUTCH_MF_RW | HUTCH_MF_IDMAP, .source = "/srv/out",
		  .target = "/out" },
	};
	struct spec sp = {
		.hostname = "", .cwd = "/", .argc = 1, .argv = argv1,
	};

	write_seed("hand-minimal", &sp);

	sp.flags = HUTCH_SPEC_FLAGS_ALL;
	sp.uid_inside = 0;
	sp.uid_outside = UINT32_MAX;
	sp.gid_inside = 1;
	sp.gid_outside = 65534;
	for (int i = 0; i < HUTCH_RLIM_COUNT; i++)
		sp.rlimit[i] = i % 2 ? HUTCH_RLIM_INFINITY : (uint64_t)i;
	for (int i = 0; i < HUTCH_UCAP_COUNT; i++)
		sp.user_cap[i] = i % 2 ? HUTCH_UCAP_COUNT_MAX : (uint64_t)i;
	sp.hostname = "a-very-long-host-name.example.org-0123456789-0123456789-0123456";
	sp.cwd = "/work";
	sp.n_mounts = sizeof(mounts) / sizeof(mounts[0]);
	sp.mounts = mounts;
	sp.argc = 3;
	sp.argv = argv3;
	sp.envc = 3;
	sp.envp = envp;
	sp.filter = tiny_filter;
	sp.filter_len = sizeof(tiny_filter);
	write_seed("hand-every-kind", &sp);

	sp.flags = HUTCH_SPEC_NS_NET | HUTCH_SPEC_NET_LOOPBACK;
	sp.filter = NULL;
	sp.filter_len = 0;
	sp.n_mounts = 0;
	sp.envc = 0;
	write_seed("hand-no-mounts-no-filter", &sp);
}

int main(int argc, char **argv)
{
	const char *srcdir = argc > 1 ? argv[1] : ".";
	char def[4096], strict[4096], net[4096];

	out_dir = argc > 2 ? argv[2] : "fuzz/corpus/spec";
	snprintf(def, sizeof(def), "%s/policy/default.json", srcdir);
	snprintf(strict, sizeof(strict), "%s/policy/strict.json", srcdir);
	snprintf(net, sizeof(net), "%s/policy/network.json", srcdir);

	from_request("default-true-root", def, "{\"version\":1,\"argv\":[\"/bin/true\"]}", true,
		     true);
	from_request("default-true-user", def, "{\"version\":1,\"argv\":[\"true\"]}", false, true);
	from_request("default-files-collect", def,
		     "{\"version\":1,\"argv\":[\"cat\",\"in.txt\"],\"env\":{\"LC_ALL\":\"C\"},"
		     "\"files\":[{\"name\":\"in.txt\",\"text\":\"hello\\n\"},"
		     "{\"name\":\"in.bin\",\"base64\":\"AAEC/w==\"}],\"collect\":[\"out.txt\"]}",
		     true, true);
	from_request("default-mounts-cwd", def,
		     "{\"version\":1,\"argv\":[\"ls\"],\"cwd\":\"/data\",\"mounts\":["
		     "{\"source\":\"/usr/share\",\"target\":\"/data\",\"mode\":\"ro\"},"
		     "{\"source\":\"/mnt\",\"target\":\"/scratch\",\"mode\":\"rw\"}]}",
		     true, true);
	from_request("default-loopback-limits", def,
		     "{\"version\":1,\"argv\":[\"true\"],\"network\":\"loopback\",\"limits\":"
		     "{\"memory_bytes\":16777216,\"cpu_ms\":1,\"processes\":1,\"open_files\":8,"
		     "\"file_size_bytes\":0}}",
		     true, false);
	from_request("default-env-stdin", def,
		     "{\"version\":1,\"argv\":[\"env\",\"-0\"],\"env\":{\"TZ\":\"UTC\",\"LANG\":\"C\","
		     "\"LC_CTYPE\":\"caf\\u00e9\"},\"stdin\":{\"text\":\"x\"},\"stdout_mode\":\"frame\"}",
		     false, true);
	from_request("strict-user-files", strict,
		     "{\"version\":1,\"argv\":[\"/bin/cat\",\"a\"],\"files\":[{\"name\":\"a\","
		     "\"base64\":\"AP8AgA==\"}],\"collect\":[\"b\"]}",
		     false, true);
	from_request("strict-true", strict, "{\"version\":1,\"argv\":[\"/bin/true\"]}", true, true);
	from_request("network-host", net, "{\"version\":1,\"argv\":[\"true\"],\"network\":\"host\"}",
		     true, true);
	hand_made();
	return 0;
}
