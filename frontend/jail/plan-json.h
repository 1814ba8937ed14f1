/* plan-json.h: the resolved jail plan as JSON, for `hutch run --dry-run`.
 * Frontend only. */
#ifndef HUTCH_PLAN_JSON_H
#define HUTCH_PLAN_JSON_H

#include <json-c/json.h>

#include "doc/plan.h"
#include "doc/policy.h"

struct json_object *plan_to_json(const struct plan *plan, const struct policy *pol);

#endif
