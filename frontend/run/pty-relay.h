/* pty-relay.h: hutch run --tty, the supervisor's side. The master of the
 * jail's own pty (hutch-exec's tty.c sends it) takes the place of the
 * command's stdin and stdout pipes, so the supervisor's usual forwarding
 * (caller's stdin to the command, its output to our stdout, with every
 * limit and deadline) carries the terminal's bytes; window sizes are
 * copied from the caller's terminal. Frontend only. */
#ifndef HUTCH_PTY_RELAY_H
#define HUTCH_PTY_RELAY_H

/* Put master (taken: ours from here) in place of *stdout_rd and
 * *stdin_wr, closing what they were, and give it size_fd's window size.
 * Returns 0 or -errno (then nothing changed and master is closed). */
int pty_relay_attach(int master, int size_fd, int *stdout_rd, int *stdin_wr);

/* The caller's terminal changed size (SIGWINCH): tell the jail's. */
void pty_relay_resize(int size_fd, int master);

#endif
