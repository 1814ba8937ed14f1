/* client-run.h: hutch-client's one run at a time (examples/hutch-client.c):
 * its live output streamed as it comes, SIGINT and SIGTERM turned into a
 * cancel, and the exit status hutch(1) would give for its final event. */
#ifndef HUTCH_CLIENT_RUN_H
#define HUTCH_CLIENT_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct frame_reader;

/* Exit statuses for what went wrong on the client's side: hutch(1)'s
 * "any other failure" (usage, the connection, an impostor). */
#define CLIENT_EXIT_FAILURE 125

/* A signalfd for SIGINT and SIGTERM, which are blocked from now on (so
 * one that comes while the request goes out is not lost); or -1 with
 * them left as they were. */
int client_block_signals(void);

/* The events of request 1 on fd until its final one. Live output goes to
 * our stdout and stderr as it comes (json: not at all), the rest of the
 * streams from the result document once it is in, never a byte twice. A
 * signal on sig_fd sends a cancel (request 2) and goes on waiting for
 * the final event; a second one gives up. Returns the exit status: json,
 * 0 once the final event was printed; else hutch(1)'s for it (the
 * command's status, 128+N, 124, 126, 127, 71, or 125). */
int client_run_wait(int fd, int sig_fd, bool json);

/* The next whole frame of p[*off, n) fed to fr (*off moved past what
 * was used): 1 with it in *ret_frame (the caller frees it) and *ret_len;
 * 0 once all of p is used without one; -1 after saying on stderr that
 * the server sent a bad frame. Both hutch-client's loops read with it. */
int client_next_frame(struct frame_reader *fr, const uint8_t *p, size_t n, size_t *off,
		      uint8_t **ret_frame, size_t *ret_len);

/* hutch(1)'s exit status for one final event's text [t, t+len). */
int client_exit_status(const char *t, size_t len);

#endif
