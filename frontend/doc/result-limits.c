/* result-limits.c: jail.masks and the stderr lines for a memory limit and
 * the mask walk's bounds (see result-limits.h). Frontend only. */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "doc/result-limits.h"

static void put_count(struct json_object *o, const char *key, uint64_t v, bool *ok)
{
	struct json_object *n = json_object_new_int64((int64_t)v);

	if (!n || json_object_object_add(o, key, n) != 0) {
		json_object_put(n);
		*ok = false;
	}
}

static void push_word(struct json_object *a, const char *w, bool *ok)
{
	struct json_object *s = json_object_new_string(w);

	if (!s || json_object_array_add(a, s) != 0) {
		json_object_put(s);
		*ok = false;
	}
}

struct json_object *result_masks_json(const struct plan_masks_report *r)
{
	struct json_object *o = json_object_new_object(), *b = json_object_new_array();
	bool ok = o && b;

	if (!ok)
		goto out;
	put_count(o, "hidden", r->hidden, &ok);
	put_count(o, "read_only", r->read_only, &ok);
	put_count(o, "pinned", r->pinned, &ok);
	put_count(o, "left_out", r->left_out, &ok);
	put_count(o, "visited", r->visited, &ok);
	put_count(o, "unreadable", r->unreadable, &ok);
	put_count(o, "links", r->links, &ok);
	put_count(o, "absent", r->absent, &ok);
	put_count(o, "hard_links", r->hard_links, &ok);
	if (r->left_out)
		push_word(b, "count", &ok);
	if (r->depth_hit)
		push_word(b, "depth", &ok);
	if (r->entries_hit)
		push_word(b, "entries", &ok);
	if (ok && json_object_object_add(o, "bounds_hit", b) == 0)
		return o;
out:
	json_object_put(b);
	json_object_put(o);
	return NULL;
}

/* Without a cgroup a run that died of RLIMIT_DATA says only what its
 * runtime printed: the verdict of run/memory-limit.c, in one line. */
static void print_memory_limit(struct json_object *doc)
{
	struct json_object *v;

	if (json_object_object_get_ex(doc, "limit", &v) && v &&
	    strcmp(json_object_get_string(v), "memory") == 0 &&
	    json_object_object_get_ex(doc, "limit_detail", &v) && v)
		fprintf(stderr, "hutch: memory limit: %s\n", json_object_get_string(v));
}

/* The walk that resolved the masks stopped at a bound: what lies beyond
 * it is not masked, which a caller must hear of without --json. */
static void print_mask_bounds(struct json_object *doc)
{
	struct json_object *j, *m, *b;
	size_t n;

	if (!json_object_object_get_ex(doc, "jail", &j) || !j ||
	    !json_object_object_get_ex(j, "masks", &m) || !m ||
	    !json_object_object_get_ex(m, "bounds_hit", &b) || !b ||
	    (n = json_object_array_length(b)) == 0)
		return;
	fprintf(stderr, "hutch: masks: the walk for hide and read_only patterns hit its bound (");
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "%s%s", i ? ", " : "",
			json_object_get_string(json_object_array_get_idx(b, i)));
	fprintf(stderr, "): what lies beyond it is not masked (jail.masks in --json)\n");
}

void result_print_limits(struct json_object *doc)
{
	print_memory_limit(doc);
	print_mask_bounds(doc);
}
