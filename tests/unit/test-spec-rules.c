/* test-spec-rules.c: unit tests of the jail-spec codec (shared/spec-codec.c)
 * rule by rule. Each rule is checked from both sides: spec_encode refuses
 * the struct, and spec_decode refuses the same defect forged into otherwise
 * valid wire bytes; valid variations encode to exactly the forged bytes,
 * which proves the forging exact. Decodes read exact-size heap copies, so
 * sanitizers see any overread. Fields changed: spec-fields.c; round trips
 * and golden bytes: test-spec-codec.c. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spec.h"

#include "cunit-main.h"
#include "spec-fields.h"
#include "spec-fixtures.h"

/* Valid variations: the struct encodes, the forged wire decodes, and the two
 * are the same bytes, which also proves the forging used below is exact. */
static const struct field_case good_cases[] = {
	{ "flags: all known bits", F_FLAGS, .num = HUTCH_SPEC_FLAGS_ALL },
	{ "flags: proxy in its own namespace, loopback up", F_FLAGS,
	  .num = GOOD_FLAGS | HUTCH_SPEC_NET_PROXY | HUTCH_SPEC_NS_NET | HUTCH_SPEC_NET_LOOPBACK },
	{ "hostname: empty", F_HOSTNAME, BYTES("") },
	{ "hostname: 64 bytes", F_HOSTNAME, .str = long_a, .len = HUTCH_SPEC_MAX_HOSTNAME },
	{ "hostname: UTF-8", F_HOSTNAME, BYTES("j\xc3\xa4il") },
	{ "cwd: root", F_CWD, BYTES("/") },
	{ "cwd: 4095 bytes", F_CWD, .str = long_path, .len = HUTCH_SPEC_MAX_PATH },
	{ "kind: DIR becomes PROC", F_M_KIND, M_DIR, .num = HUTCH_MOUNT_PROC },
	{ "kind: PROC becomes DIR", F_M_KIND, M_PROC, .num = HUTCH_MOUNT_DIR },
	{ "kind: empty FILE becomes DEVPTS", F_M_KIND, M_FILE_EMPTY, .num = HUTCH_MOUNT_DEVPTS },
	{ "mount flags: all known but idmap and fd, tmpfs", F_M_FLAGS, M_TMPFS_ODD,
	  .num = HUTCH_MF_ALL & ~HUTCH_MF_IDMAP & ~HUTCH_MF_FD },
	{ "mount flags: ro bind of a descriptor", F_M_FLAGS, M_BIND, .num = HUTCH_MF_FD },
	{ "mount flags: rw,idmap bind of a descriptor", F_M_FLAGS, M_BIND,
	  .num = HUTCH_MF_RW | HUTCH_MF_IDMAP | HUTCH_MF_FD },
	{ "mount flags: rw,exec,idmap bind", F_M_FLAGS, M_BIND,
	  .num = HUTCH_MF_RW | HUTCH_MF_EXEC | HUTCH_MF_IDMAP },
	{ "send fd: none at all", F_M_FLAGS, M_TMPFS_ODD, .num = 0 },
	{ "overlay: exec, not idmapped", F_M_FLAGS, M_OVERLAY, .num = HUTCH_MF_EXEC },
	{ "overlay: source 4095 bytes", F_M_SOURCE, M_OVERLAY, .str = long_path,
	  .len = HUTCH_SPEC_MAX_PATH },
	{ "mount flags: bind rw,exec,dev,optional", F_M_FLAGS, M_BIND,
	  .num = HUTCH_MF_RW | HUTCH_MF_EXEC | HUTCH_MF_DEV | HUTCH_MF_OPTIONAL },
	{ "mode: 07777", F_M_MODE, M_FILE, .num = 07777 },
	{ "mode: 0", F_M_MODE, M_DIR, .num = 0 },
	{ "tmpfs size: 1", F_M_SIZE, M_TMPFS, .num = 1 },
	{ "tmpfs size: max", F_M_SIZE, M_TMPFS, .num = UINT64_MAX },
	{ "tmpfs inodes: 1", F_M_INODES, M_TMPFS, .num = 1 },
	{ "tmpfs inodes: max", F_M_INODES, M_TMPFS, .num = UINT64_MAX },
	{ "tmpfs inodes: 2^32", F_M_INODES, M_TMPFS_ODD, .num = 1ull << 32 },
	{ "bind source: root", F_M_SOURCE, M_BIND, BYTES("/") },
	{ "bind source: 4095 bytes", F_M_SOURCE, M_BIND, .str = long_path,
	  .len = HUTCH_SPEC_MAX_PATH },
	{ "symlink text: 4095 bytes", F_M_SOURCE, M_SYMLINK, .str = long_a,
	  .len = HUTCH_SPEC_MAX_PATH },
	{ "symlink text: unclean", F_M_SOURCE, M_SYMLINK, BYTES("a//b/../") },
	{ "target: 4095 bytes", F_M_TARGET, M_DIR, .str = long_path, .len = HUTCH_SPEC_MAX_PATH },
	{ "target: UTF-8", F_M_TARGET, M_DIR, BYTES("/d\xc3\xa4ta") },
	{ "file data: one NUL", F_M_DATA, M_FILE_EMPTY, BYTES("\0") },
	{ "file data: emptied", F_M_DATA, M_FILE, .str = "", .len = 0 },
	{ "argv: empty string", F_ARGV, 0, BYTES("") },
	{ "argv: control characters", F_ARGV, 1, BYTES("\n\x01\x7f\x1b[0m") },
	{ "argv: 128 KiB - 1", F_ARGV, 2, .str = long_a, .len = HUTCH_SPEC_MAX_ARG_BYTES - 1 },
	{ "env: empty value", F_ENV, 0, BYTES("A=") },
	{ "env: control characters in value", F_ENV, 1, BYTES("A=\x01\n") },
	{ "env: 128 KiB - 1", F_ENV, 2, .str = long_env, .len = HUTCH_SPEC_MAX_ARG_BYTES - 1 },
	{ "user cap: inotify instances 2^31 - 1", F_UCAP, HUTCH_UCAP_INOTIFY_INSTANCES,
	  .num = HUTCH_UCAP_COUNT_MAX },
	{ "user cap: inotify watches 0", F_UCAP, HUTCH_UCAP_INOTIFY_WATCHES, .num = 0 },
	{ "user cap: message queues unlimited", F_UCAP, HUTCH_UCAP_MSGQUEUE_BYTES,
	  .num = UINT64_MAX },
	{ "filter: one instruction", F_FILTER, BYTES("\x06\0\0\0\0\0\xff\x7f") },
	{ "filter: 4096 instructions", F_FILTER, .str = zeros,
	  .len = HUTCH_SPEC_MAX_FILTER_INSNS * 8 },
};

