/* result-net.h: a result's "network" section (network "proxy": every
 * connection its proxy took, bounded) and --explain's lines for what the
 * proxy refused, each with the option and policy fragment that would
 * allow it. Pure. Frontend only. */
#ifndef HUTCH_RESULT_NET_H
#define HUTCH_RESULT_NET_H

#include <stdbool.h>

#include "doc/outcome.h"

struct json_object;

/* {"connections": [...], "left_out": N, "bytes": N, "max_bytes": N,
 * "capped": bool}; NULL on no memory. */
struct json_object *result_network_json(const struct net_log *net);

/* --explain: one stderr line per refused destination of doc's network
 * section (the document, so serve and run say the same). */
void result_print_network_explain(struct json_object *doc);

/* Without --json: a note when a run under none or loopback timed out
 * (how a host is reached), and how many connections the proxy refused
 * when --explain (explained) did not list them. */
void result_print_network_hint(struct json_object *doc, bool explained);

#endif
