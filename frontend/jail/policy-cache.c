/* policy-cache.c: see policy-cache.h. One entry per policy name,
 * "policy-NAME": a header that must equal the one this run would write,
 * byte for byte, then the policy as doc/policy-blob.c writes it (which
 * checks it again on the way back). The header holds the identity of the
 * policy file (device, inode, size, mtime, ctime: any write changes the
 * ctime, and no caller can set it back) and its path as reported, and
 * the identity of the running hutch (device, inode, size, mtime, ctime
 * of /proc/self/exe), so a rebuilt or upgraded hutch never reads what
 * another build wrote. Anything that does not match is a miss: the file
 * is parsed as ever and the entry replaced. Nothing a jail can write is
 * read here (DESIGN.md: caches). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cleanup.h"
#include "doc/policy-blob.h"
#include "jail/cache.h"
#include "jail/policy-cache.h"

#define ENTRY_MAGIC "hutch policy cache 1\n"
#define ENTRY_MAX (4u << 20)

struct file_id {
	uint64_t dev, ino, size, mtime_s, mtime_ns, ctime_s, ctime_ns;
};

static void file_id(const struct stat *st, struct file_id *id)
{
	*id = (struct file_id){ (uint64_t)st->st_dev,	     (uint64_t)st->st_ino,
				(uint64_t)st->st_size,	     (uint64_t)st->st_mtim.tv_sec,
				(uint64_t)st->st_mtim.tv_nsec, (uint64_t)st->st_ctim.tv_sec,
				(uint64_t)st->st_ctim.tv_nsec };
}

/* The header for this policy file read by this binary; its length, or
 * 0 when it cannot be made. */
static size_t make_header(const char *file, const struct stat *st, char *buf, size_t cap)
{
	struct stat self;
	struct file_id pid, sid;
	size_t flen = strlen(file), n = sizeof(ENTRY_MAGIC) - 1;

	if (stat("/proc/self/exe", &self) < 0)
		return 0;
	file_id(st, &pid);
	file_id(&self, &sid);
	if (n + sizeof(pid) + sizeof(sid) + sizeof(uint64_t) + flen > cap)
		return 0;
	memcpy(buf, ENTRY_MAGIC, n);
	memcpy(buf + n, &sid, sizeof(sid));
	n += sizeof(sid);
	memcpy(buf + n, &pid, sizeof(pid));
	n += sizeof(pid);
	memcpy(buf + n, &(uint64_t){ flen }, sizeof(uint64_t));
	n += sizeof(uint64_t);
	memcpy(buf + n, file, flen);
	return n + flen;
}

static bool entry_name(const char *name, char *buf, size_t cap)
{
	int n = snprintf(buf, cap, "policy-%s", name);

	return n > 0 && (size_t)n < cap && !strchr(name, '/');
}

static int get(void *ctx, const char *name, const char *file, const struct stat *st,
	       struct policy *ret)
{
	char key[8192], entry[128];
	_cleanup_free_ uint8_t *data = NULL;
	size_t klen, len;
	struct policy p;

	(void)ctx;
	if (!entry_name(name, entry, sizeof(entry)) ||
	    !(klen = make_header(file, st, key, sizeof(key))) ||
	    cache_read(entry, ENTRY_MAX, &data, &len) < 0)
		return -ENOENT;
	if (len < klen || memcmp(data, key, klen) != 0 ||
	    policy_blob_decode(data + klen, len - klen, &p) < 0)
		return -ENOENT;
	if (strcmp(p.name, name) != 0) {
		policy_free(&p);
		return -ENOENT;
	}
	*ret = p;
	return 0;
}

static void put(void *ctx, const char *name, const char *file, const struct stat *st,
		const struct policy *p)
{
	char key[8192], entry[128];
	_cleanup_free_ uint8_t *blob = NULL, *data = NULL;
	size_t klen, blen;

	(void)ctx;
	if (!entry_name(name, entry, sizeof(entry)) ||
	    !(klen = make_header(file, st, key, sizeof(key))) ||
	    policy_blob_encode(p, &blob, &blen) < 0 || klen + blen > ENTRY_MAX ||
	    !(data = malloc(klen + blen)))
		return;
	memcpy(data, key, klen);
	memcpy(data + klen, blob, blen);
	cache_write(entry, data, klen + blen);
}

static const struct policy_cache ops = { .get = get, .put = put };

const struct policy_cache *policy_cache(void)
{
	const char *off = getenv("HUTCH_POLICY_CACHE");

	return off && strcmp(off, "0") == 0 ? NULL : &ops;
}