static const struct field_case bad_cases[] = {
	/* flags and the filter */
	{ "user cap: inotify instances 2^31", F_UCAP, HUTCH_UCAP_INOTIFY_INSTANCES,
	  .num = HUTCH_UCAP_COUNT_MAX + 1ull },
	{ "user cap: inotify watches all ones", F_UCAP, HUTCH_UCAP_INOTIFY_WATCHES,
	  .num = UINT64_MAX },
	{ "flags: first unknown bit", F_FLAGS, .num = GOOD_FLAGS | (HUTCH_SPEC_FLAGS_ALL + 1u) },
	{ "flags: unknown bit 31", F_FLAGS, .num = GOOD_FLAGS | 1u << 31 },
	{ "flags: all ones", F_FLAGS, .num = UINT32_MAX },
	{ "flags: proxy without its own network namespace", F_FLAGS,
	  .num = (GOOD_FLAGS | HUTCH_SPEC_NET_PROXY | HUTCH_SPEC_NET_LOOPBACK) & ~HUTCH_SPEC_NS_NET },
	{ "flags: proxy without loopback up", F_FLAGS,
	  .num = (GOOD_FLAGS | HUTCH_SPEC_NET_PROXY | HUTCH_SPEC_NS_NET) & ~HUTCH_SPEC_NET_LOOPBACK },
	{ "seccomp flag without filter", F_FILTER, .str = "", .len = 0 },
	{ "filter without seccomp flag", F_FLAGS, .num = GOOD_FLAGS & ~HUTCH_SPEC_SECCOMP },
	{ "filter: 4 bytes", F_FILTER, BYTES("\x06\0\0\0") },
	{ "filter: 12 bytes", F_FILTER, BYTES("\x06\0\0\0\0\0\xff\x7f\x06\0\0\0") },
	{ "filter: 33 bytes", F_FILTER, .str = zeros, .len = 33 },
	{ "filter: 4097 instructions", F_FILTER, .str = zeros,
	  .len = (HUTCH_SPEC_MAX_FILTER_INSNS + 1) * 8 },

	/* hostname and cwd */
	{ "hostname: 65 bytes", F_HOSTNAME, .str = long_a, .len = HUTCH_SPEC_MAX_HOSTNAME + 1 },
	{ "hostname: newline", F_HOSTNAME, BYTES("host\n") },
	{ "hostname: DEL", F_HOSTNAME, BYTES("h\x7f") },
	{ "hostname: escape", F_HOSTNAME, BYTES("\x1b[2J") },
	{ "hostname: embedded NUL", F_HOSTNAME, BYTES("ho\0st"), WIRE_ONLY },
	{ "hostname: no terminating NUL", F_HOSTNAME, .term = 'x', WIRE_ONLY },
	{ "cwd: empty", F_CWD, BYTES("") },
	{ "cwd: relative", F_CWD, BYTES("work") },
	{ "cwd: trailing slash", F_CWD, BYTES("/work/") },
	{ "cwd: dot-dot", F_CWD, BYTES("/work/../etc") },
	{ "cwd: dot", F_CWD, BYTES("/./work") },
	{ "cwd: double slash", F_CWD, BYTES("//") },
	{ "cwd: newline", F_CWD, BYTES("/work\n") },
	{ "cwd: 0x1f", F_CWD, BYTES("/\x1f") },
	{ "cwd: 4096 bytes", F_CWD, .str = long_path, .len = HUTCH_SPEC_MAX_PATH + 1 },
	{ "cwd: embedded NUL", F_CWD, BYTES("/wo\0rk"), WIRE_ONLY },
	{ "cwd: no terminating NUL", F_CWD, .term = 0xff, WIRE_ONLY },

	/* mount kind, flags, mode, pad */
	{ "kind: 0", F_M_KIND, M_DIR, .num = 0 },
	{ "kind: KIND_MAX", F_M_KIND, M_DIR, .num = HUTCH_MOUNT_KIND_MAX },
	{ "kind: 0xff", F_M_KIND, M_BIND, .num = 0xff },
	{ "kind: DIR becomes BIND (no source)", F_M_KIND, M_DIR, .num = HUTCH_MOUNT_BIND },
	{ "kind: BIND becomes DIR (source)", F_M_KIND, M_BIND, .num = HUTCH_MOUNT_DIR },
	{ "kind: FILE becomes SYMLINK (no text, data)", F_M_KIND, M_FILE, .num = HUTCH_MOUNT_SYMLINK },
	{ "kind: DIR becomes TMPFS (size 0)", F_M_KIND, M_DIR, .num = HUTCH_MOUNT_TMPFS },
	/* a devpts has no source, data or flags, and its ptmx never a mode bit
	 * beyond rw for all */
	{ "kind: DIR becomes DEVPTS (mode 0755)", F_M_KIND, M_DIR, .num = HUTCH_MOUNT_DEVPTS },
	{ "kind: PROC becomes DEVPTS (mode 0555)", F_M_KIND, M_PROC, .num = HUTCH_MOUNT_DEVPTS },
	{ "kind: BIND becomes DEVPTS (source)", F_M_KIND, M_BIND, .num = HUTCH_MOUNT_DEVPTS },
	{ "kind: FILE becomes DEVPTS (data)", F_M_KIND, M_FILE, .num = HUTCH_MOUNT_DEVPTS },
	{ "kind: rw bind of /dev/null becomes DEVPTS (flags)", F_M_KIND, M_BIND_DEV,
	  .num = HUTCH_MOUNT_DEVPTS },
	{ "mount flags: first unknown bit", F_M_FLAGS, M_TMPFS, .num = HUTCH_MF_ALL + 1 },
	{ "mount flags: first unknown bit, bind", F_M_FLAGS, M_BIND, .num = HUTCH_MF_ALL + 1 },
	{ "mount flags: bit 15", F_M_FLAGS, M_TMPFS, .num = 0x8000 },
	{ "mount flags: all ones", F_M_FLAGS, M_BIND_RW, .num = 0xffff },
	/* M_TMPFS_ODD sends its fd: only a tmpfs may, and only one */
	{ "send fd: sending tmpfs becomes a dir", F_M_KIND, M_TMPFS_ODD, .num = HUTCH_MOUNT_DIR },
	{ "send fd: sending tmpfs becomes proc", F_M_KIND, M_TMPFS_ODD, .num = HUTCH_MOUNT_PROC },
	{ "send fd: sending tmpfs becomes a file", F_M_KIND, M_TMPFS_ODD,
	  .num = HUTCH_MOUNT_FILE },
	{ "send fd: a second tmpfs", F_M_FLAGS, M_TMPFS, .num = HUTCH_MF_RW | HUTCH_MF_SEND_FD },
	{ "send fd: a bind as well", F_M_FLAGS, M_BIND, .num = HUTCH_MF_SEND_FD },
	/* an idmapped mount is a writable bind's, and never optional or dev */
	{ "idmap: a read-only bind", F_M_FLAGS, M_BIND, .num = HUTCH_MF_IDMAP },
	{ "idmap: an optional rw bind", F_M_FLAGS, M_BIND,
	  .num = HUTCH_MF_RW | HUTCH_MF_OPTIONAL | HUTCH_MF_IDMAP },
	{ "idmap: a device bind", F_M_FLAGS, M_BIND_DEV,
	  .num = HUTCH_MF_RW | HUTCH_MF_DEV | HUTCH_MF_IDMAP },
	{ "idmap: a tmpfs", F_M_FLAGS, M_TMPFS, .num = HUTCH_MF_RW | HUTCH_MF_IDMAP },
	/* a descriptor is only ever a bind's source, never optional or dev */
	{ "fd: a tmpfs", F_M_FLAGS, M_TMPFS, .num = HUTCH_MF_RW | HUTCH_MF_FD },
	{ "fd: an optional bind", F_M_FLAGS, M_BIND, .num = HUTCH_MF_OPTIONAL | HUTCH_MF_FD },
	{ "fd: a device bind", F_M_FLAGS, M_BIND_DEV, .num = HUTCH_MF_DEV | HUTCH_MF_FD },
	{ "mode: 010000", F_M_MODE, M_FILE, .num = 010000 },
	{ "mode: 0x80000000", F_M_MODE, M_DIR, .num = 0x80000000u },
	{ "mode: all ones", F_M_MODE, M_TMPFS, .num = UINT32_MAX },
	{ "pad: 1", F_M_PAD, M_BIND, .num = 1, WIRE_ONLY },
	{ "pad: 0x80", F_M_PAD, M_FILE, .num = 0x80, WIRE_ONLY },
	{ "tmpfs size: 0", F_M_SIZE, M_TMPFS, .num = 0 },
	{ "tmpfs size: 0 (odd one)", F_M_SIZE, M_TMPFS_ODD, .num = 0 },
	/* nr_inodes=0 is unlimited to the kernel: a tmpfs must name its bound,
	 * and nothing else may carry one */
	{ "tmpfs inodes: 0", F_M_INODES, M_TMPFS, .num = 0 },
	{ "tmpfs inodes: 0 (odd one)", F_M_INODES, M_TMPFS_ODD, .num = 0 },
	{ "bind inodes: 1", F_M_INODES, M_BIND, .num = 1 },
	{ "proc inodes: 1", F_M_INODES, M_PROC, .num = 1 },
	{ "symlink inodes: 1", F_M_INODES, M_SYMLINK, .num = 1 },
	{ "file inodes: 1", F_M_INODES, M_FILE, .num = 1 },
	{ "dir inodes: max", F_M_INODES, M_DIR, .num = UINT64_MAX },
	{ "kind: TMPFS becomes DIR (inodes)", F_M_KIND, M_TMPFS, .num = HUTCH_MOUNT_DIR },
	/* an overlay: a clean host directory (never /) over a bounded tmpfs;
	 * always writable, never dev, optional or sending a work dir */
	{ "kind: BIND becomes OVERLAY (no inodes)", F_M_KIND, M_BIND, .num = HUTCH_MOUNT_OVERLAY },
	{ "kind: TMPFS becomes OVERLAY (no source)", F_M_KIND, M_TMPFS,
	  .num = HUTCH_MOUNT_OVERLAY },
	{ "kind: OVERLAY becomes BIND (inodes)", F_M_KIND, M_OVERLAY, .num = HUTCH_MOUNT_BIND },
	{ "overlay inodes: 0", F_M_INODES, M_OVERLAY, .num = 0 },
	{ "overlay size: 0", F_M_SIZE, M_OVERLAY, .num = 0 },
	{ "overlay source: root", F_M_SOURCE, M_OVERLAY, BYTES("/") },
	/* masks take everything from what they cover: no source, flag,
	 * size, inodes or data of their own */
	{ "hide: a source", F_M_SOURCE, M_HIDE, BYTES("/etc") },
	{ "hide: writable", F_M_FLAGS, M_HIDE, .num = HUTCH_MF_RW },
	{ "read-only: exec", F_M_FLAGS, M_READONLY, .num = HUTCH_MF_EXEC },
	{ "pin: optional", F_M_FLAGS, M_PIN, .num = HUTCH_MF_OPTIONAL },
	{ "pin inodes: 1", F_M_INODES, M_PIN, .num = 1 },
	{ "hide target: relative", F_M_TARGET, M_HIDE, BYTES("data/.env") },
	{ "overlay source: relative", F_M_SOURCE, M_OVERLAY, BYTES("srv") },
	{ "overlay source: dot-dot", F_M_SOURCE, M_OVERLAY, BYTES("/srv/../etc") },
	{ "overlay flags: rw", F_M_FLAGS, M_OVERLAY, .num = HUTCH_MF_RW },
	{ "overlay flags: dev", F_M_FLAGS, M_OVERLAY, .num = HUTCH_MF_DEV },
	{ "overlay flags: optional", F_M_FLAGS, M_OVERLAY, .num = HUTCH_MF_OPTIONAL },
	{ "overlay flags: send fd", F_M_FLAGS, M_OVERLAY, .num = HUTCH_MF_SEND_FD },
	{ "overlay data: a byte", F_M_DATA, M_OVERLAY, BYTES("x") },

	/* targets: absolute and clean, no control characters */
	{ "target: relative", F_M_TARGET, M_DIR, BYTES("relative") },
	{ "target: relative with slash", F_M_TARGET, M_DIR, BYTES("work/") },
	{ "target: empty", F_M_TARGET, M_DIR, BYTES("") },
	{ "target: /a/../b", F_M_TARGET, M_DIR, BYTES("/a/../b") },
	{ "target: /a//b", F_M_TARGET, M_DIR, BYTES("/a//b") },
	{ "target: /a/", F_M_TARGET, M_DIR, BYTES("/a/") },
	{ "target: /", F_M_TARGET, M_DIR, BYTES("/") },
	{ "target: / of a bind", F_M_TARGET, M_BIND, BYTES("/") },
	{ "target: /a/./b", F_M_TARGET, M_DIR, BYTES("/a/./b") },
	{ "target: /..", F_M_TARGET, M_DIR, BYTES("/..") },
	{ "target: /.", F_M_TARGET, M_DIR, BYTES("/.") },
	{ "target: /work/..", F_M_TARGET, M_DIR, BYTES("/work/..") },
	{ "target: //", F_M_TARGET, M_DIR, BYTES("//") },
	{ "target: relative file", F_M_TARGET, M_FILE, BYTES("etc/passwd") },
	{ "target: symlink trailing slash", F_M_TARGET, M_SYMLINK, BYTES("/dev/fd/") },
	{ "target: tmpfs dot-dot", F_M_TARGET, M_TMPFS, BYTES("/tmp/../etc") },
	{ "target: newline", F_M_TARGET, M_DIR, BYTES("/a\nb") },
	{ "target: DEL", F_M_TARGET, M_DIR, BYTES("/a\x7f") },
	{ "target: 0x01", F_M_TARGET, M_FILE, BYTES("/\x01") },
	{ "target: tab", F_M_TARGET, M_BIND, BYTES("/tab\there") },
	{ "target: 4096 bytes", F_M_TARGET, M_DIR, .str = long_path, .len = HUTCH_SPEC_MAX_PATH + 1 },
	{ "target: embedded NUL", F_M_TARGET, M_DIR, BYTES("/wo\0rk"), WIRE_ONLY },
	{ "target: leading NUL", F_M_TARGET, M_BIND, BYTES("\0/usr"), WIRE_ONLY },
	{ "target: just a NUL", F_M_TARGET, M_FILE, BYTES("\0"), WIRE_ONLY },
	{ "target: no terminating NUL", F_M_TARGET, M_DIR, .term = '/', WIRE_ONLY },

	/* sources, by kind */
	{ "bind source: relative", F_M_SOURCE, M_BIND, BYTES("usr") },
	{ "bind source: empty", F_M_SOURCE, M_BIND, BYTES("") },
	{ "bind source: /a/../b", F_M_SOURCE, M_BIND, BYTES("/a/../b") },
	{ "bind source: /a//b", F_M_SOURCE, M_BIND, BYTES("/a//b") },
	{ "bind source: /a/", F_M_SOURCE, M_BIND, BYTES("/a/") },
	{ "bind source: /a/.", F_M_SOURCE, M_BIND, BYTES("/a/.") },
	{ "bind source: /a/./b", F_M_SOURCE, M_BIND_RW, BYTES("/a/./b") },
	{ "bind source: escape", F_M_SOURCE, M_BIND, BYTES("/us\x1br") },
	{ "bind source: 4096 bytes", F_M_SOURCE, M_BIND, .str = long_path,
	  .len = HUTCH_SPEC_MAX_PATH + 1 },
	{ "bind source: embedded NUL", F_M_SOURCE, M_BIND, BYTES("/u\0sr"), WIRE_ONLY },
	{ "bind source: no terminating NUL", F_M_SOURCE, M_BIND, .term = 1, WIRE_ONLY },
	{ "bind: data", F_M_DATA, M_BIND, BYTES("x") },
	{ "symlink: empty text", F_M_SOURCE, M_SYMLINK, BYTES("") },
	{ "symlink: newline in text", F_M_SOURCE, M_SYMLINK, BYTES("lib\n") },
	{ "symlink: 4096 bytes", F_M_SOURCE, M_SYMLINK, .str = long_a,
	  .len = HUTCH_SPEC_MAX_PATH + 1 },
	{ "symlink: embedded NUL", F_M_SOURCE, M_SYMLINK, BYTES("/proc\0/self"), WIRE_ONLY },
	{ "symlink: data", F_M_DATA, M_SYMLINK, BYTES("\0") },
	{ "file: source", F_M_SOURCE, M_FILE, BYTES("/etc/passwd") },
	{ "tmpfs: source", F_M_SOURCE, M_TMPFS, BYTES("tmpfs") },
	{ "tmpfs: data", F_M_DATA, M_TMPFS, BYTES("size=1") },
	{ "proc: source", F_M_SOURCE, M_PROC, BYTES("proc") },
	{ "proc: data", F_M_DATA, M_PROC, BYTES("x") },
	{ "dir: source", F_M_SOURCE, M_DIR, BYTES("/x") },
	{ "dir: data", F_M_DATA, M_DIR, BYTES("\0\0\0\0") },

	/* argv and env */
	{ "argv: 128 KiB", F_ARGV, 2, .str = long_a, .len = HUTCH_SPEC_MAX_ARG_BYTES },
	{ "argv: embedded NUL", F_ARGV, 0, BYTES("/usr/bin\0/sh"), WIRE_ONLY },
	{ "argv: no terminating NUL", F_ARGV, 1, .term = 'x', WIRE_ONLY },
	{ "argv: empty without NUL", F_ARGV, 3, .term = 'x', WIRE_ONLY },
	{ "env: no '='", F_ENV, 0, BYTES("NOEQUALS") },
	{ "env: empty", F_ENV, 1, BYTES("") },
	{ "env: starts with '='", F_ENV, 2, BYTES("=value") },
	{ "env: just '='", F_ENV, 3, BYTES("=") },
	{ "env: 128 KiB", F_ENV, 1, .str = long_env, .len = HUTCH_SPEC_MAX_ARG_BYTES },
	{ "env: embedded NUL", F_ENV, 0, BYTES("LANG=C\0X"), WIRE_ONLY },
	{ "env: NUL hides the '='", F_ENV, 0, BYTES("LANG\0=C"), WIRE_ONLY },
	{ "env: no terminating NUL", F_ENV, 3, .term = 'x', WIRE_ONLY },
};

