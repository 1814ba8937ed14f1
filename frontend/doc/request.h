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

struct req_mount {
	char *source, *target;
	bool rw;
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
	struct req_mount *mounts;
	size_t n_mounts;
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

#endif
