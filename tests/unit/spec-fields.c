/* spec-fields.c: one field of a spec changed (see spec-fields.h), linked
 * into test-spec-rules. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>

#include "spec.h"
#include "spec-fields.h"
#include "spec-fixtures.h"

char long_a[LONG_BYTES];
char long_path[LONG_BYTES];
char long_env[LONG_BYTES];
const char zeros[(HUTCH_SPEC_MAX_FILTER_INSNS + 1) * 8];

void long_strings_init(void)
{
	memset(long_a, 'a', sizeof(long_a));
	memset(long_path, 'a', sizeof(long_path));
	long_path[0] = '/';
	memset(long_env, 'a', sizeof(long_env));
	long_env[0] = 'A';
	long_env[1] = '=';
}

void apply_struct(struct fixture *f, const struct field_case *c, char **scratch)
{
	struct spec_mount *m = &f->mounts[c->idx];
	char *s = NULL;

	CU_ASSERT_FATAL(!c->wire_only);
	if (c->str) {
		s = malloc(c->len + 1);
		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		memcpy(s, c->str, c->len);
		s[c->len] = '\0';
		*scratch = s;
	}
	switch (c->field) {
	case F_FLAGS:
		f->sp.flags = (uint32_t)c->num;
		break;
	case F_HOSTNAME:
		f->sp.hostname = s;
		break;
	case F_CWD:
		f->sp.cwd = s;
		break;
	case F_M_KIND:
		m->kind = (uint8_t)c->num;
		break;
	case F_M_PAD:
		CU_FAIL_FATAL("the pad byte has no struct field");
		break;
	case F_M_FLAGS:
		m->flags = (uint16_t)c->num;
		break;
	case F_M_MODE:
		m->mode = (uint32_t)c->num;
		break;
	case F_M_SIZE:
		m->size_bytes = c->num;
		break;
	case F_M_INODES:
		m->inodes = c->num;
		break;
	case F_M_SOURCE:
		m->source = s;
		break;
	case F_M_TARGET:
		m->target = s;
		break;
	case F_M_DATA:
		m->data = (const uint8_t *)c->str;
		m->data_len = (uint32_t)c->len;
		break;
	case F_ARGV:
		f->argv[c->idx] = s;
		break;
	case F_ENV:
		f->envp[c->idx] = s;
		break;
	case F_FILTER:
		f->sp.filter = (const uint8_t *)c->str;
		f->sp.filter_len = (uint32_t)c->len;
		break;
	case F_UCAP:
		f->sp.user_cap[c->idx] = c->num;
		break;
	}
}

void apply_wire(struct wire *w, const struct field_case *c)
{
	const struct layout *at = &w->at;
	size_t rec = at->m[c->idx].rec;

	switch (c->field) {
	case F_FLAGS:
		wr32(w->buf + at->flags, (uint32_t)c->num);
		break;
	case F_HOSTNAME:
		wire_set_str(w, at->hostname, c->str, c->len, c->term);
		break;
	case F_CWD:
		wire_set_str(w, at->cwd, c->str, c->len, c->term);
		break;
	case F_M_KIND:
		w->buf[rec] = (uint8_t)c->num;
		break;
	case F_M_PAD:
		w->buf[rec + 1] = (uint8_t)c->num;
		break;
	case F_M_FLAGS:
		wr16(w->buf + rec + 2, (uint16_t)c->num);
		break;
	case F_M_MODE:
		wr32(w->buf + rec + 4, (uint32_t)c->num);
		break;
	case F_M_SIZE:
		wr64(w->buf + rec + 8, c->num);
		break;
	case F_M_INODES:
		wr64(w->buf + rec + 16, c->num);
		break;
	case F_M_SOURCE:
		wire_set_str(w, at->m[c->idx].source, c->str, c->len, c->term);
		break;
	case F_M_TARGET:
		wire_set_str(w, at->m[c->idx].target, c->str, c->len, c->term);
		break;
	case F_M_DATA:
		wire_set_blob(w, at->m[c->idx].data, c->str, c->len);
		break;
	case F_ARGV:
		wire_set_str(w, at->argv[c->idx], c->str, c->len, c->term);
		break;
	case F_ENV:
		wire_set_str(w, at->envp[c->idx], c->str, c->len, c->term);
		break;
	case F_FILTER:
		wire_set_blob(w, at->filter, c->str, c->len);
		break;
	case F_UCAP:
		wr64(w->buf + at->user_cap + 8 * c->idx, c->num);
		break;
	}
}
