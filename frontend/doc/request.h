/* request.h: the request document (version 1, DESIGN.md), parsed strictly
 * into typed fields. Only the document's own rules are checked here; what
 * a policy allows is narrow.c's job. CLI options build the same document,
 * so both paths share these rules. Frontend only. */
#ifndef HUTCH_REQUEST_H
#define HUTCH_REQUEST_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "doc/plan.h"
#include "doc/policy.h"
#include "doc/verror.h"

#define REQ_MAX_ARGC 4096u
#define REQ_MAX_ARGV_BYTES (1u << 20)
#define REQ_MAX_ENV 256u
#define REQ_MAX_ENV_BYTES (256u << 10)
#define REQ_MAX_FILES 256u
#define REQ_MAX_COLLECT 256u
#define REQ_MAX_MOUNTS 64u
#define REQ_MAX_HIDE 64u
#define REQ_MAX_NAME 255u
#define REQ_MAX_DOC_BYTES (128u << 20)
#define REQ_MAX_STDIN_BYTES (64u << 20)

/* Descriptors a serve request may pass with its frame (hutch-protocol(7)):
 * source_fd is an index below this. */
#define REQ_MAX_SOURCE_FDS 16u

struct req_mount {
	char *source;	/* NULL when the source is a passed descriptor */
	int source_fd;	/* index of that descriptor in the frame, or -1 */
	char *target;
	bool rw;
	bool overlay;	/* mode "overlay" */
};

/* What a serve frame brought besides its document (hutch-protocol(7)).
 * NULL for `hutch run`, which passes no descriptors. */
struct req_origin {
	const int *fds;		/* the frame's descriptors, in arrival order (borrowed) */
	size_t n_fds;
	bool path_binds_refused;	/* serve without --allow-path-binds */
	uint32_t peer_uid;	/* the client's, from SO_PEERCRED */
	/* serve walks the masks (jail/masks.h) off its loop: narrow() leaves
	 * them to it, p->masks empty until masks_resolve_cancellable() */
	bool masks_later;
};

struct req_file {
	char *name;
	uint8_t *data;
	size_t len;
};

struct request {
	char *policy;
	char **argv;
	size_t argc;
	char **env_names, **env_values;
	size_t n_env;
	char *cwd;
	bool stdin_given;
	uint8_t *stdin_data;
	size_t stdin_len;
	struct req_file *files;
	size_t n_files;
	char **collect;
	size_t n_collect;
	bool limit_set[LIM_COUNT];
	uint64_t limits[LIM_COUNT];
	bool stdout_mode_set;
	enum stdout_mode stdout_mode;
	bool network_set;
	/* "keep_partial": the output captured before a kill stays in the
	 * result, marked partial (classify.c). */
	bool keep_partial;
	enum net_mode network;
	bool allow_hosts_set;	/* network proxy: "allow_hosts" (host-pattern.h) */
	char **allow_hosts;
	size_t n_allow_hosts;
	bool allow_private;	/* and private destinations, if the policy lets it ask */
	struct req_mount *mounts;
	size_t n_mounts;
	bool export_changes;	/* the overlays' changed files as data */
	const struct req_origin *origin;	/* set by serve after parsing, or NULL */
	char **hide;	/* jail paths inside the request's binds (--hide) */
	size_t n_hide;
};

/* From a parsed document. -EINVAL with e filled (invalid_request and the
 * field's pointer); writes *ret only on success. */
int request_from_json(struct json_object *doc, struct request *ret, struct verrors *e);

/* From text: strict JSON first (duplicate keys, trailing data...). */
int request_parse(const char *text, size_t len, struct request *ret, struct verrors *e);

void request_free(struct request *r);

/* Add name=value to r's variables unless r sets name already (--tty's
 * TERM). 0, 1 when r had it, -ENOMEM. */
int request_add_env(struct request *r, const char *name, const char *value);

/* Bare file names: no '/', not "." or "..", no control bytes, <= 255. */
bool request_name_ok(const char *s);
/* Collect names: bare names joined by single '/', <= REQ_MAX_RELPATH. */
#define REQ_MAX_RELPATH 1024u
bool request_relpath_ok(const char *s);

#define REQ_MAX_ALLOW_HOSTS 256u

#endif
