/* result.c: the result document (see result.h). It serialises an outcome
 * as run/classify.c settled it and decides nothing; output is text or
 * base64 as classify chose; messages are fixed per code plus the limit,
 * field or failure words, never what the command printed or was given.
 * Frontend only. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "frame-codec.h"
#include "status.h"
#include "doc/json-util.h"
#include "doc/request.h"
#include "doc/result.h"
#include "doc/result-limits.h"
#include "doc/result-net.h"
#include "doc/text.h"

/* json-c's json_escape_str: two bytes for the short escapes, six for
 * other control characters (\u00XX), one for anything else, UTF-8 bytes
 * included. '/' counts two whether or not the writer escapes it, so the
 * bound holds for either flag. */
static unsigned escaped_size(uint8_t c)
{
	switch (c) {
	case '"': case '\\': case '/': case '\b': case '\f': case '\n': case '\r': case '\t':
		return 2;
	default:
		return c < 0x20 ? 6 : 1;
	}
}

uint64_t result_escaped_len(const uint8_t *p, size_t n)
{
	uint64_t total = 0;

	for (size_t i = 0; i < n; i++)
		total += escaped_size(p[i]);
	return total;
}

uint64_t result_base64_len(uint64_t n)
{
	uint64_t groups = n / 3 + (n % 3 != 0);

	return groups > UINT64_MAX / 4 ? UINT64_MAX : groups * 4;
}

uint64_t result_stream_cap(uint64_t cap)
{
	return cap == 0 || cap > RESULT_STREAM_MAX_BYTES ? RESULT_STREAM_MAX_BYTES : cap;
}

static bool is_text(const uint8_t *data, size_t len)
{
	return !memchr(data, 0, len) && utf8_valid(data, len);
}

size_t result_fit(const uint8_t *data, size_t len, uint64_t cap, bool *ret_text,
		  uint64_t *ret_rendered)
{
	uint64_t cost = 0;
	size_t n = 0;

	cap = result_stream_cap(cap);
	*ret_text = is_text(data, len);
	if (!*ret_text) {
		uint64_t fit = cap / 4 * 3;

		n = (uint64_t)len < fit ? len : (size_t)fit;
		*ret_rendered = result_base64_len(n);
		return n;
	}
	for (; n < len && cost + escaped_size(data[n]) <= cap; n++)
		cost += escaped_size(data[n]);
	/* Valid UTF-8 cut inside a character: back to its first byte (the
	 * continuation bytes given back cost one each). */
	while (n < len && n > 0 && (data[n] & 0xc0) == 0x80) {
		n--;
		cost--;
	}
	*ret_rendered = cost;
	return n;
}

/* json-c returns NULL when it cannot allocate, or for a string longer
 * than its int lengths hold: every member goes through put() or push(),
 * which note the failure so that the caller returns an error result
 * instead of a document with holes (issue 9, finding 6). */
static void put(struct json_object *o, const char *key, struct json_object *v, bool *ok)
{
	if (o && v && json_object_object_add(o, key, v) == 0)
		return;
	json_object_put(v);
	*ok = false;
}

static void put_null(struct json_object *o, const char *key, bool *ok)
{
	if (!o || json_object_object_add(o, key, NULL) < 0)
		*ok = false;
}

/* A string, or null when s is NULL. */
static void put_str(struct json_object *o, const char *key, const char *s, bool *ok)
{
	if (s)
		put(o, key, json_object_new_string(s), ok);
	else
		put_null(o, key, ok);
}

static void push(struct json_object *a, struct json_object *v, bool *ok)
{
	if (a && v && json_object_array_add(a, v) == 0)
		return;
	json_object_put(v);
	*ok = false;
}

static struct json_object *jstring_len(const char *s, size_t len)
{
	return len > INT_MAX ? NULL : json_object_new_string_len(s, (int)len);
}

static struct json_object *jbase64(const uint8_t *data, size_t len)
{
	char *b64 = base64_encode_alloc(data, len);
	struct json_object *v = b64 ? jstring_len(b64, strlen(b64)) : NULL;

	free(b64);
	return v;
}

