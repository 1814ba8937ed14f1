/* overlay-absent.c: phase 2, pid 1, from overlay_new. A path the policy
 * keeps read-only that did not exist when the jail was planned (a
 * repository without .git/hooks) is a READONLY mask record all the same
 * (frontend jail/masks-absent.c): a mask needs something to be mounted
 * on, and making it in the overlay would put it in the upper layer, the
 * change set a caller reviews and applies. So it is made here, as an
 * empty directory in a lower layer of its own ("base", beside upper/ and
 * work/ in the overlay's tmpfs) below the source: the source's own
 * directories stay on top (their modes and owners are what the jail
 * sees), and the merged tree has the path, which masks.c then binds
 * read-only. Async-signal-safe; descriptors and the stack only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helper.h"
#include "sys.h"

static int is_tree(uint8_t kind)
{
	return kind == HUTCH_MOUNT_BIND || kind == HUTCH_MOUNT_OVERLAY;
}

/* Is a strictly below b, as jail paths? */
static int below(const char *a, const char *b)
{
	size_t n = strlen(b);

	if (n == 1)	/* "/" */
		return a[1] != '\0';
	return strncmp(a, b, n) == 0 && a[n] == '/';
}

/* Does target lie in mount i's tree rather than in a bind inside it? */
static int in_overlay(const struct spec *sp, uint32_t i, const char *target)
{
	if (!below(target, sp->mounts[i].target))
		return 0;
	for (uint32_t k = 0; k < sp->n_mounts; k++)
		if (k != i && is_tree(sp->mounts[k].kind) &&
		    below(sp->mounts[k].target, sp->mounts[i].target) &&
		    (below(target, sp->mounts[k].target) ||
		     strcmp(target, sp->mounts[k].target) == 0))
			return 0;
	return 1;
}

/* rel under base_fd, component by component, no link followed. */
static void make_path(int base_fd, const char *rel, uint32_t i)
{
	char buf[HUTCH_SPEC_MAX_PATH + 1];
	int dfd = dup(base_fd);

	if (dfd < 0 || strlen(rel) >= sizeof(buf))
		fail(STAGE_OVERLAY, i, dfd < 0 ? errno : ENAMETOOLONG);
	strcpy(buf, rel);
	for (char *c = buf, *slash; c && *c; c = slash ? slash + 1 : NULL) {
		int next;

		slash = strchr(c, '/');
		if (slash)
			*slash = '\0';
		if (mkdirat(dfd, c, 0755) < 0 && errno != EEXIST)
			fail(STAGE_OVERLAY, i, errno);
		next = openat(dfd, c, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0)
			fail(STAGE_OVERLAY, i, errno);
		close(dfd);
		dfd = next;
	}
	close(dfd);
}

int overlay_absent(const struct spec *sp, uint32_t i, int lower_fd, int upper_fd)
{
	struct open_how how = {
		.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC,
		.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
	};
	int base_fd = -1;

	for (uint32_t k = 0; k < sp->n_mounts; k++) {
		const struct spec_mount *m = &sp->mounts[k];
		const char *rel;
		int fd;

		if ((m->kind != HUTCH_MOUNT_READONLY && m->kind != HUTCH_MOUNT_PIN) ||
		    !in_overlay(sp, i, m->target))
			continue;
		rel = m->target + strlen(sp->mounts[i].target) + (sp->mounts[i].target[1] != '\0');
		rel += *rel == '/';
		fd = (int)syscall(SYS_openat2, lower_fd, rel, &how, sizeof(how));
		if (fd >= 0) {
			close(fd);
			continue;
		}
		if (errno != ENOENT)	/* a link on the way: masks.c refuses it */
			continue;
		if (base_fd < 0) {
			if (mkdirat(upper_fd, OVL_BASE_NAME, 0755) < 0)
				fail(STAGE_OVERLAY, i, errno);
			base_fd = openat(upper_fd, OVL_BASE_NAME,
					 O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (base_fd < 0)
				fail(STAGE_OVERLAY, i, errno);
		}
		make_path(base_fd, rel, i);
	}
	if (base_fd < 0)
		return 0;
	close(base_fd);
	return 1;
}
