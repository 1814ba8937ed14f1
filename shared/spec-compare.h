/* spec-compare.h: whether two specs agree on what a pooled jail built
 * ahead of its job (hutch-exec(8), FORKSERVER): the flags, the ids, the
 * hostname and the first k mounts, field by field; or, for a jail whose
 * whole root and Landlock rules were built ahead, all of the mounts. Linked by both
 * binaries; pure code, async-signal-safe (no allocation). */
#ifndef HUTCH_SPEC_COMPARE_H
#define HUTCH_SPEC_COMPARE_H

#include <stdbool.h>
#include <stdint.h>

#include "spec.h"

/* true when a and b have the same flags, ids and hostname and both have
 * at least k mounts whose first k are equal in kind, flags, mode,
 * size_bytes, inodes, source, target and data bytes; false otherwise. */
bool spec_prefix_equal(const struct spec *a, const struct spec *b, uint32_t k);

/* true when tpl is a whole template (HUTCH_SPEC_TEMPLATE_WHOLE) and job
 * is what it was made from: job without that flag and its flags
 * otherwise tpl's (the namespaces, the Landlock ones landlock_prepare
 * reads), the same ids and hostname, and the same number of mounts, all
 * of them equal as spec_prefix_equal compares them (each one's kind,
 * flags and target are what landlock_add_rules reads, and all of them
 * what the root built ahead was made of); false otherwise. */
bool spec_whole_equal(const struct spec *job, const struct spec *tpl);

/* Whether m may be built before its job exists: nothing in it needs the
 * job's descriptors (a bind of one, a tmpfs sent on the control socket,
 * an overlay's upper) or what only a one-shot helper's outer process
 * prepares (an idmapped tree); no mask (they cover the job's binds). */
bool spec_mount_prebuildable(const struct spec_mount *m);

/* Where hutch-exec stages the new root (helper.h STAGING_DIR). A pooled
 * jail that built its prefix ahead has its root there already, so a
 * source it clones for the job at that path, under it or at "/" (whose
 * recursive clone takes the staged root along) would be of the jail,
 * not of the host: spec_source_staged says whether path is one. Such a
 * job gets no template (frontend) and is refused one (hutch-exec). */
#define HUTCH_STAGING_DIR "/tmp"
bool spec_source_staged(const char *path);

/* Whether mounts [k, n) of sp (the job's own) have a bind or overlay
 * source spec_source_staged says yes to. */
bool spec_own_sources_staged(const struct spec *sp, uint32_t k);

#endif
