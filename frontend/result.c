/* result.c: the result document (see result.h). Output is text when it is
 * valid UTF-8, base64 otherwise; messages are fixed per code plus stage,
 * errno or field names, never what the command printed or was given.
 * Frontend only. */
#include "config.h"

#include <errno.h>
#include <nettle/base64.h>
#include <seccomp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "errors.h"
#include "request.h"
#include "result.h"
#include "status.h"

bool utf8_valid(const uint8_t *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		uint8_t c = s[i];
		size_t k;
		uint32_t cp;

		if (c < 0x80) {
			i++;
			continue;
		}
		if ((c & 0xe0) == 0xc0)
			k = 1, cp = c & 0x1f;
		else if ((c & 0xf0) == 0xe0)
			k = 2, cp = c & 0x0f;
		else if ((c & 0xf8) == 0xf0)
			k = 3, cp = c & 0x07;
		else
			return false;
		for (size_t j = 1; j <= k; j++) {
			if (i + j >= n || (s[i + j] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + j] & 0x3f);
		}
		/* overlong forms, surrogates, beyond U+10FFFF */
		if ((k == 1 && cp < 0x80) || (k == 2 && cp < 0x800) || (k == 3 && cp < 0x10000) ||
		    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
			return false;
		i += k + 1;
	}
	return true;
}

static struct json_object *jbase64(const uint8_t *data, size_t len)
{
	char *b64 = base64_encode_alloc(data, len);
	struct json_object *v = b64 ? json_object_new_string(b64) : NULL;

	free(b64);
	return v;
}

static struct json_object *jbytes_value(const uint8_t *data, size_t len, const char **ret_key)
{
	if (utf8_valid(data, len) && !memchr(data, 0, len)) {
		*ret_key = "text";
		return json_object_new_string_len((const char *)data, (int)len);
	}
	*ret_key = "base64";
	return jbase64(data, len);
}

static struct json_object *jstream(const uint8_t *data, size_t len, uint64_t bytes,
				   bool truncated)
{
	struct json_object *o = json_object_new_object();
	const char *key;
	struct json_object *v = jbytes_value(data ? data : (const uint8_t *)"", len, &key);

	json_object_object_add(o, key, v);
	json_object_object_add(o, "truncated", json_object_new_boolean(truncated));
	json_object_object_add(o, "bytes", json_object_new_int64((int64_t)bytes));
	return o;
}

static struct json_object *jjail(const struct jail_report *jr, const struct plan *plan)
{
	static const char *const ns[] = { "user", "mount", "pid", "ipc", "uts", "cgroup" };
	static const char *const nets[] = { [NET_NONE] = "none", [NET_LOOPBACK] = "loopback",
					    [NET_HOST] = "host" };
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();
	enum net_mode net = plan ? plan->network : jr && jr->have_modes ? jr->network : NET_NONE;
	enum seccomp_mode sc = plan ? plan->seccomp : jr && jr->have_modes ? jr->seccomp
									  : SECCOMP_DENY_LIST;

	json_object_object_add(o, "policy", jr && jr->policy ? json_object_new_string(jr->policy) : NULL);
	json_object_object_add(o, "digest", jr && jr->digest ? json_object_new_string(jr->digest) : NULL);
	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		json_object_array_add(a, json_object_new_string(ns[i]));
	if (net != NET_HOST)
		json_object_array_add(a, json_object_new_string("net"));
	json_object_object_add(o, "namespaces", a);
	json_object_object_add(o, "network", json_object_new_string(nets[net]));
	json_object_object_add(o, "landlock_abi", json_object_new_int(jr ? jr->landlock_abi : 0));
	json_object_object_add(o, "seccomp", json_object_new_string(sc == SECCOMP_ALLOW_LIST
									? "allow-list"
									: "deny-list"));
	json_object_object_add(o, "cgroup",
			       json_object_new_string(jr && jr->cgroup ? jr->cgroup : "unavailable"));
	/* Every policy's filter refuses it: filter.c add_memfd_rules. */
	json_object_object_add(o, "memfd_exec", json_object_new_string("refused"));
	return o;
}

static struct json_object *jerror(enum hutch_err code, const char *pointer, const char *reason,
				  const char *detail)
{
	struct json_object *o = json_object_new_object();
	char msg[512];

	snprintf(msg, sizeof(msg), "%s%s%s%s%s", hutch_err_message(code), reason ? ": " : "",
		 reason ? reason : "", detail ? ": " : "", detail ? detail : "");
	json_object_object_add(o, "code", json_object_new_string(hutch_err_name(code)));
	json_object_object_add(o, "message", json_object_new_string(msg));
	if (pointer)
		json_object_object_add(o, "pointer", json_object_new_string(pointer));
	return o;
}

static struct json_object *base_doc(void)
{
	struct json_object *d = json_object_new_object();

	json_object_object_add(d, "version", json_object_new_int(1));
	return d;
}

