/* spec-send-spec.c: the spec tests/progs/spec-send builds from the command
 * line's words (see the header of spec-send.c): mounts, the default jail's
 * layout, the words' lists and numbers, and the bytes sent for it. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hutch-abi.h"
#include "spec.h"

#include "spec-send.h"

struct spec_mount mounts[HUTCH_SPEC_MAX_MOUNTS];
struct spec sp = { .mounts = mounts, .hostname = "hutch" };
char *envv[HUTCH_SPEC_MAX_ENVC + 1] = { "PATH=/usr/local/bin:/usr/bin:/bin" };

_Noreturn void usage(const char *why, const char *word)
{
	fprintf(stderr, "spec-send: %s%s%s (see the header of tests/progs/spec-send.c)\n", why,
		word ? ": " : "", word ? word : "");
	exit(2);
}

uint64_t number(const char *s)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		usage("not a number", s);
	return v;
}

uint32_t number32(const char *s)
{
	uint64_t v = number(s);

	if (v > UINT32_MAX)
		usage("out of range", s);
	return (uint32_t)v;
}

struct spec_mount *add_mount(uint8_t kind, const char *target)
{
	struct spec_mount *m;

	if (sp.n_mounts >= HUTCH_SPEC_MAX_MOUNTS)
		usage("too many mounts", NULL);
	m = &mounts[sp.n_mounts++];
	memset(m, 0, sizeof(*m));
	m->kind = kind;
	m->source = "";
	m->target = target;
	return m;
}

void add_bind(const char *source, const char *target, uint16_t flags)
{
	struct spec_mount *m = add_mount(HUTCH_MOUNT_BIND, target);

	m->source = source;
	m->flags = flags;
}

void add_tmpfs(const char *target, uint32_t mode, uint64_t bytes, uint64_t inodes,
	       uint16_t flags)
{
	struct spec_mount *m = add_mount(HUTCH_MOUNT_TMPFS, target);

	m->mode = mode;
	m->size_bytes = bytes;
	m->inodes = inodes;
	m->flags = flags;
}

void add_overlay(const char *source, const char *target, uint64_t bytes)
{
	struct spec_mount *m = add_mount(HUTCH_MOUNT_OVERLAY, target);

	m->source = source;
	m->mode = 0700;
	m->size_bytes = bytes;
	m->inodes = 4096;
}

void add_symlink(const char *text, const char *target)
{
	add_mount(HUTCH_MOUNT_SYMLINK, target)->source = text;
}

void add_file(const char *target, const char *text, uint32_t mode)
{
	struct spec_mount *m = add_mount(HUTCH_MOUNT_FILE, target);

	m->data = (const uint8_t *)text;
	m->data_len = (uint32_t)strlen(text);
	m->mode = mode;
}

static char *xasprintf_str(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *xasprintf_str(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int r;

	va_start(ap, fmt);
	r = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (r < 0) {
		perror("spec-send");
		exit(3);
	}
	return s;
}

static const char *real_or_same(const char *path)
{
	char *real = realpath(path, NULL);

	return real ? real : path;
}

/* Mirrors frontend/layout.c under policy/default.json (its binds and
 * sizes): keep them in step, or tests of "the default jail" test another. */
