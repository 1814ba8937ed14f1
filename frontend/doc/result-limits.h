/* result-limits.h: the parts of a result document that say which bound a
 * run met: jail.masks (what the masks did and the walk's bounds) and the
 * lines `hutch run` prints for them and for a memory limit without
 * --json. Frontend only. */
#ifndef HUTCH_RESULT_LIMITS_H
#define HUTCH_RESULT_LIMITS_H

#include <json-c/json.h>

#include "doc/plan.h"

/* jail.masks; NULL when out of memory. */
struct json_object *result_masks_json(const struct plan_masks_report *r);

/* On stderr: "hutch: memory limit: ..." when the document says
 * "limit": "memory", "hutch: masks: ..." when the mask walk hit a bound. */
void result_print_limits(struct json_object *doc);

#endif
