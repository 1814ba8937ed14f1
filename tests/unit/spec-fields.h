/* spec-fields.h: one field of a spec changed, for the codec's rule tests
 * (test-spec-rules.c): applied to the realistic spec's struct before
 * encoding, or forged into the wire bytes of the unchanged one
 * (spec-fields.c). Helpers assert with CUnit; include after cunit-main.h. */
#ifndef HUTCH_SPEC_FIELDS_H
#define HUTCH_SPEC_FIELDS_H

#include <stddef.h>
#include <stdint.h>

#include "spec.h"
#include "spec-fixtures.h"

/* Long strings for the length limits; only ever used with explicit lengths. */
#define LONG_BYTES (HUTCH_SPEC_MAX_ARG_BYTES + 16)
extern char long_a[LONG_BYTES];		/* "aaaa…" */
extern char long_path[LONG_BYTES];	/* "/aaa…" */
extern char long_env[LONG_BYTES];	/* "A=aa…" */
extern const char zeros[(HUTCH_SPEC_MAX_FILTER_INSNS + 1) * 8];

/* Fill the long strings: before the first case that uses them. */
void long_strings_init(void);

/* ---- one field changed: applied to the struct, or forged on the wire ---- */

enum field {
	F_FLAGS,
	F_HOSTNAME,
	F_CWD,
	F_M_KIND,
	F_M_PAD,
	F_M_FLAGS,
	F_M_MODE,
	F_M_SIZE,
	F_M_INODES,
	F_M_SOURCE,
	F_M_TARGET,
	F_M_DATA,
	F_ARGV,
	F_ENV,
	F_FILTER,
	F_UCAP,
};

struct field_case {
	const char *name;
	enum field field;
	unsigned idx;		/* mount, argv, env or user cap index */
	uint64_t num;		/* numeric fields */
	const char *str;	/* str and blob fields: the bytes, NULs allowed; */
	size_t len;		/* NULL str keeps the bytes (with term) */
	uint8_t term;		/* the byte after a str on the wire; 0 is right */
	int wire_only;		/* the struct cannot say it: a NUL, pad, term */
};

#define BYTES(s) .str = (s), .len = sizeof(s) - 1
#define WIRE_ONLY .wire_only = 1

/* Point the struct field at the case's value; strings are copied into
 * *scratch (NUL-terminated), freed by the caller. */
void apply_struct(struct fixture *f, const struct field_case *c, char **scratch);
/* Forge the case's value into w, keeping total_len honest. */
void apply_wire(struct wire *w, const struct field_case *c);

#endif