void add_default_layout(void)
{
	static const char *const usr_dirs[] = { "/bin", "/sbin", "/lib", "/lib32", "/lib64",
						"/libx32" };
	static const char *const nodes[] = { "/dev/null", "/dev/zero", "/dev/full", "/dev/random",
					      "/dev/urandom" };
	static const char *const links[][2] = {
		{ "/proc/self/fd", "/dev/fd" },	      { "/proc/self/fd/0", "/dev/stdin" },
		{ "/proc/self/fd/1", "/dev/stdout" }, { "/proc/self/fd/2", "/dev/stderr" },
	};
	static const char *const etc_files[] = { "/etc/ld.so.cache", "/etc/alternatives",
						 "/etc/localtime", "/etc/nsswitch.conf" };
	const uint64_t tmp_bytes = 256ull << 20, work_bytes = 256ull << 20;
	const uint64_t tmp_inodes = 32768, work_inodes = 65536;
	const uint32_t uid = sp.uid_inside, gid = sp.gid_inside;
	int is_nobody = uid == HUTCH_DEFAULT_JAIL_ID, is_nogroup = gid == HUTCH_DEFAULT_JAIL_ID;

	/* As frontend/narrow.c: the helper binds only symlink-free sources, so
	 * a policy path that is a link (/etc/localtime) binds where it points. */
	add_bind(real_or_same("/usr"), "/usr", HUTCH_MF_OPTIONAL | HUTCH_MF_EXEC);
	for (size_t i = 0; i < sizeof(etc_files) / sizeof(etc_files[0]); i++)
		add_bind(real_or_same(etc_files[i]), etc_files[i], HUTCH_MF_OPTIONAL);
	for (size_t i = 0; i < sizeof(usr_dirs) / sizeof(usr_dirs[0]); i++) {
		char buf[4096];
		struct stat st;
		ssize_t n;

		if (lstat(usr_dirs[i], &st) < 0)
			continue;
		if (S_ISLNK(st.st_mode)) {
			n = readlink(usr_dirs[i], buf, sizeof(buf) - 1);
			if (n <= 0)
				continue;
			buf[n] = '\0';
			add_symlink(strdup(buf), usr_dirs[i]);
		} else if (S_ISDIR(st.st_mode)) {
			add_bind(usr_dirs[i], usr_dirs[i], HUTCH_MF_EXEC | HUTCH_MF_OPTIONAL);
		}
	}
	add_file("/etc/passwd",
		 xasprintf_str("%s:x:%u:%u:hutch jail:/work:/bin/sh\n%s",
			       is_nobody ? "nobody" : "hutch", uid, gid,
			       is_nobody ? "" : "nobody:x:65534:65534:nobody:/:/usr/sbin/nologin\n"),
		 0644);
	add_file("/etc/group",
		 xasprintf_str("%s:x:%u:\n%s", is_nogroup ? "nogroup" : "hutch", gid,
			       is_nogroup ? "" : "nogroup:x:65534:\n"),
		 0644);
	add_file("/etc/hosts",
		 xasprintf_str("127.0.0.1\tlocalhost %s\n::1\tlocalhost ip6-localhost\n",
			       sp.hostname),
		 0644);
	add_mount(HUTCH_MOUNT_PROC, "/proc");
	add_tmpfs("/dev", 0755, 64u << 10, 64, 0);
	for (size_t i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++)
		add_bind(nodes[i], nodes[i], HUTCH_MF_RW | HUTCH_MF_DEV);
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++)
		add_symlink(links[i][0], links[i][1]);
	add_tmpfs("/dev/shm", 01777, tmp_bytes, tmp_inodes, HUTCH_MF_RW);
	add_tmpfs("/tmp", 01777, tmp_bytes, tmp_inodes, HUTCH_MF_RW);
	add_tmpfs("/work", 0755, work_bytes, work_inodes, HUTCH_MF_RW);
}

/* One name of a comma list, and its bits. */
struct flag_name {
	const char *name;
	uint32_t bit;
};

/* A comma list of the names in names[n], or a number; what says which
 * kind of name a usage error found unknown. */
static uint32_t parse_names(const char *list, const struct flag_name *names, size_t n,
			    const char *what)
{
	char *copy, *tok, *save = NULL;
	uint32_t flags = 0;

	if (list[0] >= '0' && list[0] <= '9')
		return number32(list);
	copy = strdup(list);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		size_t k;

		for (k = 0; k < n; k++)
			if (strcmp(tok, names[k].name) == 0)
				break;
		if (k == n)
			usage(what, tok);
		flags |= names[k].bit;
	}
	free(copy);
	return flags;
}