/* A stream as result_fit rendered it: text or base64 as it decided. */
static struct json_object *jstream(const uint8_t *data, size_t len, bool text, uint64_t bytes,
				   bool truncated, bool *ok)
{
	struct json_object *o = json_object_new_object();

	data = data ? data : (const uint8_t *)"";
	if (text)
		put(o, "text", jstring_len((const char *)data, len), ok);
	else
		put(o, "base64", jbase64(data, len), ok);
	put(o, "truncated", json_object_new_boolean(truncated), ok);
	put(o, "bytes", json_object_new_int64((int64_t)bytes), ok);
	return o;
}

/* jail.landlock_rights: the names of the LANDLOCK_RIGHT_* groups set. */
static struct json_object *landlock_rights_json(unsigned rights, bool *ok)
{
	static const char *const names[] = { "fs", "fs_refer", "fs_truncate", "net_tcp",
					     "fs_ioctl_dev", "scope_abstract_unix",
					     "scope_signal" };
	struct json_object *a = json_object_new_array();

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (rights & (1u << i))
			push(a, json_object_new_string(names[i]), ok);
	return a;
}

static struct json_object *jjail(const struct jail_report *jr, const struct plan *plan, bool *ok)
{
	static const char *const ns[] = { "user", "mount", "pid", "ipc", "uts", "cgroup" };
	static const char *const nets[] = { [NET_NONE] = "none", [NET_LOOPBACK] = "loopback",
					    [NET_HOST] = "host", [NET_PROXY] = "proxy" };
	struct json_object *o = json_object_new_object(), *a = json_object_new_array(), *t;
	enum net_mode net = plan ? plan->network : jr && jr->have_modes ? jr->network : NET_NONE;
	enum seccomp_mode sc = plan ? plan->seccomp : jr && jr->have_modes ? jr->seccomp
									  : SECCOMP_DENY_LIST;

	put_str(o, "policy", jr ? jr->policy : NULL, ok);
	put_str(o, "policy_file", jr ? jr->policy_file : NULL, ok);
	put_str(o, "digest", jr ? jr->digest : NULL, ok);
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		push(a, json_object_new_string(ns[i]), ok);
	if (net != NET_HOST)
		push(a, json_object_new_string("net"), ok);
	put(o, "namespaces", a, ok);
	put(o, "network", json_object_new_string(nets[net]), ok);
	put(o, "landlock_abi", json_object_new_int(jr ? jr->landlock_abi : 0), ok);
	put(o, "landlock_rights", landlock_rights_json(jr ? jr->landlock_rights : 0, ok), ok);
	put(o, "seccomp", json_object_new_string(sc == SECCOMP_ALLOW_LIST ? "allow-list"
									  : "deny-list"), ok);
	put(o, "cgroup", json_object_new_string(jr && jr->cgroup ? jr->cgroup : "unavailable"), ok);
	/* Every policy's filter refuses it: filter.c add_memfd_rules. */
	put(o, "memfd_exec", json_object_new_string("refused"), ok);
	if (jr && (t = timings_json(&jr->timings)))
		put(o, "timings", t, ok);
	if (plan && plan->masks_report.walked)
		put(o, "masks", result_masks_json(&plan->masks_report), ok);
	return o;
}

static struct json_object *jerror(enum hutch_err code, const char *pointer, const char *reason,
				  const char *detail, bool *ok)
{
	struct json_object *o = json_object_new_object();
	char msg[1536];

	snprintf(msg, sizeof(msg), "%s%s%s%s%s", hutch_err_message(code), reason ? ": " : "",
		 reason ? reason : "", detail ? ": " : "", detail ? detail : "");
	/* A reason may name a file the caller gave (a policy's path, any
	 * bytes) and a long one is cut: JSON text needs whole UTF-8. */
	text_shown(msg, sizeof(msg), msg);
	put(o, "code", json_object_new_string(hutch_err_name(code)), ok);
	put(o, "message", json_object_new_string(msg), ok);
	if (pointer)
		put(o, "pointer", json_object_new_string(pointer), ok);
	return o;
}

static struct json_object *base_doc(bool *ok)
{
	struct json_object *d = json_object_new_object();

	put(d, "version", json_object_new_int(1), ok);
	return d;
}

static struct json_object *checked(struct json_object *d, bool ok)
{
	if (ok)
		return d;
	json_object_put(d);
	return NULL;
}

