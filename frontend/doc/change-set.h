/* change-set.h: what a run changed under its overlays (--overlay), as
 * run/changes.c reads it from the upper layers, and its JSON: the result's
 * "changes" (hutch(1), hutch-protocol(7)) and --changes-dir's manifest.
 * Types and pure code only. Frontend only. */
#ifndef HUTCH_CHANGE_SET_H
#define HUTCH_CHANGE_SET_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Entries kept in a change set; past it, only a count. */
#define CHANGES_MAX_ENTRIES 4096u

enum change_kind { CHANGE_ADDED, CHANGE_MODIFIED, CHANGE_DELETED, CHANGE_TYPE_CHANGED };
enum change_type {
	CTYPE_FILE, CTYPE_DIR, CTYPE_SYMLINK, CTYPE_FIFO, CTYPE_SOCKET, CTYPE_CHAR, CTYPE_BLOCK
};

struct change_entry {
	char *path;		/* the jail's path, any bytes but NUL */
	enum change_kind kind;
	enum change_type type;	/* what it is now; a deletion: what it was */
	uint64_t size;		/* a file's bytes */
	uint32_t mode;		/* permission bits (07777); not for a deletion */
	bool have_sha256;
	uint8_t sha256[32];
	char *link;		/* a symbolic link's text, as it was written */
	uint8_t *data;		/* the file's bytes, when asked for and within the bounds */
	size_t len;
	/* NULL, "unreadable", "too_deep", "too_large" (its data past the
	 * collect bound, or its digest past the reading bound: no sha256) */
	const char *error;
	const char *write_error;	/* --changes-dir: NULL or why it was not written */
	char *file;		/* --changes-dir: where it was written, relative */
};

struct change_set {
	bool present;		/* the run had overlays: "changes" is in the result */
	bool with_data;		/* entries carry data (export_changes, --changes-dir) */
	bool exported;		/* the result shows it as base64 (export_changes) */
	struct change_entry *e;
	size_t n, alloc;
	uint64_t omitted;	/* entries past CHANGES_MAX_ENTRIES */
	uint64_t data_bytes;	/* data kept, against the policy's collect bound */
};

/* A new entry for path (copied), or NULL: no memory, or the set is full
 * (then counted in omitted). */
struct change_entry *change_set_add(struct change_set *cs, const char *path);
void change_set_free(struct change_set *cs);

/* One entry as JSON; base64 of its data when with_data, its --changes-dir
 * file when manifest. NULL on no memory. */
struct json_object *change_entry_json(const struct change_entry *ce, bool with_data,
				      bool manifest);
/* The "changes" array; NULL on no memory. */
struct json_object *change_set_json(const struct change_set *cs, bool with_data, bool manifest);

#endif
