/* control-recv.h: one message of pid 1 off the control socket
 * (HUTCH_CONTROL_FD, hutch-exec(8)): a tagged descriptor, or the timings
 * record. Frontend only. */
#ifndef HUTCH_CONTROL_RECV_H
#define HUTCH_CONTROL_RECV_H

#include "doc/timings.h"

/* Returns 0 with *ret_tag and *ret_fd (ours, close-on-exec) for a
 * descriptor, or with *ret_fd = -1 once the timings record went into t;
 * -EAGAIN when nothing is there yet; -EPIPE at EOF or for anything else
 * (whatever descriptors it carried closed). */
int control_recv(int sock, char *ret_tag, int *ret_fd, struct jail_timings *t);

#endif