struct json_object *result_for_error(enum hutch_err code, const char *pointer,
				     const char *reason, const char *detail,
				     const struct jail_report *jr)
{
	bool ok = true;
	struct json_object *d = base_doc(&ok);

	put(d, "status", json_object_new_string("failed"), &ok);
	put_null(d, "exit_code", &ok);
	put_null(d, "signal", &ok);
	put(d, "error", jerror(code, pointer, reason, detail, &ok), &ok);
	put(d, "stdout", jstream(NULL, 0, true, 0, false, &ok), &ok);
	put(d, "stderr", jstream(NULL, 0, true, 0, false, &ok), &ok);
	put(d, "files", json_object_new_array(), &ok);
	put_null(d, "usage", &ok);
	if (jr)
		put(d, "jail", jjail(jr, NULL, &ok), &ok);
	else
		put_null(d, "jail", &ok);
	return checked(d, ok);
}

struct json_object *result_for_verror(const struct verror *v, const struct jail_report *jr)
{
	char words[VERROR_ACCEPTED_MAX + VERROR_ALLOWED_BY_MAX + 512];
	size_t n;
	struct json_object *d, *err;

	/* verror_message's words with the file between the detail and the
	 * accepted values: "unknown field: in /etc/hutch/policy.d/x.json". */
	n = (size_t)snprintf(words, sizeof(words), "%s%s%s%s%s%s%s%s", v->reason,
			     v->given[0] ? " (given " : "", v->given, v->given[0] ? ")" : "",
			     v->detail[0] || v->file ? ": " : "", v->detail,
			     v->detail[0] && v->file ? ", " : "", v->file ? "in " : "");
	if (v->file && n < sizeof(words))
		n += (size_t)snprintf(words + n, sizeof(words) - n, "%s", v->file);
	if (n < sizeof(words))
		verror_accepted_words(v, words + n, sizeof(words) - n);
	d = result_for_error(v->code, v->pointer[0] ? v->pointer : NULL, words, NULL, jr);
	if (d && json_object_object_get_ex(d, "error", &err) && json_add_accepted(err, v) < 0) {
		json_object_put(d);
		return NULL;
	}
	return d;
}

enum hutch_err result_check_frame(const struct capture *out, size_t *ret_off, size_t *ret_len)
{
	size_t len;

	/* Any length is a header here: the supervisor held the frame to the
	 * stdout cap while it ran. */
	if (frame_parse_header(out->buf, out->len, UINT32_MAX, &len) < 0)
		return HUTCH_ERR_PROTOCOL_ERROR;
	if (out->bytes < FRAME_HEADER_BYTES + (uint64_t)len)
		return HUTCH_ERR_PROTOCOL_ERROR; /* short frame */
	if (out->bytes > FRAME_HEADER_BYTES + (uint64_t)len)
		return HUTCH_ERR_OUTPUT_OVERFLOW; /* bytes after the frame */
	if (out->len < FRAME_HEADER_BYTES + len)
		return HUTCH_ERR_PROTOCOL_ERROR; /* written, but not all kept */
	*ret_off = FRAME_HEADER_BYTES;
	*ret_len = len;
	return HUTCH_ERR_NONE;
}

static const char *arch_name(uint32_t arch)
{
	return arch == SCMP_ARCH_X86_64 ? "x86_64" : arch == SCMP_ARCH_X32 ? "x32"
		: arch == SCMP_ARCH_X86 ? "x86" : "other";
}

static struct json_object *jdenial(const struct denial *dn, bool *ok)
{
	struct json_object *e = json_object_new_object();
	uint32_t arch = dn->arch;
	char *name;

	/* x32 calls arrive as x86-64 with the x32 bit in the number. */
	if (arch == SCMP_ARCH_X86_64 && (dn->nr & 0x40000000))
		arch = SCMP_ARCH_X32;
	name = seccomp_syscall_resolve_num_arch(arch, dn->nr);
	put_str(e, "syscall", name, ok);
	put(e, "number", json_object_new_int(dn->nr), ok);
	put(e, "arch", json_object_new_string(arch_name(arch)), ok);
	put(e, "count", json_object_new_int64((int64_t)dn->count), ok);
	free(name);
	return e;
}

/* Calls the seccomp filter refused, by name, with counts; null when no
 * listener was ours (the kernel lacks user notification). */
static void put_denials(struct json_object *d, const struct outcome *o, bool *ok)
{
	struct json_object *a;

	if (!o->denials_attributed) {
		put_null(d, "denials", ok);
		return;
	}
	a = json_object_new_array();
	for (size_t i = 0; i < o->n_denials; i++)
		push(a, jdenial(&o->denials[i], ok), ok);
	if (o->denials_other) {
		struct json_object *e = json_object_new_object();

		put(e, "syscall", json_object_new_string("(other)"), ok);
		put(e, "count", json_object_new_int64((int64_t)o->denials_other), ok);
		push(a, e, ok);
	}
	put(d, "denials", a, ok);
}

