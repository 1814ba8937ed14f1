/* run-changes-dir.c: see run-changes-dir.h. The files go through
 * collect-host.c, the rules --collect writes by: beneath DIR, nothing
 * followed, a temporary file renamed into place, the caller's ownership,
 * mode 0644 or 0755 for a directory (the manifest holds the jail's mode).
 * Names come from the jail: one that is not a clean relative path (a
 * newline, a control byte) is refused and said with '?' for such bytes.
 * Frontend only. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "cli/run-changes-dir.h"
#include "doc/json-util.h"
#include "run/collect-host.h"

static void say_not_written(const char *path, const char *why)
{
	char shown[1100];
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)path; *p && n < 1024; p++)
		shown[n++] = *p >= 0x20 && *p < 0x7f ? (char)*p : '?';
	shown[n] = '\0';
	fprintf(stderr, "hutch: --changes-dir %s: not written: %s\n", shown, why);
}

/* What of the set becomes a file under files/: the added, changed and
 * retyped files and directories that were read whole. */
static int plan_files(struct outcome *o, struct collected *c, size_t *idx)
{
	struct change_set *cs = &o->changes;

	memset(c, 0, sizeof(*c));
	c->files = calloc(cs->n + 1, sizeof(*c->files));
	if (!c->files)
		return -ENOMEM;
	for (size_t i = 0; i < cs->n; i++) {
		struct change_entry *ce = &cs->e[i];
		struct collected_file *f = &c->files[c->n];

		if (ce->kind == CHANGE_DELETED || (ce->type != CTYPE_FILE && ce->type != CTYPE_DIR))
			continue;
		if (ce->error || (ce->type == CTYPE_FILE && !ce->data && ce->size > 0)) {
			ce->write_error = ce->error ? ce->error : "unreadable";
			continue;
		}
		if (asprintf(&f->name, "files%s", ce->path) < 0)
			return -ENOMEM;
		f->data = ce->data;	/* borrowed: the set owns it */
		f->len = ce->len;
		f->is_dir = ce->type == CTYPE_DIR;
		idx[c->n++] = i;
	}
	return 0;
}

static const char *write_manifest(int out_fd, const struct change_set *cs)
{
	_cleanup_json_ struct json_object *doc = json_object_new_object();
	struct json_object *arr = change_set_json(cs, false, true);
	struct collected_file f = { .name = (char *)"changes.json" };
	struct collected c = { .files = &f, .n = 1 };
	const char *text;

	if (!doc || !arr || json_object_object_add(doc, "changes", arr) < 0) {
		json_object_put(arr);
		return "cannot render the manifest";
	}
	json_object_object_add(doc, "version", json_object_new_int(1));
	json_object_object_add(doc, "changes_omitted", json_object_new_int64((int64_t)cs->omitted));
	text = json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	f.data = (uint8_t *)text;
	f.len = strlen(text);
	collect_host_write(out_fd, &c, false);
	return f.write_error;
}

size_t run_changes_dir_write(int out_fd, struct outcome *o)
{
	struct change_set *cs = &o->changes;
	_cleanup_free_ size_t *idx = calloc(cs->n + 1, sizeof(*idx));
	struct collected c = { 0 };
	size_t failed = 0;
	const char *why;

	if (!idx || plan_files(o, &c, idx) < 0) {
		fputs("hutch: --changes-dir: out of memory\n", stderr);
		failed = cs->n + 1;
	} else if (!o->output_withheld) {
		collect_host_write(out_fd, &c, false);
		for (size_t k = 0; k < c.n; k++) {
			struct change_entry *ce = &cs->e[idx[k]];

			ce->write_error = c.files[k].write_error;
			if (!ce->write_error)
				ce->file = TAKE_PTR(c.files[k].name);
		}
	}
	for (size_t i = 0; i < cs->n; i++)
		if (cs->e[i].write_error) {
			say_not_written(cs->e[i].path, cs->e[i].write_error);
			failed++;
		}
	for (size_t k = 0; c.files && k < c.n; k++)
		free(c.files[k].name);
	free(c.files);
	if ((why = write_manifest(out_fd, cs))) {
		say_not_written("changes.json", why);
		failed++;
	}
	return failed;
}
