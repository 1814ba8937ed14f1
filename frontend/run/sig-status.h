/* sig-status.h: which signals a spawned helper's child must set to
 * SIG_DFL, read from /proc/self/status (spawn.c). Frontend only; pure
 * code, no allocation (called before a vfork). */
#ifndef HUTCH_RUN_SIG_STATUS_H
#define HUTCH_RUN_SIG_STATUS_H

#include <stddef.h>
#include <stdint.h>

/* Every signal but SIGKILL and SIGSTOP, bit s-1 for signal s. */
uint64_t sig_status_all(void);

/* From the text of /proc/self/status (NUL-terminated), the signals
 * ignored or caught (SigIgn | SigCgt), SIGKILL and SIGSTOP never among
 * them; sig_status_all() when either line is missing, malformed or cut
 * short (a read that stopped inside it). */
uint64_t sig_status_reset(const char *status);

#endif
