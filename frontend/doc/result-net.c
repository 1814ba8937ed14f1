/* result-net.c: the result's "network" section and its --explain lines
 * (see result-net.h). Pure. Frontend only. */
#include "config.h"

#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "doc/result-net.h"

static struct json_object *jconn(const struct net_conn *c)
{
	struct json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "host", json_object_new_string(c->host));
	json_object_object_add(o, "port", json_object_new_int(c->port));
	json_object_object_add(o, "address", json_object_new_string(c->address));
	json_object_object_add(o, "verdict", json_object_new_string(c->allowed ? "allowed" : "refused"));
	json_object_object_add(o, "reason", c->reason ? json_object_new_string(c->reason) : NULL);
	json_object_object_add(o, "bytes_out", json_object_new_int64((int64_t)c->bytes_out));
	json_object_object_add(o, "bytes_in", json_object_new_int64((int64_t)c->bytes_in));
	json_object_object_add(o, "ms", json_object_new_int64((int64_t)c->ms));
	return o;
}

struct json_object *result_network_json(const struct net_log *net)
{
	struct json_object *o = json_object_new_object(), *a = json_object_new_array();

	if (!o || !a) {
		json_object_put(o);
		json_object_put(a);
		return NULL;
	}
	for (size_t i = 0; i < net->n; i++)
		json_object_array_add(a, jconn(&net->conns[i]));
	json_object_object_add(o, "connections", a);
	json_object_object_add(o, "left_out", json_object_new_int64((int64_t)net->left_out));
	json_object_object_add(o, "bytes", json_object_new_int64((int64_t)net->bytes));
	json_object_object_add(o, "max_bytes", json_object_new_int64((int64_t)net->max_bytes));
	json_object_object_add(o, "capped", json_object_new_boolean(net->capped));
	return o;
}

static const char *str(struct json_object *o, const char *key)
{
	struct json_object *v;

	return json_object_object_get_ex(o, key, &v) && v ? json_object_get_string(v) : "";
}

/* Said once per host, port and reason. */
static bool said_before(struct json_object *conns, size_t i)
{
	struct json_object *c = json_object_array_get_idx(conns, i);

	for (size_t k = 0; k < i; k++) {
		struct json_object *p = json_object_array_get_idx(conns, k);

		if (strcmp(str(p, "verdict"), "refused") == 0 &&
		    strcmp(str(p, "host"), str(c, "host")) == 0 &&
		    strcmp(str(p, "port"), str(c, "port")) == 0 &&
		    strcmp(str(p, "reason"), str(c, "reason")) == 0)
			return true;
	}
	return false;
}

static void print_refusal(struct json_object *c)
{
	const char *host = str(c, "host"), *port = str(c, "port"), *reason = str(c, "reason");
	bool v6 = strchr(host, ':') != NULL;
	char dest[300];

	snprintf(dest, sizeof(dest), "%s%s%s:%s", v6 ? "[" : "", host, v6 ? "]" : "", port);
	if (strcmp(reason, "not_allowed") == 0)
		fprintf(stderr, "hutch: explain: proxy refused %s (not in the run's allow-list); "
			"grant: --allow-host %s, and where the policy does not cover it: "
			"{\"network\":{\"proxy\":{\"allow\":[\"%s\"]}}}\n", dest, dest, dest);
	else if (strncmp(reason, "address_", 8) == 0 && strcmp(reason, "address_unspecified") &&
		 strcmp(reason, "address_multicast") && strcmp(reason, "address_reserved"))
		fprintf(stderr, "hutch: explain: proxy refused %s: it resolves to %s (%s); "
			"grant: --allow-private, and where the policy does not allow it: "
			"{\"network\":{\"proxy\":{\"allow_private\":true}}}\n", dest,
			str(c, "address"), reason);
	else if (*host)
		fprintf(stderr, "hutch: explain: proxy refused %s: %s\n", dest, reason);
}

void result_print_network_explain(struct json_object *doc)
{
	struct json_object *net, *conns;
	size_t n;

	if (!json_object_object_get_ex(doc, "network", &net) || !net ||
	    !json_object_object_get_ex(net, "connections", &conns) || !conns)
		return;
	n = json_object_array_length(conns);
	for (size_t i = 0; i < n; i++) {
		struct json_object *c = json_object_array_get_idx(conns, i);

		if (strcmp(str(c, "verdict"), "refused") == 0 && !said_before(conns, i))
			print_refusal(c);
	}
	if (strcmp(str(net, "left_out"), "0") != 0)
		fprintf(stderr, "hutch: explain: proxy: %s more connections not listed\n",
			str(net, "left_out"));
}

static size_t count_refused(struct json_object *doc)
{
	struct json_object *net, *conns;
	size_t n = 0;

	if (!json_object_object_get_ex(doc, "network", &net) || !net ||
	    !json_object_object_get_ex(net, "connections", &conns) || !conns)
		return 0;
	for (size_t i = 0; i < json_object_array_length(conns); i++)
		if (strcmp(str(json_object_array_get_idx(conns, i), "verdict"), "refused") == 0)
			n++;
	return n;
}

void result_print_network_hint(struct json_object *doc, bool explained)
{
	struct json_object *jail = NULL, *err = NULL;
	const char *net;
	size_t refused;

	json_object_object_get_ex(doc, "jail", &jail);
	json_object_object_get_ex(doc, "error", &err);
	net = jail ? str(jail, "network") : "";
	/* A job that waited on the network looks like any timeout: say
	 * what the jail's network was and how a host is reached. */
	if (err && strcmp(str(err, "code"), "timeout") == 0 &&
	    (strcmp(net, "none") == 0 || strcmp(net, "loopback") == 0))
		fprintf(stderr, "hutch: note: the jail's network is %s: no name resolves and no "
			"host outside the jail answers; to reach one, --network proxy --allow-host "
			"NAME[:PORT] where the policy allows proxy\n", net);
	refused = count_refused(doc);
	if (refused && !explained)
		fprintf(stderr, "hutch: note: the proxy refused %zu connection%s (--explain says "
			"which, and what would allow them)\n", refused, refused == 1 ? "" : "s");
}
