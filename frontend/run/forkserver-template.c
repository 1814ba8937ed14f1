/* forkserver-template.c: the template of a poolable spec (forkserver-wire.h,
 * struct hutch_fs_shape): the policy's prefix of its mounts as a spec of
 * its own, in a sealed memfd, and its SHA-256, sent to the forkserver
 * only when it is not the one sent last. Frontend only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <nettle/sha2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cleanup.h"
#include "fd-util.h"
#include "forkserver-wire.h"
#include "spec.h"
#include "run/forkserver.h"

/* What a template keeps of sp: the flags, ids and hostname, the first
 * n_prefix mounts and the filter (the codec wants one with the seccomp
 * flag, and it is the policy's); argv, env, cwd, limits and counts are
 * the request's and fixed placeholders here, so that every request of
 * one policy has one template. When those are all of sp's mounts (the
 * request adds none of its own) and the caller says so (whole:
 * FS_WHOLE_AFTER), the template is whole: marked so, a
 * pooled jail builds the whole root and the Landlock rules (which read
 * the flags and each mount) from it, and only a job equal to it in every
 * mount takes that jail (hutch-exec(8), "The template"). The marker is
 * in the bytes, so in the digest: a request with mounts of its own, whose
 * template is its prefix alone, never picks a jail built whole. */
static int template_encode(const struct spec *sp, uint32_t n_prefix, bool whole,
			   uint8_t **ret_buf, size_t *ret_len)
{
	static char *argv[] = { "/", NULL }, *envp[] = { NULL };
	struct spec t = *sp;

	t.n_mounts = n_prefix;
	if (whole && n_prefix == sp->n_mounts)
		t.flags |= HUTCH_SPEC_TEMPLATE_WHOLE;
	t.argc = 1;
	t.argv = argv;
	t.envc = 0;
	t.envp = envp;
	t.cwd = "/";
	memset(t.rlimit, 0, sizeof(t.rlimit));
	memset(t.user_cap, 0, sizeof(t.user_cap));
	return spec_encode(&t, ret_buf, ret_len);
}

/* The bytes in a memfd sealed against any change, so what the pooled
 * jails read is what we hashed. */
static int template_memfd(const uint8_t *buf, size_t len)
{
	_cleanup_close_ int fd = memfd_create("hutch-template", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	int r;

	if (fd < 0)
		return -errno;
	if ((r = fd_write_all(fd, buf, len)) < 0)
		return r;
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL | F_SEAL_WRITE | F_SEAL_GROW | F_SEAL_SHRINK) < 0)
		return -errno;
	return TAKE_FD(fd);
}

int forkserver_template(const struct fs_template *last, const struct spec *sp,
			uint32_t n_prefix, bool whole, uint8_t ret_id[32],
			struct fs_template *ret_new, int *ret_fd)
{
	_cleanup_free_ uint8_t *buf = NULL;
	struct sha256_ctx ctx;
	size_t len = 0;
	int fd, r;

	memset(ret_id, 0, 32);
	*ret_fd = -1;
	if (!sp || n_prefix == 0 || n_prefix > sp->n_mounts)
		return 0;
	if ((r = template_encode(sp, n_prefix, whole, &buf, &len)) < 0)
		return r;
	/* The same bytes as last time: the same id, and the forkserver
	 * has them. Hashing is the expensive part; a compare is not. */
	if (last->buf && last->len == len && memcmp(last->buf, buf, len) == 0) {
		memcpy(ret_id, last->id, 32);
		return 0;
	}
	sha256_init(&ctx);
	sha256_update(&ctx, len, buf);
	sha256_digest(&ctx, SHA256_DIGEST_SIZE, ret_id);
	if ((fd = template_memfd(buf, len)) < 0)
		return fd;
	ret_new->buf = TAKE_PTR(buf);
	ret_new->len = len;
	memcpy(ret_new->id, ret_id, 32);
	*ret_fd = fd;
	return 0;
}

void forkserver_template_keep(struct fs_template *last, struct fs_template *sent)
{
	free(last->buf);
	*last = *sent;
	*sent = (struct fs_template){ 0 };
}
