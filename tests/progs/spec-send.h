/* spec-send.h: what the sources of tests/progs/spec-send share: the spec
 * being built from the command line's words (spec-send-spec.c), and
 * starting the helper and reading its status pipe (spec-send-helper.c).
 * The words themselves are in the header of spec-send.c. */
#ifndef HUTCH_SPEC_SEND_H
#define HUTCH_SPEC_SEND_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "spec.h"

/* ---- the spec (spec-send-spec.c) ---- */

extern struct spec_mount mounts[HUTCH_SPEC_MAX_MOUNTS];
extern struct spec sp;
extern char *envv[HUTCH_SPEC_MAX_ENVC + 1];

/* A usage error: one line on stderr, exit 2. */
_Noreturn void usage(const char *why, const char *word);
/* A number in any base strtoull takes, whole, or a usage error. */
uint64_t number(const char *s);
uint32_t number32(const char *s);

/* Mounts, appended to sp in order; their index is a record's item. */
struct spec_mount *add_mount(uint8_t kind, const char *target);
void add_bind(const char *source, const char *target, uint16_t flags);
void add_tmpfs(const char *target, uint32_t mode, uint64_t bytes, uint64_t inodes,
	       uint16_t flags);
void add_overlay(const char *source, const char *target, uint64_t bytes);
void add_symlink(const char *text, const char *target);
void add_file(const char *target, const char *text, uint32_t mode);
/* What `hutch run` builds under policy/default.json. */
void add_default_layout(void);

/* Comma lists of names, or a number. */
uint16_t parse_mflags(const char *list);
uint32_t parse_flags(const char *list);
/* Hex digits as a fresh buffer of *ret_len bytes. */
uint8_t *parse_hex(const char *hex, size_t *ret_len);
/* The HUTCH_RLIM_ index of as, cpu, fsize, nofile or nproc. */
int rlimit_index(const char *name);

/* How the bytes on the spec pipe differ from sp's encoding. */
struct wire {
	const char *raw_hex;
	int bad_magic;
	int append_garbage;
	long truncate_to;	/* -1: no */
	int fix_length;
	int no_spec;
};

/* The bytes to send, spoiled as w says (caller frees). */
uint8_t *make_wire(const struct wire *w, size_t *ret_len);
/* The mounts with their indexes, on stderr. */
void dump_mounts(void);

/* ---- the helper (spec-send-helper.c) ---- */

extern volatile pid_t helper_pid;
extern volatile sig_atomic_t timed_out;
extern int ignore_sigchld;	/* --ignore-sigchld */
extern int describe;		/* --describe */
extern int keep_fds;		/* --keep-fds */

/* SIGALRM: the --timeout fired; the helper is killed. */
void on_alarm(int sig);
/* The child's half of the start: the helper on fds 0-4 (and 5, the control
 * socket), as frontend/spawn.c starts it. */
_Noreturn void child_exec(const char *helper, pid_t parent, int spec_rd, int status_wr,
			  int stdin_fd, int control_fd);
/* The rest of the result line: what the status pipe held, and when its
 * EOF came. */
void print_status_record(int status_rd);

#endif
