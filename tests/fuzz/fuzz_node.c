/*
 * Fuzz target: the otela node's HTTP answers as node_json.c reads them.
 * Every input goes through every parser (the DNT table, a probe result, a
 * hole-punch result, the table's relays, peers_status, an error answer),
 * since a node, or whatever answers on
 * its port, can send any body to any request; then each PeerID the table
 * walk found, and the whole input, through the PeerID check. Checked
 * besides the sanitizers: a parse error always has a cause and nothing else
 * leaves one, and what a parser returns is well formed.
 */
#include "fuzz.h"

#include "error.h"
#include "node_json.h"

/*
 * A parse error must say why and no other result may leave a cause; what
 * the parser returned must be well formed. Frees the cause.
 */
static void
check(int r, char *cause, int well_formed)
{
	if ((r == NP_ERR_PARSE) != (cause != NULL) || !well_formed)
		abort();
	free(cause);
}

/* A table: NULL-terminated on success, nothing on failure. */
static void
fuzz_table(const char *body, size_t len)
{
	char **ids = NULL, *cause = NULL;
	size_t n = 0, i;
	int r = node_parse_table(body, len, &ids, &n, &cause);

	unsigned char *found;
	size_t missing;

	check(r, cause, r == 0 ? ids != NULL && ids[n] == NULL :
	    ids == NULL && n == 0);
	for (i = 0; i < n; i++)
		(void)node_json_peer_id_valid(ids[i]);
	/* convergence's lookup finds every PeerID the table lists */
	if (r == 0 && (found = malloc(n + 1)) != NULL) {
		cause = NULL;
		if (node_table_find(body, len, (const char *const *)ids, n,
		    found, &missing, &cause) != 0 || missing != 0)
			abort();
		for (i = 0; i < n; i++)
			if (!found[i])
				abort();
		free(found);
	}
	node_peer_ids_free(ids);
}

/* Probe and hole-punch answers: nothing left set after a failure. */
static void
fuzz_answers(const char *body, size_t len)
{
	struct node_probe p;
	struct node_holepunch h;
	char *pcause = NULL, *hcause = NULL;
	int rp = node_parse_probe(body, len, &p, &pcause);
	int rh = node_parse_holepunch(body, len, &h, &hcause);

	check(rp, pcause, rp == 0 ? p.metrics != NULL :
	    p.metrics == NULL && p.kind == NULL && p.error == NULL);
	check(rh, hcause, rh == 0 ? h.attempts >= -1 :
	    h.connectedness == NULL && h.last_error == NULL);
	node_probe_free(&p);
	node_holepunch_free(&h);
}

/* The table's relays, the peers' circuit relays and peers_status: every
   relay kept a PeerID (it reaches the records as relay_peer_id), every
   peer its strings. */
static void
fuzz_peers(const char *body, size_t len)
{
	struct node_peer *p = NULL;
	char *cause = NULL;
	size_t n = 0, i;
	int r = node_parse_table_relays(body, len, &p, &n, &cause);

	check(r, cause, r == 0 || (p == NULL && n == 0));
	for (i = 0; i < n; i++)
		if (!node_json_peer_id_valid(p[i].id) ||
		    !node_json_peer_id_valid(p[i].relay_peer))
			abort();
	node_peers_free(p, n);
	cause = NULL;
	r = node_parse_peers_circuits(body, len, &p, &n, &cause);
	check(r, cause, r == 0 || (p == NULL && n == 0));
	for (i = 0; i < n; i++)
		if (!node_json_peer_id_valid(p[i].id) ||
		    !node_json_peer_id_valid(p[i].relay_peer) || !p[i].circuit)
			abort();
	node_peers_free(p, n);
	cause = NULL;
	r = node_parse_peers_status(body, len, &p, &n, &cause);
	check(r, cause, r == 0 || (p == NULL && n == 0));
	for (i = 0; i < n; i++)
		if (p[i].id == NULL || p[i].connectedness == NULL)
			abort();
	node_peers_free(p, n);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Not NUL-terminated on purpose: the parsers are given a length. */
	const char *body = (const char *)data;
	char *text;

	fuzz_table(body, size);
	fuzz_answers(body, size);
	fuzz_peers(body, size);
	free(node_error_text(body, size));
	if ((text = fuzz_string(data, size)) != NULL)
		(void)node_json_peer_id_valid(text);
	free(text);
	return 0;
}
