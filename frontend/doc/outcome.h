/* outcome.h: what a run produced, as the supervisor (run/supervise.c) and
 * the collection (run/collect.c) fill it, classification (run/classify.c)
 * settles it and the result document (doc/result.c) reads it: the exit or
 * failure, the captured output and what of it is shown, the counted
 * denials and the files brought back. Types only: it lives here so
 * that the document code does not depend on the code that runs jails.
 * Frontend only. */
#ifndef HUTCH_OUTCOME_H
#define HUTCH_OUTCOME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "errors.h"
#include "status.h"
#include "doc/change-set.h"
#include "doc/timings.h"

#define CAPTURE_TAIL 8192

struct capture {
	uint8_t *buf;		/* kept bytes (json mode), at most limit */
	size_t len, alloc;	/* alloc: bytes at buf; ignored once buf is NULL */
	uint64_t bytes;		/* everything the target wrote, counted */
	uint64_t limit;		/* cap; 0 = none */
	uint64_t escaped;	/* kept bytes as JSON text would render them */
	bool truncated;
	/* The last bytes the target wrote, kept even when the stream is
	 * passed through: stderr's tell run/memory-limit.c why it died. */
	uint8_t tail[CAPTURE_TAIL];
	size_t tail_len;
	int echo_fd;		/* pass-through: our fd 1 or 2; -1 to keep */
	bool open;
};

#define DENIALS_MAX 64

struct denial {
	int nr;
	uint32_t arch;	/* AUDIT_ARCH_* */
	uint64_t count;
};

/* --explain: what the jail withheld, as run/explain.c saw it. Bounded:
 * EXPLAIN_EVENTS_MAX distinct events (kind and path), counted; past that
 * only a count of what was dropped. */
#define EXPLAIN_EVENTS_MAX 64
#define EXPLAIN_PATH_MAX 512
#define EXPLAIN_GRANT_MAX 768

enum explain_kind {
	EXPLAIN_MISSING,	/* not in the jail, on the host */
	EXPLAIN_NOEXEC,		/* executed from a mount without exec */
	EXPLAIN_READ_ONLY,	/* opened for writing on a read-only mount */
	EXPLAIN_DENIED,		/* refused by the seccomp filter */
};

struct explain_event {
	enum explain_kind kind;
	char call[24];			/* "openat", "execve", a denied call */
	char path[EXPLAIN_PATH_MAX];	/* jail path, control bytes as '?'; "" */
	bool path_cut;			/* longer than EXPLAIN_PATH_MAX */
	uint64_t count;
	char why[224];			/* words */
	char grant[EXPLAIN_GRANT_MAX];	/* JSON text of the fragment, or "" */
};

struct explain_log {
	bool requested;		/* --explain */
	bool attached;		/* its listener arrived */
	struct explain_event *events;	/* EXPLAIN_EVENTS_MAX, once requested */
	size_t n;
	uint64_t seen;		/* notifications answered */
	uint64_t dropped;	/* events past EXPLAIN_EVENTS_MAX */
	uint64_t unread;	/* paths we could not read or resolve */
};

/* Network "proxy": every connection its proxy took (run/proxy.c), as the
 * result's network.connections shows them. Bounded: NET_LOG_MAX entries,
 * then only a count of those left out. */
#define NET_LOG_MAX 64
#define NET_HOST_MAX 254
#define NET_ADDRESS_MAX 46	/* INET6_ADDRSTRLEN */

struct net_conn {
	char host[NET_HOST_MAX];	/* as the request named it, normalized; "" */
	uint16_t port;
	char address[NET_ADDRESS_MAX];	/* connected or refused address; "" */
	bool allowed;			/* the proxy connected it upstream */
	const char *reason;		/* static: why refused or cut short; NULL */
	uint64_t bytes_out, bytes_in, ms;
};

