/* spec-compare.c: the template a pooled jail built its prefix from and
 * the job it is handed must agree on everything that prefix depends on
 * (spec-compare.h). Any field left out here is a field a job could
 * differ in and still take a jail built for another, so every one of
 * struct spec_mount's is compared, and the strings and data by their
 * bytes. Linked by both binaries; no allocation. */
#include "config.h"

#include <string.h>

#include "spec-compare.h"

static bool str_equal(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

static bool mount_equal(const struct spec_mount *a, const struct spec_mount *b)
{
	return a->kind == b->kind && a->flags == b->flags && a->mode == b->mode &&
	       a->size_bytes == b->size_bytes && a->inodes == b->inodes &&
	       str_equal(a->source, b->source) && str_equal(a->target, b->target) &&
	       a->data_len == b->data_len &&
	       (a->data_len == 0 || memcmp(a->data, b->data, a->data_len) == 0);
}

/* Everything of spec_prefix_equal's but the flags. */
static bool ids_and_mounts_equal(const struct spec *a, const struct spec *b, uint32_t k)
{
	if (a->uid_inside != b->uid_inside || a->gid_inside != b->gid_inside ||
	    a->uid_outside != b->uid_outside || a->gid_outside != b->gid_outside ||
	    !str_equal(a->hostname, b->hostname))
		return false;
	if (a->n_mounts < k || b->n_mounts < k)
		return false;
	for (uint32_t i = 0; i < k; i++)
		if (!mount_equal(&a->mounts[i], &b->mounts[i]))
			return false;
	return true;
}

bool spec_prefix_equal(const struct spec *a, const struct spec *b, uint32_t k)
{
	return a->flags == b->flags && ids_and_mounts_equal(a, b, k);
}

bool spec_whole_equal(const struct spec *job, const struct spec *tpl)
{
	/* The marker is the template's alone: a job carrying it, or a
	 * template without it (built as a prefix only), is no match. The
	 * other flags hold the Landlock ones (landlock_prepare). */
	if ((job->flags & HUTCH_SPEC_TEMPLATE_WHOLE) || !(tpl->flags & HUTCH_SPEC_TEMPLATE_WHOLE) ||
	    (job->flags | HUTCH_SPEC_TEMPLATE_WHOLE) != tpl->flags)
		return false;
	/* Every mount, none more: the root is sealed and pivoted, and the
	 * rules were added for each of the template's (landlock_add_rules) */
	return job->n_mounts == tpl->n_mounts && ids_and_mounts_equal(job, tpl, tpl->n_mounts);
}

bool spec_mount_prebuildable(const struct spec_mount *m)
{
	switch ((enum hutch_mount_kind)m->kind) {
	case HUTCH_MOUNT_BIND:
		return !(m->flags & (HUTCH_MF_FD | HUTCH_MF_IDMAP));
	case HUTCH_MOUNT_TMPFS:
		return !(m->flags & HUTCH_MF_SEND_FD);
	case HUTCH_MOUNT_PROC:
	case HUTCH_MOUNT_SYMLINK:
	case HUTCH_MOUNT_FILE:
	case HUTCH_MOUNT_DIR:
	case HUTCH_MOUNT_DEVPTS:
		return true;
	case HUTCH_MOUNT_OVERLAY:
	case HUTCH_MOUNT_HIDE:
	case HUTCH_MOUNT_READONLY:
	case HUTCH_MOUNT_PIN:
	case HUTCH_MOUNT_KIND_MAX:
		break;
	}
	return false;
}

bool spec_source_staged(const char *path)
{
	size_t n = strlen(HUTCH_STAGING_DIR);

	return strcmp(path, "/") == 0 || (strncmp(path, HUTCH_STAGING_DIR, n) == 0 &&
					  (path[n] == '\0' || path[n] == '/'));
}

bool spec_own_sources_staged(const struct spec *sp, uint32_t k)
{
	for (uint32_t i = k; i < sp->n_mounts; i++)
		if ((sp->mounts[i].kind == HUTCH_MOUNT_BIND ||
		     sp->mounts[i].kind == HUTCH_MOUNT_OVERLAY) &&
		    spec_source_staged(sp->mounts[i].source))
			return true;
	return false;
}