struct json_object *result_for_error(enum hutch_err code, const char *pointer,
				     const char *reason, const char *detail,
				     const struct jail_report *jr)
{
	struct json_object *d = base_doc();

	json_object_object_add(d, "status", json_object_new_string("failed"));
	json_object_object_add(d, "exit_code", NULL);
	json_object_object_add(d, "signal", NULL);
	json_object_object_add(d, "error", jerror(code, pointer, reason, detail));
	json_object_object_add(d, "stdout", jstream(NULL, 0, 0, false));
	json_object_object_add(d, "stderr", jstream(NULL, 0, 0, false));
	json_object_object_add(d, "files", json_object_new_array());
	json_object_object_add(d, "usage", NULL);
	json_object_object_add(d, "jail", jr ? jjail(jr, NULL) : NULL);
	return d;
}

enum hutch_err result_check_frame(const struct capture *out, size_t *ret_off, size_t *ret_len)
{
	uint64_t len;

	if (out->bytes < 4 || out->len < 4)
		return HUTCH_ERR_PROTOCOL_ERROR;
	len = (uint64_t)out->buf[0] << 24 | (uint64_t)out->buf[1] << 16 |
	      (uint64_t)out->buf[2] << 8 | out->buf[3];
	if (out->bytes < 4 + len)
		return HUTCH_ERR_PROTOCOL_ERROR; /* short frame */
	if (out->bytes > 4 + len)
		return HUTCH_ERR_OUTPUT_OVERFLOW; /* bytes after the frame */
	*ret_off = 4;
	*ret_len = (size_t)len;
	return HUTCH_ERR_NONE;
}

/* Calls the seccomp filter refused, by name, with counts; null when no
 * listener was ours (the kernel lacks user notification). */
static struct json_object *jdenials(const struct outcome *o)
{
	struct json_object *a;

	if (!o->denials_attributed)
		return NULL;
	a = json_object_new_array();
	for (size_t i = 0; i < o->n_denials; i++) {
		const struct denial *dn = &o->denials[i];
		uint32_t arch = dn->arch;
		int nr = dn->nr;
		struct json_object *e = json_object_new_object();
		char *name;

		/* x32 calls arrive as x86-64 with the x32 bit in the number. */
		if (arch == SCMP_ARCH_X86_64 && (nr & 0x40000000)) {
			arch = SCMP_ARCH_X32;
		}
		name = seccomp_syscall_resolve_num_arch(arch, nr);
		json_object_object_add(e, "syscall", name ? json_object_new_string(name) : NULL);
		json_object_object_add(e, "number", json_object_new_int(dn->nr));
		json_object_object_add(e, "arch", json_object_new_string(
			arch == SCMP_ARCH_X86_64 ? "x86_64" : arch == SCMP_ARCH_X32 ? "x32"
			: arch == SCMP_ARCH_X86 ? "x86" : "other"));
		json_object_object_add(e, "count", json_object_new_int64((int64_t)dn->count));
		json_object_array_add(a, e);
		free(name);
	}
	if (o->denials_other) {
		struct json_object *e = json_object_new_object();

		json_object_object_add(e, "syscall", json_object_new_string("(other)"));
		json_object_object_add(e, "count", json_object_new_int64((int64_t)o->denials_other));
		json_object_array_add(a, e);
	}
	return a;
}

/* What to tell about a refused jail: stage, item, errno; never content. */
static void record_detail(const struct outcome *o, char *buf, size_t cap)
{
	const char *en = o->record.err ? strerrorname_np(o->record.err) : NULL;

	if (o->record.code == HUTCH_HELPER_CRASHED) {
		snprintf(buf, cap, "jail init died (signal %d)", o->record.err);
		return;
	}
	snprintf(buf, cap, "stage %s, item %u, %s", status_stage_name(o->record.stage),
		 o->record.item, en ? en : "no errno");
}