uint16_t parse_mflags(const char *list)
{
	static const struct flag_name names[] = {
		{ "ro", 0 },		     { "rw", HUTCH_MF_RW },
		{ "exec", HUTCH_MF_EXEC },   { "dev", HUTCH_MF_DEV },
		{ "optional", HUTCH_MF_OPTIONAL },
		{ "fd", HUTCH_MF_FD },
		{ "idmap", HUTCH_MF_IDMAP },
	};

	return (uint16_t)parse_names(list, names, sizeof(names) / sizeof(names[0]),
				     "unknown mount flag");
}

uint32_t parse_flags(const char *list)
{
	static const struct flag_name names[] = {
		{ "none", 0 },
		{ "pid", HUTCH_SPEC_NS_PID },
		{ "net", HUTCH_SPEC_NS_NET },
		{ "ipc", HUTCH_SPEC_NS_IPC },
		{ "uts", HUTCH_SPEC_NS_UTS },
		{ "cgroup", HUTCH_SPEC_NS_CGROUP },
		{ "loopback", HUTCH_SPEC_NET_LOOPBACK },
		{ "landlock", HUTCH_SPEC_LANDLOCK },
		{ "landlock-required", HUTCH_SPEC_LANDLOCK_REQUIRED },
		{ "landlock-net", HUTCH_SPEC_LANDLOCK_NET },
		{ "seccomp", HUTCH_SPEC_SECCOMP },
	};

	return parse_names(list, names, sizeof(names) / sizeof(names[0]), "unknown spec flag");
}

uint8_t *parse_hex(const char *hex, size_t *ret_len)
{
	size_t n = strlen(hex);
	uint8_t *buf;

	if (n % 2)
		usage("odd number of hex digits", hex);
	buf = malloc(n / 2 + 1);
	for (size_t i = 0; i < n / 2; i++) {
		unsigned v;

		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			usage("not hex", hex);
		buf[i] = (uint8_t)v;
	}
	*ret_len = n / 2;
	return buf;
}

int rlimit_index(const char *name)
{
	static const char *const names[HUTCH_RLIM_COUNT] = {
		[HUTCH_RLIM_AS] = "as",		[HUTCH_RLIM_CPU] = "cpu",
		[HUTCH_RLIM_FSIZE] = "fsize",	[HUTCH_RLIM_NOFILE] = "nofile",
		[HUTCH_RLIM_NPROC] = "nproc",
	};

	for (int i = 0; i < HUTCH_RLIM_COUNT; i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	usage("unknown rlimit", name);
}

uint8_t *make_wire(const struct wire *w, size_t *ret_len)
{
	uint8_t *buf;
	size_t len;
	int r;

	if (w->raw_hex) {
		buf = parse_hex(w->raw_hex, &len);
	} else {
		r = spec_encode(&sp, &buf, &len);
		if (r < 0) {
			fprintf(stderr, "spec-send: spec_encode: %s\n", strerror(-r));
			exit(2);
		}
	}
	buf = realloc(buf, len + 1);
	if (w->bad_magic && len > 0)
		buf[0] ^= 0xff;
	if (w->append_garbage)
		buf[len++] = 0x5a;
	if (w->truncate_to >= 0 && (size_t)w->truncate_to < len)
		len = (size_t)w->truncate_to;
	if (w->fix_length && len >= HUTCH_SPEC_HEADER_BYTES) {
		buf[8] = (uint8_t)len;
		buf[9] = (uint8_t)(len >> 8);
		buf[10] = (uint8_t)(len >> 16);
		buf[11] = (uint8_t)(len >> 24);
	}
	if (w->no_spec)
		len = 0;
	*ret_len = len;
	return buf;
}

void dump_mounts(void)
{
	for (uint32_t i = 0; i < sp.n_mounts; i++)
		fprintf(stderr, "spec-send: mount %u kind=%u flags=%#x %s -> %s\n", i,
			mounts[i].kind, mounts[i].flags, mounts[i].source, mounts[i].target);
}
