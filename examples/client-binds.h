/* client-binds.h: hutch-client's --bind-ro, --bind-rw and --overlay
 * HOST:JAIL (an overlay: copy-on-write, HOST never changes). HOST
 * is opened here, as the caller, and its descriptor passed with the run's
 * frame (SCM_RIGHTS on the sendmsg that begins with the frame's first
 * byte), named by the request as {"source_fd": K, "target": JAIL,
 * "mode": "ro"|"rw"|"overlay"}: the server binds what we could open, never a path
 * with its own authority (hutch-protocol(7), "DESCRIPTORS"). */
#ifndef HUTCH_CLIENT_BINDS_H
#define HUTCH_CLIENT_BINDS_H

#include <stdbool.h>
#include <stddef.h>

#include "client-json.h"

#define CLIENT_BINDS_MAX 16	/* descriptors with one frame (hutch-protocol(7)) */

struct client_binds {
	struct {
		const char *jail;	/* in argv */
		const char *mode;	/* "ro", "rw" or "overlay" */
		int fd;
	} b[CLIENT_BINDS_MAX];
	int n;
};

/* opt ("--bind-ro", "--bind-rw" or "--overlay") and its HOST:JAIL: HOST
 * opened (a directory or a file for reading; a file for writing too when
 * rw; an overlay's, a directory). 0, or -1 with the problem printed. */
int client_binds_add(struct client_binds *cb, const char *opt, const char *arg);
/* ,"mounts":[{"source_fd":0,"target":"/x","mode":"ro"},...], nothing when
 * there is no bind. 0 or -EILSEQ (a JAIL that is not UTF-8). */
int client_binds_json(struct buf *b, const struct client_binds *cb);
/* A frame of body: its header and first bytes in one sendmsg carrying the
 * descriptors of cb (NULL: none), the rest as the socket takes it. 0 or
 * -errno. */
int client_send_frame(int fd, const struct client_binds *cb, const char *body, size_t len);

#endif