struct json_object *result_for_outcome(const struct plan *plan, struct outcome *o,
				       const struct collected *files, const struct jail_report *jr)
{
	struct json_object *d = base_doc(), *fa = json_object_new_array(), *u;
	const uint8_t *out = o->out.buf;
	size_t out_len = o->out.len;
	bool out_trunc = o->out.truncated, err_trunc = o->errc.truncated;
	bool keep = true;
	char detail[160] = "";

	/* Frame grammar: exactly one frame, then exit 0. */
	if (plan->stdout_mode == STDOUT_FRAME && o->status != OUTCOME_FAILED) {
		size_t off = 0, len = 0;

		if (o->status != OUTCOME_EXITED || o->exit_code != 0) {
			o->err = HUTCH_ERR_CRASH;
			keep = false;
		} else if ((o->err = result_check_frame(&o->out, &off, &len)) != HUTCH_ERR_NONE) {
			keep = false;
		} else {
			out = o->out.buf + off;
			out_len = len;
		}
		if (o->err != HUTCH_ERR_NONE)
			o->status = OUTCOME_FAILED;
	}
	if (o->status == OUTCOME_FAILED &&
	    (o->err == HUTCH_ERR_TIMEOUT || o->err == HUTCH_ERR_OUTPUT_OVERFLOW ||
	     o->err == HUTCH_ERR_FRAME_OVERSIZED || o->err == HUTCH_ERR_CANCELLED) &&
	    !plan->partial_output)
		keep = false; /* fail closed: partial output is discarded */
	if (o->status == OUTCOME_FAILED && o->have_record)
		keep = false;
	if (!keep) {
		out_len = 0;
		out_trunc = err_trunc = true;
	}

	json_object_object_add(d, "status",
			       json_object_new_string(o->status == OUTCOME_EXITED ? "exited"
						      : o->status == OUTCOME_SIGNALED ? "signaled"
										    : "failed"));
	json_object_object_add(d, "exit_code",
			       o->status == OUTCOME_EXITED ? json_object_new_int(o->exit_code) : NULL);
	if (o->status == OUTCOME_SIGNALED) {
		struct json_object *s = json_object_new_object();
		const char *abbrev = sigabbrev_np(o->signal);
		char name[32];

		snprintf(name, sizeof(name), "SIG%s", abbrev ? abbrev : "UNKNOWN");
		json_object_object_add(s, "number", json_object_new_int(o->signal));
		json_object_object_add(s, "name", json_object_new_string(name));
		json_object_object_add(d, "signal", s);
	} else {
		json_object_object_add(d, "signal", NULL);
	}
	if (o->status == OUTCOME_FAILED) {
		struct json_object *e;

		if (o->have_record)
			record_detail(o, detail, sizeof(detail));
		e = jerror(o->err, NULL, o->limit ? o->limit : NULL, detail[0] ? detail : NULL);
		if (o->limit)
			json_object_object_add(e, "limit", json_object_new_string(o->limit));
		if (o->have_record) {
			const char *en = o->record.err ? strerrorname_np(o->record.err) : NULL;

			json_object_object_add(e, "stage", json_object_new_string(status_stage_name(o->record.stage)));
			json_object_object_add(e, "errno", en ? json_object_new_string(en) : NULL);
		}
		json_object_object_add(d, "error", e);
	} else {
		json_object_object_add(d, "error", NULL);
	}
	json_object_object_add(d, "stdout", jstream(keep ? out : NULL, keep ? out_len : 0,
						    o->out.bytes, out_trunc));
	json_object_object_add(d, "stderr", jstream(keep ? o->errc.buf : NULL, keep ? o->errc.len : 0,
						    o->errc.bytes, err_trunc));
	for (size_t i = 0; files && i < files->n; i++) {
		const struct collected_file *f = &files->files[i];
		struct json_object *fo = json_object_new_object();

		json_object_object_add(fo, "name", json_object_new_string(f->name));
		if (f->error || !keep) {
			json_object_object_add(fo, "error", json_object_new_string(f->error ? f->error : "discarded"));
		} else {
			json_object_object_add(fo, "base64", jbase64(f->data ? f->data : (const uint8_t *)"", f->len));
			json_object_object_add(fo, "bytes", json_object_new_int64((int64_t)f->len));
		}
		json_object_array_add(fa, fo);
	}
	json_object_object_add(d, "files", fa);
	json_object_object_add(d, "denials", jdenials(o));
	u = json_object_new_object();
	json_object_object_add(u, "wall_ms", json_object_new_int64((int64_t)o->wall_ms));
	json_object_object_add(u, "cpu_user_ms", json_object_new_int64((int64_t)o->cpu_user_ms));
	json_object_object_add(u, "cpu_sys_ms", json_object_new_int64((int64_t)o->cpu_sys_ms));
	json_object_object_add(u, "max_rss_kb", json_object_new_int64((int64_t)o->max_rss_kb));
	if (o->cgroup_applied)
		json_object_object_add(u, "oom_killed", json_object_new_boolean(o->oom_kills > 0));
	json_object_object_add(d, "usage", u);
	{
		struct jail_report j = jr ? *jr : (struct jail_report){ 0 };

		if (o->cgroup_applied)
			j.cgroup = "applied";
		json_object_object_add(d, "jail", jjail(&j, plan));
	}
	return d;
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

void result_print_error(struct json_object *doc)
{
	struct json_object *err, *code, *msg, *ptr;

	if (!json_object_object_get_ex(doc, "error", &err) || !err ||
	    !json_object_object_get_ex(err, "code", &code) ||
	    !json_object_object_get_ex(err, "message", &msg))
		return;
	fprintf(stderr, "hutch: %s: %s", json_object_get_string(code), json_object_get_string(msg));
	if (json_object_object_get_ex(err, "pointer", &ptr) && ptr)
		fprintf(stderr, " (at %s)", json_object_get_string(ptr));
	fputc('\n', stderr);
}
