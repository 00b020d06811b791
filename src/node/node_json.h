/*
 * Parsers of the otela node's HTTP answers (the DNT table, a probe result,
 * a hole-punch result) and the PeerID check. Tolerant of what the otela
 * contract allows (added fields, fields it says may be absent), strict
 * about types: a field of the wrong type is an error that names the field,
 * so a node speaking another version of the API is noticed, not misread.
 */
#ifndef NETPROF_NODE_JSON_H
#define NETPROF_NODE_JSON_H

#include <stddef.h>

#include <cjson/cJSON.h>

/*
 * What netprof keeps of a node's answer (docs/bench.md, "Security model"):
 * a node decides what it answers, and what it answers is written to the
 * records, read back by the heatmap line by line (at most 1 MiB a line)
 * and printed. A text (an error, a kind) is cut to NODE_TEXT_MAX bytes, at
 * a character's start, and says how much was left out; a word (the
 * punch's connectedness) to NODE_WORD_MAX. A probe's metrics of more than
 * NODE_METRICS_MAX bytes (as compact JSON) lose their arrays, objects and
 * long strings, named in the metrics' "netprof_cut"; metrics still larger
 * make the answer unreadable (NP_ERR_PARSE: the record fails, class
 * parse).
 */
#define NODE_TEXT_MAX 4096
#define NODE_WORD_MAX 64
#define NODE_METRICS_MAX (256u << 10)
#define NODE_METRICS_CUT "netprof_cut"

struct node_probe {
	int ok;
	char *kind;		/* as the node echoed it; NULL if absent */
	char *target;		/* PeerID; NULL if absent */
	cJSON *metrics;		/* owned; an empty object if absent */
	char *error;		/* NULL when the node gave none */
};

struct node_holepunch {
	int ok;
	char *connectedness;	/* "Connected", "Limited", "NotConnected"... */
	int attempts;		/* -1 if absent */
	char *last_error;	/* NULL if absent */
};

/*
 * Every string anywhere in the DNT table (keys and values) that starts with
 * "12D3" or "Qm", deduplicated, in order of first appearance. *peer_ids is
 * a new NULL-terminated array of new strings (free with node_peer_ids_free);
 * *n its length. NP_ERR_PARSE with *cause when body is not JSON.
 */
int node_parse_table(const char *body, size_t len, char ***peer_ids,
    size_t *n, char **cause);
void node_peer_ids_free(char **peer_ids);

/*
 * Which of the n_want PeerIDs want[] the DNT table has: found[i] 1 or 0,
 * *n_missing how many it has not. Each is looked up in the table's hash
 * set, so a poll costs the table's size plus n_want, not their product
 * (a thousand hosts against a 4 MiB table, every poll, on the loop).
 * NP_ERR_PARSE with *cause as node_parse_table().
 */
int node_table_find(const char *body, size_t len, const char *const *want,
    size_t n_want, unsigned char *found, size_t *n_missing, char **cause);

/*
 * POST /v1/probe/run's answer: {ok, kind, target, config, metrics, error?}.
 * A 400's {error} also parses (ok 0, error set). NP_ERR_PARSE with *cause
 * naming the field when body is not a JSON object, ok is missing or not a
 * boolean, or a field has the wrong type. Free with node_probe_free().
 */
int node_parse_probe(const char *body, size_t len, struct node_probe *out,
    char **cause);
void node_probe_free(struct node_probe *p);

/*
 * POST /v1/probe/holepunch's answer: {ok, target, connectedness, attempts,
 * last_error?}; the same rules. Free with node_holepunch_free().
 */
int node_parse_holepunch(const char *body, size_t len,
    struct node_holepunch *out, char **cause);
void node_holepunch_free(struct node_holepunch *h);

/* A peer in the node's view: its connectedness, its relay_peer. */
struct node_peer {
	char *id;
	char *connectedness;	/* peers_status's word; NULL from the table */
	char *relay_peer;	/* the table's record's; NULL if none */
	int circuit;		/* relay_peer is its circuit address's relay */
};

/*
 * GET /v1/dnt/peers_status's answer, {"peers": [{"id", "connectedness"}]}:
 * *peers a new array of *n (node_peers_free()). A peer without a string id
 * or connectedness is left out; NP_ERR_PARSE with *cause when the answer
 * is not that object.
 */
int node_parse_peers_status(const char *body, size_t len,
    struct node_peer **peers, size_t *n, char **cause);

/*
 * GET /v1/dnt/table's records that name a relay: each record (an object
 * whose "id" is a PeerID) whose "relay_peer" is a PeerID too (anything
 * else, which would reach the records as relay_peer_id, is left out). The
 * same rules.
 */
int node_parse_table_relays(const char *body, size_t len,
    struct node_peer **peers, size_t *n, char **cause);
/*
 * GET /v1/dnt/peers' peers that have a circuit address, {"peers": [{"ID",
 * "Addrs": [...]}]}: each peer (a PeerID) with the relay of its first
 * address ".../p2p/RELAY/p2p-circuit" (a PeerID) as its relay_peer: the
 * relay a dial of it goes through. The same rules.
 */
int node_parse_peers_circuits(const char *body, size_t len,
    struct node_peer **peers, size_t *n, char **cause);
void node_peers_free(struct node_peer *peers, size_t n);

/*
 * The sum of the samples of counter name in a Prometheus text exposition
 * (GET /metrics) whose label has value (label NULL: every sample), into
 * *sum: 1 if there was one, 0 if none.
 */
int node_metric_sum(const char *text, size_t len, const char *name,
    const char *label, const char *value, double *sum);

/*
 * The "error" string of an error answer ({"error": "..."}, as a 400 has),
 * as a new string; NULL when body has none.
 */
char *node_error_text(const char *body, size_t len);

/*
 * *s (a new string) cut to max bytes, at the start of a UTF-8 character,
 * followed by " [N bytes more, not kept by netprof]"; unchanged when it is
 * no longer. 0, or NP_ERR_NOMEM (*s unchanged).
 */
int node_text_cut(char **s, size_t max);

/*
 * Nonzero if s is a libp2p PeerID in base58btc as otela prints it:
 * "12D3KooW" + 44 more characters (an Ed25519 identity multihash, 52 in all)
 * or "Qm" + 44 more (a sha2-256 multihash, 46 in all). Nothing else.
 */
int node_json_peer_id_valid(const char *s);

#endif