static void test_good_field_cases(void)
{
	long_strings_init();
	for (size_t i = 0; i < ARRAY_SIZE(good_cases); i++) {
		const struct field_case *c = &good_cases[i];
		struct fixture mod, base;
		struct wire want = { 0 }, got;
		struct decoded d;
		char *scratch = NULL;
		int r;

		fixture_init(&mod);
		apply_struct(&mod, c, &scratch);
		r = spec_encode(&mod.sp, &want.buf, &want.len);
		expect_rc("encode", c->name, r, 0);
		if (r < 0) {
			free(scratch);
			continue;
		}

		fixture_init(&base);
		wire_encode(&base.sp, &got);
		apply_wire(&got, c);
		CU_ASSERT_EQUAL(got.len, want.len);
		if (got.len != want.len || memcmp(got.buf, want.buf, got.len) != 0) {
			fprintf(stderr, "\n    %s: forged bytes differ from encoded\n", c->name);
			CU_FAIL("forged bytes differ from encoded");
		}

		expect_rc("decode", c->name, decode_copy(got.buf, got.len, &d), 0);
		if (d.r == 0)
			assert_spec_equal(&mod.sp, &d.sp);
		decoded_free(&d);
		wire_free(&got);
		free(want.buf);
		free(scratch);
	}
}

static void test_bad_field_cases(void)
{
	long_strings_init();
	for (size_t i = 0; i < ARRAY_SIZE(bad_cases); i++) {
		const struct field_case *c = &bad_cases[i];
		struct fixture f;
		struct wire w;

		if (!c->wire_only) {
			char *scratch = NULL;

			fixture_init(&f);
			apply_struct(&f, c, &scratch);
			expect_rc("encode", c->name, encode_rc(&f.sp), -EINVAL);
			free(scratch);
		}

		fixture_init(&f);
		wire_encode(&f.sp, &w);
		apply_wire(&w, c);
		expect_rc("decode", c->name, decode_rc(w.buf, w.len), -EBADMSG);
		wire_free(&w);
	}
}

static const struct unit_case cases[] = {
	{ "valid variations, encoded and forged", test_good_field_cases },
	{ "broken rules, encoded and forged", test_bad_field_cases },
	{ NULL, NULL },
};

UNIT_MAIN("spec-rules")