struct net_log {
	bool proxy;		/* the run's proxy was running */
	struct net_conn *conns;	/* NET_LOG_MAX, once one is logged */
	size_t n;
	uint64_t left_out;	/* past NET_LOG_MAX */
	uint64_t bytes;		/* both ways, every connection */
	uint64_t max_bytes;	/* the cap it ran under */
	bool capped;		/* bytes reached max_bytes: all cut */
};

enum outcome_status { OUTCOME_EXITED, OUTCOME_SIGNALED, OUTCOME_FAILED };

/* What a result document shows of one stream: classify's verdict
 * (run/classify.c), which the result writer serialises as it is. The
 * zero value shows nothing, as empty text. */
struct shown {
	size_t off, len;	/* the bytes of the capture's buf shown */
	bool base64;		/* rendered as base64, else as text */
	bool truncated;
};

/* Words for a failure's error.message, never content: the helper's record
 * as status_describe() says it, or what our own failure before spawning
 * ran into. */
#define OUTCOME_DETAIL_MAX 384

/* As many as a request has mounts (REQ_MAX_MOUNTS). */
#define OUTCOME_MAX_OVERLAYS 64

struct outcome {
	enum outcome_status status;
	int exit_code;			/* OUTCOME_EXITED */
	int signal;			/* OUTCOME_SIGNALED */
	enum hutch_err err;		/* OUTCOME_FAILED */
	const char *limit;		/* which limit fired: "wall_ms", "idle_ms", ... */
	bool have_record;		/* the helper's failure record */
	struct hutch_status record;
	struct capture out, errc;
	uint64_t wall_ms, cpu_user_ms, cpu_sys_ms, max_rss_kb;
	int exit_status_raw;		/* the helper's wait status */
	bool cgroup_applied;		/* memory.max/pids.max were in force */
	int workdir_fd;			/* the work dir's tmpfs, for collect, or -1 */
	/* Each overlay's upper tmpfs, in the spec's order, as pid 1 sent
	 * them; run/changes.c reads the change set from them. */
	int overlay_fd[OUTCOME_MAX_OVERLAYS];
	size_t n_overlay_fds;
	struct change_set changes;	/* present when the run had overlays */
	bool denials_attributed;	/* a seccomp listener was ours */
	struct denial denials[DENIALS_MAX];
	size_t n_denials;
	uint64_t denials_other;		/* calls past DENIALS_MAX distinct ones */
	uint64_t oom_kills;		/* memory.events oom_kill of the jail's cgroup */
	bool memory_limit;		/* it ended at its memory limit (run/memory-limit.c) */
	char memory_detail[OUTCOME_DETAIL_MAX];	/* how, and how to raise it */
	uint64_t memory_limit_bytes;	/* its memory.max, when cgroup_applied */
	uint64_t memory_peak_bytes;	/* its memory.peak, 0 when unknown */
	uint64_t forks_refused;		/* its pids.events max */
	/* Classify's verdict, the only thing the result writer reads of
	 * the rules: status and err above are final once it ran. */
	struct shown show_out, show_err;
	bool output_withheld;		/* streams and files not shown at all */
	bool partial;			/* kept, though a kill cut the run short */
	char detail[OUTCOME_DETAIL_MAX];	/* "" or the failure in words */
	/* An exec failure's cause from the plan's layout (jail-path.c), which
	 * classify puts in detail instead of the bare errno: "" for none. */
	char exec_why[OUTCOME_DETAIL_MAX - 32];
	struct explain_log explain;
	struct net_log net;
	struct jail_timings timings;	/* spec, spawn and the helper's steps */
};

struct collected_file {
	char *name;	/* relative to the work dir; a walked entry's full path */
	uint8_t *data;	/* NULL when error is set or for a directory */
	size_t len;
	const char *error;	/* NULL, "missing", "not_regular", "too_large",
				 * "too_many", "unreadable" */
	bool is_dir;		/* a directory collected whole (walked) */
	bool executable;	/* the jail's file had its owner's execute bit */
	const char *write_error;	/* writing it to the host: NULL or why not */
};

struct collected {
	struct collected_file *files;
	size_t n, alloc;
};

#endif
