/* run-tty.h: hutch run --tty, the caller's terminal. Raw while the jail's
 * pty is relayed to it, and put back as it was on every way out: the
 * normal end, an error, a timeout (the run ends normally then), a
 * terminating signal outside the supervisor's loop (which turns them into
 * events), a crash, and exit(). Only SIGKILL leaves it raw. Frontend only. */
#ifndef HUTCH_RUN_TTY_H
#define HUTCH_RUN_TTY_H

/* fd must be a terminal: made raw, its settings kept. 0, or -ENOTTY and
 * the like (then nothing changed). */
int run_tty_enter(int fd);

/* Put the settings back (idempotent; async-signal-safe). */
void run_tty_restore(void);

#endif