static const char *const explain_kinds[] = {
	[EXPLAIN_MISSING] = "missing", [EXPLAIN_NOEXEC] = "noexec",
	[EXPLAIN_READ_ONLY] = "read_only", [EXPLAIN_DENIED] = "denied",
};

static struct json_object *jexplain_event(const struct explain_event *ev, bool *ok)
{
	struct json_object *e = json_object_new_object();

	put(e, "kind", json_object_new_string(explain_kinds[ev->kind]), ok);
	put(e, "call", json_object_new_string(ev->call), ok);
	if (ev->kind != EXPLAIN_DENIED)
		put(e, "path", json_object_new_string(ev->path), ok);
	if (ev->path_cut)
		put(e, "path_truncated", json_object_new_boolean(true), ok);
	put(e, "count", json_object_new_int64((int64_t)ev->count), ok);
	put(e, "why", json_object_new_string(ev->why), ok);
	/* Our own JSON text (explain-grant.c), parsed back into the tree. */
	if (ev->grant[0])
		put(e, "grant", json_tokener_parse(ev->grant), ok);
	else
		put_null(e, "grant", ok);
	return e;
}

/* --explain: what the jail withheld; absent without it. */
static void put_explain(struct json_object *d, const struct outcome *o, bool *ok)
{
	const struct explain_log *x = &o->explain;
	struct json_object *e, *a;

	if (!x->requested)
		return;
	e = json_object_new_object();
	a = json_object_new_array();
	put(e, "attached", json_object_new_boolean(x->attached), ok);
	for (size_t i = 0; x->events && i < x->n; i++)
		push(a, jexplain_event(&x->events[i], ok), ok);
	put(e, "events", a, ok);
	put(e, "dropped", json_object_new_int64((int64_t)x->dropped), ok);
	put(e, "calls_seen", json_object_new_int64((int64_t)x->seen), ok);
	put(e, "calls_unresolved", json_object_new_int64((int64_t)x->unread), ok);
	put(d, "explain", e, ok);
}

static void put_status(struct json_object *d, const struct outcome *o, bool *ok)
{
	put(d, "status", json_object_new_string(o->status == OUTCOME_EXITED ? "exited"
						: o->status == OUTCOME_SIGNALED ? "signaled"
										: "failed"), ok);
	if (o->status == OUTCOME_EXITED)
		put(d, "exit_code", json_object_new_int(o->exit_code), ok);
	else
		put_null(d, "exit_code", ok);
	if (o->status == OUTCOME_SIGNALED) {
		struct json_object *s = json_object_new_object();
		const char *abbrev = sigabbrev_np(o->signal);
		char name[32];

		snprintf(name, sizeof(name), "SIG%s", abbrev ? abbrev : "UNKNOWN");
		put(s, "number", json_object_new_int(o->signal), ok);
		put(s, "name", json_object_new_string(name), ok);
		put(d, "signal", s, ok);
	} else {
		put_null(d, "signal", ok);
	}
}

static void put_error(struct json_object *d, const struct outcome *o, bool *ok)
{
	struct json_object *e;

	if (o->status != OUTCOME_FAILED) {
		put_null(d, "error", ok);
		return;
	}
	e = jerror(o->err, NULL, o->limit, o->detail[0] ? o->detail : NULL, ok);
	if (o->limit)
		put(e, "limit", json_object_new_string(o->limit), ok);
	if (o->have_record) {
		put(e, "stage", json_object_new_string(status_stage_name(o->record.stage)), ok);
		put_str(e, "errno", o->record.err ? strerrorname_np(o->record.err) : NULL, ok);
	}
	put(d, "error", e, ok);
}

static void put_files(struct json_object *d, const struct collected *files, bool keep, bool *ok)
{
	struct json_object *fa = json_object_new_array();

	for (size_t i = 0; files && i < files->n; i++) {
		const struct collected_file *f = &files->files[i];
		struct json_object *fo = json_object_new_object();

		put(fo, "name", json_object_new_string(f->name), ok);
		if (f->error || !keep) {
			put(fo, "error", json_object_new_string(f->error ? f->error : "discarded"), ok);
		} else {
			put(fo, "base64", jbase64(f->data ? f->data : (const uint8_t *)"", f->len), ok);
			put(fo, "bytes", json_object_new_int64((int64_t)f->len), ok);
		}
		push(fa, fo, ok);
	}
	put(d, "files", fa, ok);
}

