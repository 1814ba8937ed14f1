/* filter.h: the jail's seccomp program, compiled with libseccomp for the
 * native, x32 and 32-bit x86 entry points and exported as BPF for the spec.
 * Frontend only (the helper just loads the result). */
#ifndef HUTCH_FILTER_H
#define HUTCH_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "doc/plan.h"

/* The memfd_create flags the filter's rules test (add_memfd_rules), which
 * run/memfd-notify.c answers too. Linux 6.3 (uapi linux/memfd.h); older
 * headers lack them. */
#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U
#endif
#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif

/* Compile. In deny-list mode names are extra denials; in allow-list mode
 * they are the only syscalls allowed (the built-in denials still win).
 * On an unknown name returns -ENOENT and its index in *ret_bad_index.
 * Writes *ret_bpf (malloc'd) and *ret_len on success. */
int filter_compile(enum seccomp_mode mode, char *const *names, size_t n_names,
		   bool allow_ptrace, uint8_t **ret_bpf, size_t *ret_len, size_t *ret_bad_index);

/* The same, through the per-user cache: a program compiled once for these
 * inputs (and this hutch and libseccomp) is reused, so a run pays one
 * small read instead of libseccomp's compilation. */
int filter_compile_cached(enum seccomp_mode mode, char *const *names, size_t n_names,
			  bool allow_ptrace, uint8_t **ret_bpf, size_t *ret_len,
			  size_t *ret_bad_index);

/* --explain: the open and exec calls the policy's filter allows, which the
 * explained program sends to the listener instead, to be answered
 * "continue" (run/explain.c). A call the policy denies is never among
 * them: its notification stays a denial. Fills ret[] with static names;
 * returns how many. */
#define FILTER_EXPLAIN_MAX 6
size_t filter_explain_calls(enum seccomp_mode mode, char *const *names, size_t n_names,
			    const char *ret[FILTER_EXPLAIN_MAX]);

/* filter_compile_cached for --explain: the same program, but for the
 * calls filter_explain_calls names, USER_NOTIF instead of ALLOW. */
int filter_compile_explained(enum seccomp_mode mode, char *const *names, size_t n_names,
			     bool allow_ptrace, uint8_t **ret_bpf, size_t *ret_len,
			     size_t *ret_bad_index);
/* The same without the cache (tests). */
int filter_compile_explain(enum seccomp_mode mode, char *const *names, size_t n_names,
			   bool allow_ptrace, uint8_t **ret_bpf, size_t *ret_len, size_t *ret_bad_index);

/* Whether this policy's filter lets memfd_create through, made
 * non-executable: then a memfd_create notification is not a denial but the
 * supervisor's to answer (memfd-notify.c). Otherwise memfd_create is
 * denied outright, and counted like any denial. */
bool filter_memfd_sealed(enum seccomp_mode mode, char *const *names, size_t n_names);

/* filter-prefix.c: the hand-written block that runs ahead of libseccomp's
 * program (personality values, socket families, socketcall). */
struct sock_filter;
const struct sock_filter *filter_prefix(size_t *ret_len);

#endif
