/* serve-fds.h: descriptors a client passes with a request frame
 * (hutch-protocol(7), "DESCRIPTORS"): SCM_RIGHTS on the sendmsg that
 * carries the frame's first byte, at most SERVE_FDS_MAX, named by the
 * request's mounts as source_fd (their index in arrival order). Each is
 * close-on-exec from the moment it arrives, counted against the server's
 * descriptor budget, and closed when its frame has been handled: a
 * started jail's helper holds its own copies by then. Frontend only. */
#ifndef HUTCH_SERVE_FDS_H
#define HUTCH_SERVE_FDS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "doc/request.h"

#define SERVE_FDS_MAX REQ_MAX_SOURCE_FDS

struct frame_fds {
	int fd[SERVE_FDS_MAX];
	size_t n;
};

struct conn;
struct srv;

/* Read from c's socket into buf (cap bytes at most), never past the end
 * of the frame c->rd is reading, so that descriptors are told to their
 * frame; they join c->fds. Bytes read; 0 at EOF; -EAGAIN when nothing
 * waits; -EPROTO with *ret_why set when descriptors came on another byte
 * than a frame's first, more than SERVE_FDS_MAX came, or the server's
 * budget for them is spent (the connection ends); other -errno. */
ssize_t serve_recv(struct conn *c, uint8_t *buf, size_t cap, const char **ret_why);

/* The origin of the frame c is handling, for its request's binds: c's
 * descriptors, the client's uid, and whether path binds are allowed. */
const struct req_origin *serve_origin(struct conn *c);

/* Close the descriptors of c's frame and give back their budget. */
void serve_fds_close(struct conn *c);

#endif
