/* syscall-names.h: syscall names as policies write them: the built-in
 * denials every policy carries and whether a name exists. Shared by the
 * policy parser (doc/policy.c), the seccomp compiler (jail/filter.c) and
 * the plan's JSON (jail/plan-json.c). Frontend only. */
#ifndef HUTCH_SYSCALL_NAMES_H
#define HUTCH_SYSCALL_NAMES_H

#include <stdbool.h>

/* The syscalls every policy denies (EPERM), by name; NULL-terminated. */
extern const char *const syscall_default_deny[];

/* Whether libseccomp knows a syscall name on the native architecture. */
bool syscall_name_known(const char *name);

#endif