static void put_usage(struct json_object *d, const struct outcome *o, bool *ok)
{
	struct json_object *u = json_object_new_object();

	put(u, "wall_ms", json_object_new_int64((int64_t)o->wall_ms), ok);
	put(u, "cpu_user_ms", json_object_new_int64((int64_t)o->cpu_user_ms), ok);
	put(u, "cpu_sys_ms", json_object_new_int64((int64_t)o->cpu_sys_ms), ok);
	put(u, "max_rss_kb", json_object_new_int64((int64_t)o->max_rss_kb), ok);
	if (o->cgroup_applied) {
		put(u, "oom_killed", json_object_new_boolean(o->oom_kills > 0), ok);
		put(u, "oom_kills", json_object_new_int64((int64_t)o->oom_kills), ok);
		if (o->memory_limit_bytes)
			put(u, "memory_limit_bytes",
			    json_object_new_int64((int64_t)o->memory_limit_bytes), ok);
		if (o->memory_peak_bytes)
			put(u, "memory_peak_bytes",
			    json_object_new_int64((int64_t)o->memory_peak_bytes), ok);
		put(u, "forks_refused", json_object_new_int64((int64_t)o->forks_refused), ok);
	}
	if (o->net.proxy)
		put(u, "network_bytes", json_object_new_int64((int64_t)o->net.bytes), ok);
	put(d, "usage", u, ok);
}

/* A stream as classify left it; a withheld one is empty and truncated. */
static void put_stream(struct json_object *d, const char *key, const struct capture *c,
		       const struct shown *sh, bool withheld, bool *ok)
{
	if (withheld)
		put(d, key, jstream(NULL, 0, true, c->bytes, true, ok), ok);
	else
		put(d, key, jstream(c->buf ? c->buf + sh->off : NULL, sh->len, !sh->base64,
				    c->bytes, sh->truncated, ok), ok);
}

struct json_object *result_for_outcome(const struct plan *plan, const struct outcome *o,
				       const struct collected *files, const struct jail_report *jr)
{
	struct jail_report j = jr ? *jr : (struct jail_report){ 0 };
	bool ok = true;
	struct json_object *d;

	d = base_doc(&ok);
	put_status(d, o, &ok);
	put_error(d, o, &ok);
	if (o->memory_limit) {
		put(d, "limit", json_object_new_string("memory"), &ok);
		put(d, "limit_detail", json_object_new_string(o->memory_detail), &ok);
	}
	if (o->partial)
		put(d, "partial", json_object_new_boolean(true), &ok);
	put_stream(d, "stdout", &o->out, &o->show_out, o->output_withheld, &ok);
	put_stream(d, "stderr", &o->errc, &o->show_err, o->output_withheld, &ok);
	put_files(d, files, !o->output_withheld, &ok);
	if (o->changes.present) {
		put(d, "changes",
		    change_set_json(&o->changes, o->changes.exported && !o->output_withheld, false),
		    &ok);
		put(d, "changes_omitted", json_object_new_int64((int64_t)o->changes.omitted), &ok);
	}
	put_denials(d, o, &ok);
	put_explain(d, o, &ok);
	put_usage(d, o, &ok);
	if (o->net.proxy)
		put(d, "network", result_network_json(&o->net), &ok);
	if (o->cgroup_applied)
		j.cgroup = "applied";
	put(d, "jail", jjail(&j, plan, &ok), &ok);
	if (ok)
		return d;
	json_object_put(d);
	return result_for_error(HUTCH_ERR_INTERNAL, NULL, NULL, "cannot render the result", jr);
}

