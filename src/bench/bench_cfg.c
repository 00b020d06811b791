/*
 * Rendering a bench host's cfg.yaml. The document is built with cJSON and
 * printed formatted: JSON is YAML 1.2, and a JSON printer quotes every
 * string correctly, which a hand-written YAML emitter would have to get
 * right for host names and multiaddrs. Key order follows the contract.
 * cJSON indents with tabs. In a JSON (flow) document YAML takes them as
 * separation, and the real node reads it (checked with its binary); but
 * YAML forbids tabs as indentation, a reader that gets it wrong drops the
 * file, and the real node then runs silently on its defaults (other
 * ports, the public bootstrap list). Spaces are safe for every reader, so
 * every tab cJSON prints becomes spaces; a tab inside a string is printed
 * escaped ("\t"), so every literal tab is layout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "bench.h"
#include "bench_cfg.h"
#include "util.h"

static int
add_port(cJSON *o, const char *key, int port)
{
	char s[16];

	snprintf(s, sizeof s, "%d", port);
	return cJSON_AddStringToObject(o, key, s) != NULL ? 0 : -1;
}

/*
 * --relay-circuits: each other host through each relay,
 * RELAY/p2p-circuit/p2p/PEER. A node dials the addresses of its list, and
 * knows no other way to a peer it cannot dial directly: the real node
 * learns a peer's circuit address only from the peer itself (identify),
 * and its AutoRelay announces none for a relay whose address it does not
 * take for public (docs/bench.md).
 */
static int
add_circuits(cJSON *list, const struct bench_cfg *c)
{
	size_t r, i;
	char *ma;
	cJSON *s;

	for (r = 0; r < c->n_relays; r++)
		for (i = 0; i < c->n_peers; i++) {
			if ((ma = str_printf("%s/p2p-circuit/p2p/%s",
			    c->relays[r].multiaddr, c->peers[i].peer_id)) ==
			    NULL)
				return -1;
			s = cJSON_CreateString(ma);
			free(ma);
			if (s == NULL || !cJSON_AddItemToArray(list, s))
				return -1;
		}
	return 0;
}

static int
add_bootstrap(cJSON *o, const struct bench_cfg *c)
{
	cJSON *list, *s;
	char *ma;
	size_t i;

	if ((list = cJSON_AddArrayToObject(cJSON_AddObjectToObject(o,
	    "bootstrap"), "static")) == NULL)
		return -1;
	for (i = 0; i < c->n_peers; i++) {
		if (inventory_multiaddr(c->peers[i].m, c->peers[i].libp2p_port,
		    c->peers[i].peer_id, &ma) != 0)
			return -1;
		s = cJSON_CreateString(ma);
		free(ma);
		if (s == NULL || !cJSON_AddItemToArray(list, s))
			return -1;
	}
	for (i = 0; i < c->n_extra; i++)
		if (!cJSON_AddItemToArray(list, cJSON_CreateString(c->extra[i])))
			return -1;
	for (i = 0; i < c->n_host_extra; i++)
		if (!cJSON_AddItemToArray(list,
		    cJSON_CreateString(c->host_extra[i])))
			return -1;
	return add_circuits(list, c);
}

static int
add_flags(cJSON *o, const char *key, const char *const *names, size_t n)
{
	cJSON *f = cJSON_AddObjectToObject(o, key);
	size_t i;

	if (f == NULL)
		return -1;
	for (i = 0; i < n; i++)
		if (cJSON_AddFalseToObject(f, names[i]) == NULL)
			return -1;
	return 0;
}

/* text with each tab as two spaces at a line's start, one elsewhere. */
static char *
untab(const char *text)
{
	size_t len = strlen(text), i, o = 0;
	char *out = malloc(2 * len + 2);
	int lead = 1;

	if (out == NULL)
		return NULL;
	for (i = 0; i < len; i++) {
		if (text[i] == '\t') {
			out[o++] = ' ';
			if (lead)
				out[o++] = ' ';
			continue;
		}
		lead = text[i] == '\n';
		out[o++] = text[i];
	}
	out[o++] = '\n';
	out[o] = '\0';
	return out;
}

char *
bench_cfg_render(const struct bench_cfg *c)
{
	static const char *const security[] = { "require_signed_binary" };
	static const char *const scalability[] = { "swim_enabled",
		"crdt_tuned", "weighted_routing" };
	static const char *const billing[] = { "enabled" };
	cJSON *o = cJSON_CreateObject(), *bench;
	char *text = NULL, *out = NULL;

	if (o == NULL || add_port(o, "port", c->http_port) != 0 ||
	    add_port(o, "tcpport", c->libp2p_port) != 0 ||
	    add_port(o, "udpport", c->libp2p_port + 1) != 0 ||
	    cJSON_AddTrueToObject(o, "cleanslate") == NULL ||
	    cJSON_AddStringToObject(o, "reachability", c->reachability !=
	    NULL ? c->reachability : "auto") == NULL ||
	    add_bootstrap(o, c) != 0 ||
	    add_flags(o, "security", security, 1) != 0 ||
	    add_flags(o, "scalability", scalability, 3) != 0 ||
	    add_flags(o, "billing", billing, 1) != 0 ||
	    (bench = cJSON_AddObjectToObject(o, "bench")) == NULL ||
	    cJSON_AddStringToObject(bench, "run_id", c->run_id) == NULL ||
	    (text = cJSON_Print(o)) == NULL)
		goto out;
	out = untab(text);
out:
	cJSON_free(text);
	cJSON_Delete(o);
	return out;
}
