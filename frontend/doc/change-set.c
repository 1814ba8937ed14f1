/* change-set.c: see change-set.h. Pure code: the result writer and
 * --changes-dir's manifest share these words. Frontend only. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc/change-set.h"
#include "doc/text.h"

static const char *const kind_names[] = { [CHANGE_ADDED] = "added",
					  [CHANGE_MODIFIED] = "modified",
					  [CHANGE_DELETED] = "deleted",
					  [CHANGE_TYPE_CHANGED] = "type_changed" };
static const char *const type_names[] = { [CTYPE_FILE] = "file",     [CTYPE_DIR] = "dir",
					  [CTYPE_SYMLINK] = "symlink", [CTYPE_FIFO] = "fifo",
					  [CTYPE_SOCKET] = "socket",   [CTYPE_CHAR] = "char",
					  [CTYPE_BLOCK] = "block" };

struct change_entry *change_set_add(struct change_set *cs, const char *path)
{
	struct change_entry *ce;

	if (cs->n >= CHANGES_MAX_ENTRIES) {
		cs->omitted++;
		return NULL;
	}
	if (cs->n == cs->alloc) {
		size_t alloc = cs->alloc ? cs->alloc * 2 : 32;
		struct change_entry *ne = reallocarray(cs->e, alloc, sizeof(*ne));

		if (!ne)
			return NULL;
		cs->e = ne;
		cs->alloc = alloc;
	}
	ce = &cs->e[cs->n];
	memset(ce, 0, sizeof(*ce));
	if (!(ce->path = strdup(path)))
		return NULL;
	cs->n++;
	return ce;
}

void change_set_free(struct change_set *cs)
{
	for (size_t i = 0; cs->e && i < cs->n; i++) {
		free(cs->e[i].path);
		free(cs->e[i].link);
		free(cs->e[i].data);
		free(cs->e[i].file);
	}
	free(cs->e);
	memset(cs, 0, sizeof(*cs));
}

static bool add(struct json_object *o, const char *key, struct json_object *v)
{
	if (v && json_object_object_add(o, key, v) == 0)
		return true;
	json_object_put(v);
	return false;
}

static struct json_object *jbase64(const uint8_t *data, size_t len)
{
	char *b64 = base64_encode_alloc(data ? data : (const uint8_t *)"", len);
	struct json_object *v = b64 && strlen(b64) < INT_MAX ? json_object_new_string(b64) : NULL;

	free(b64);
	return v;
}

/* A name the jail chose may be any bytes: text when it is UTF-8 (JSON
 * escapes control characters, newlines included), else the text with '?'
 * for each byte that is not and the exact bytes beside it as base64. */
static bool add_name(struct json_object *o, const char *key, const char *b64_key, const char *s)
{
	size_t n = strlen(s);
	char *shown;
	bool ok;

	if (utf8_valid((const uint8_t *)s, n))
		return add(o, key, json_object_new_string(s));
	if (!(shown = strdup(s)))
		return false;
	for (char *p = shown; *p; p++)
		if ((unsigned char)*p >= 0x80)
			*p = '?';
	ok = add(o, key, json_object_new_string(shown)) &&
	     add(o, b64_key, jbase64((const uint8_t *)s, n));
	free(shown);
	return ok;
}

static bool add_content(struct json_object *o, const struct change_entry *ce, bool with_data,
			bool manifest)
{
	char hex[65], mode[8];
	bool ok = true;

	if (ce->type == CTYPE_FILE)
		ok = add(o, "size", json_object_new_int64((int64_t)ce->size));
	snprintf(mode, sizeof(mode), "%04o", (unsigned)(ce->mode & 07777));
	ok = ok && add(o, "mode", json_object_new_string(mode));
	if (ok && ce->have_sha256) {
		for (int i = 0; i < 32; i++)
			snprintf(hex + 2 * i, 3, "%02x", ce->sha256[i]);
		ok = add(o, "sha256", json_object_new_string(hex));
	}
	if (ok && ce->link)
		ok = add_name(o, "link", "link_base64", ce->link);
	if (ok && with_data && ce->data && !ce->error)
		ok = add(o, "base64", jbase64(ce->data, ce->len));
	if (ok && manifest && ce->file)
		ok = add(o, "file", json_object_new_string(ce->file));
	if (ok && manifest && ce->write_error)
		ok = add(o, "write_error", json_object_new_string(ce->write_error));
	return ok;
}

struct json_object *change_entry_json(const struct change_entry *ce, bool with_data,
				      bool manifest)
{
	struct json_object *o = json_object_new_object();
	bool ok = o && add_name(o, "path", "path_base64", ce->path) &&
		  add(o, "change", json_object_new_string(kind_names[ce->kind])) &&
		  add(o, "type", json_object_new_string(type_names[ce->type]));

	if (ok && ce->kind != CHANGE_DELETED)
		ok = add_content(o, ce, with_data, manifest);
	if (ok && ce->error)
		ok = add(o, "error", json_object_new_string(ce->error));
	if (ok)
		return o;
	json_object_put(o);
	return NULL;
}

struct json_object *change_set_json(const struct change_set *cs, bool with_data, bool manifest)
{
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; a && i < cs->n; i++) {
		struct json_object *o = change_entry_json(&cs->e[i], with_data, manifest);

		if (!o || json_object_array_add(a, o) < 0) {
			json_object_put(o);
			json_object_put(a);
			return NULL;
		}
	}
	return a;
}