int result_exit_status(struct json_object *doc)
{
	struct json_object *st, *v, *err, *code;
	const char *s;

	if (!json_object_object_get_ex(doc, "status", &st))
		return HUTCH_EXIT_FAILURE;
	s = json_object_get_string(st);
	if (strcmp(s, "exited") == 0 && json_object_object_get_ex(doc, "exit_code", &v))
		return json_object_get_int(v);
	if (strcmp(s, "signaled") == 0 && json_object_object_get_ex(doc, "signal", &v) &&
	    json_object_object_get_ex(v, "number", &v))
		return 128 + json_object_get_int(v);
	if (!json_object_object_get_ex(doc, "error", &err) ||
	    !json_object_object_get_ex(err, "code", &code))
		return HUTCH_EXIT_FAILURE;
	s = json_object_get_string(code);
	for (int i = 0; i < HUTCH_ERR_MAX; i++)
		if (strcmp(hutch_err_name((enum hutch_err)i), s) == 0) {
			if (i == HUTCH_ERR_EXEC_FAILED && json_object_object_get_ex(err, "errno", &v) &&
			    v && strcmp(json_object_get_string(v), "ENOENT") == 0)
				return HUTCH_EXIT_NOT_FOUND;
			return hutch_err_exit_status((enum hutch_err)i);
		}
	return HUTCH_EXIT_FAILURE;
}

/* The cgroup's OOM kill, in its own line: the command's status alone
 * (SIGKILL) does not say the memory limit did it. */
static void print_oom(struct json_object *doc)
{
	struct json_object *u, *v;
	int64_t kills, limit = 0;

	if (!json_object_object_get_ex(doc, "usage", &u) || !u ||
	    !json_object_object_get_ex(u, "oom_kills", &v) || (kills = json_object_get_int64(v)) <= 0)
		return;
	if (json_object_object_get_ex(u, "memory_limit_bytes", &v))
		limit = json_object_get_int64(v);
	fprintf(stderr, "hutch: oom_killed: the jail reached its memory limit (memory_bytes %lld, "
		"cgroup memory.max); the kernel killed %lld process%s\n", (long long)limit,
		(long long)kills, kills == 1 ? "" : "es");
}

void result_print_error(struct json_object *doc)
{
	struct json_object *err, *code, *msg, *ptr;
	char shown[PATH_MAX + 1024];

	print_oom(doc);
	result_print_limits(doc);

	if (!json_object_object_get_ex(doc, "error", &err) || !err ||
	    !json_object_object_get_ex(err, "code", &code) ||
	    !json_object_object_get_ex(err, "message", &msg))
		return;
	/* One line of plain text, whatever a message composed at run time
	 * repeats (a path the caller named). */
	text_shown(shown, sizeof(shown), json_object_get_string(msg));
	fprintf(stderr, "hutch: %s: %s", json_object_get_string(code), shown);
	if (json_object_object_get_ex(err, "pointer", &ptr) && ptr) {
		text_shown(shown, sizeof(shown), json_object_get_string(ptr));
		fprintf(stderr, " (at %s)", shown);
	}
	fputc('\n', stderr);
}

static const char *member_string(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) && v ? json_object_get_string(v) : "";
}

void result_print_explain(struct json_object *doc)
{
	struct json_object *x, *events, *v;
	size_t n;

	if (!json_object_object_get_ex(doc, "explain", &x) || !x ||
	    !json_object_object_get_ex(x, "events", &events))
		return;
	n = json_object_array_length(events);
	for (size_t i = 0; i < n; i++) {
		struct json_object *ev = json_object_array_get_idx(events, i), *grant = NULL;
		const char *kind = member_string(ev, "kind");
		bool denied = strcmp(kind, "denied") == 0;

		json_object_object_get_ex(ev, "grant", &grant);
		fprintf(stderr, "hutch: explain: %s %s (%s, %s time%s): %s", kind,
			denied ? member_string(ev, "call") : member_string(ev, "path"),
			denied ? "seccomp" : member_string(ev, "call"), member_string(ev, "count"),
			strcmp(member_string(ev, "count"), "1") == 0 ? "" : "s", member_string(ev, "why"));
		if (grant)
			fprintf(stderr, "; grant: %s",
				json_object_to_json_string_ext(grant, JSON_C_TO_STRING_PLAIN |
									JSON_C_TO_STRING_NOSLASHESCAPE));
		fputc('\n', stderr);
	}
	json_object_object_get_ex(x, "attached", &v);
	if (!v || !json_object_get_boolean(v))
		fputs("hutch: explain: the kernel gave no listener (seccomp user notification): "
		      "paths were not watched, only denials are reported\n", stderr);
	fprintf(stderr, "hutch: explain: %zu withheld, %s more dropped, %s calls watched\n", n,
		member_string(x, "dropped"), member_string(x, "calls_seen"));
}
