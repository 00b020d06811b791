/*
 * bench_cfg_render(): the cfg.yaml each bench host gets. Checks the
 * multiaddr form per address (/ip4/ for a dotted IPv4 literal, /dns4/ for
 * a name, /ip6/ for an IPv6 literal), the bootstrap order (the other
 * hosts in inventory order, then --bootstrap, then the host's
 * bootstrap_extra), ports as strings, and that the document is JSON (so
 * valid YAML 1.2) with the contract's keys.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "bench.h"
#include "bench_cfg.h"
#include "inventory.h"

#define PID_A "12D3KooWCTeZvhJRonmtCXRDCdyE8ujtPqGGvdCpGR17Lc83MvgY"
#define PID_B "12D3KooWBCLTB6SFr212byheTq23EoHVnyVDAqx9E42HdsXEgSW3"
#define PID_C "QmVpKnDXrwd5XDBgLRt5k5cGFM9x43BYbHMQWzTJcPtpkC"

static const char inventory_text[] =
    "{\"machines\": ["
    " {\"name\": \"a\", \"address\": \"198.18.0.2\","
    "  \"bootstrap_extra\": [\"/dns4/relay.example.org/tcp/4001/p2p/" PID_C
    "\"]},"
    " {\"name\": \"b\", \"address\": \"node-b.example.org\","
    "  \"libp2p_port\": 4001},"
    " {\"name\": \"c\", \"address\": \"2001:db8::5\"}"
    "]}";

static struct inventory *
load(void)
{
	struct inventory *inv = NULL;
	char *cause = NULL;

	assert_int_equal(inventory_parse(inventory_text, "machines.json",
	    &inv, &cause), 0);
	return inv;
}

/* Render machine a's cfg with b and c as peers; parse it back. */
static cJSON *
render_a(struct inventory *inv, const char *const *extra, size_t n_extra)
{
	struct bench_cfg_peer peers[] = {
		{ &inv->machines[1], 4001, PID_A },
		{ &inv->machines[2], 19091, PID_B },
	};
	struct bench_cfg c = {
		.run_id = "2026-11-30T19-20-48-f1672b",
		.http_port = 19090,
		.libp2p_port = 19091,
		.peers = peers,
		.n_peers = 2,
		.extra = extra,
		.n_extra = n_extra,
		.host_extra = inv->machines[0].bootstrap_extra,
		.n_host_extra = inv->machines[0].n_bootstrap_extra,
	};
	char *text = bench_cfg_render(&c);
	cJSON *doc;

	assert_non_null(text);
	assert_int_equal(text[strlen(text) - 1], '\n');
	doc = cJSON_Parse(text);
	assert_non_null(doc);	/* JSON, hence YAML 1.2 */
	free(text);
	return doc;
}

static const char *
static_at(const cJSON *doc, int i)
{
	const cJSON *list = cJSON_GetObjectItem(cJSON_GetObjectItem(doc,
	    "bootstrap"), "static");

	return cJSON_GetStringValue(cJSON_GetArrayItem(list, i));
}

static void
test_multiaddr_dns4_for_names_ip6_for_ipv6(void **state)
{
	struct inventory *inv = load();
	cJSON *doc = render_a(inv, NULL, 0);

	assert_string_equal(static_at(doc, 0),
	    "/dns4/node-b.example.org/tcp/4001/p2p/" PID_A);
	assert_string_equal(static_at(doc, 1),
	    "/ip6/2001:db8::5/tcp/19091/p2p/" PID_B);
	cJSON_Delete(doc);
	inventory_free(inv);
}

/*
 * --relay-circuits: after everything else, each other host through each
 * relay; --reachability is cfg.yaml's reachability ("auto" unless said).
 */
static void
test_circuits_through_relays_and_reachability(void **state)
{
	struct inventory *inv = load();
	struct bench_cfg_peer peers[] = {
		{ &inv->machines[1], 4001, PID_A },
		{ &inv->machines[2], 19091, PID_B },
	};
	struct bench_relay relay = { .name = (char *)"relay",
		.multiaddr = "/ip4/198.18.0.254/tcp/19091/p2p/" PID_C };
	const char *const extra[] = { relay.multiaddr };
	struct bench_cfg c = { .run_id = "r", .http_port = 1,
		.libp2p_port = 2, .peers = peers, .n_peers = 2,
		.extra = extra, .n_extra = 1, .relays = &relay, .n_relays = 1,
		.reachability = "private" };
	char *text = bench_cfg_render(&c);
	cJSON *doc = cJSON_Parse(text);

	(void)state;
	assert_string_equal(static_at(doc, 2), relay.multiaddr);
	assert_string_equal(static_at(doc, 3), "/ip4/198.18.0.254/tcp/19091/p2p/"
	    PID_C "/p2p-circuit/p2p/" PID_A);
	assert_string_equal(static_at(doc, 4), "/ip4/198.18.0.254/tcp/19091/p2p/"
	    PID_C "/p2p-circuit/p2p/" PID_B);
	assert_null(static_at(doc, 5));
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(doc,
	    "reachability")), "private");
	cJSON_Delete(doc);
	free(text);
	c.n_relays = 0;
	c.reachability = NULL;
	text = bench_cfg_render(&c);
	doc = cJSON_Parse(text);
	assert_null(static_at(doc, 3));
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(doc,
	    "reachability")), "auto");
	cJSON_Delete(doc);
	free(text);
	inventory_free(inv);
}

static void
test_multiaddr_ip4_for_dotted_literal(void **state)
{
	struct inventory *inv = load();
	struct bench_cfg_peer peer = { &inv->machines[0], 19091, PID_B };
	struct bench_cfg c = { .run_id = "r", .http_port = 1,
		.libp2p_port = 2, .peers = &peer, .n_peers = 1 };
	char *text = bench_cfg_render(&c);
	cJSON *doc = cJSON_Parse(text);

	assert_string_equal(static_at(doc, 0),
	    "/ip4/198.18.0.2/tcp/19091/p2p/" PID_B);
	assert_null(static_at(doc, 1));
	cJSON_Delete(doc);
	free(text);
	inventory_free(inv);
}

static void
test_bootstrap_order_peers_options_then_machine(void **state)
{
	const char *const extra[] = { "/ip4/203.0.113.7/tcp/43905/p2p/" PID_C,
		"/ip4/203.0.113.8/tcp/43905/p2p/" PID_A };
	struct inventory *inv = load();
	cJSON *doc = render_a(inv, extra, 2);
	const cJSON *list = cJSON_GetObjectItem(cJSON_GetObjectItem(doc,
	    "bootstrap"), "static");

	assert_int_equal(cJSON_GetArraySize(list), 5);
	assert_non_null(strstr(static_at(doc, 0), "node-b"));
	assert_non_null(strstr(static_at(doc, 1), "2001:db8::5"));
	assert_string_equal(static_at(doc, 2), extra[0]);
	assert_string_equal(static_at(doc, 3), extra[1]);
	assert_string_equal(static_at(doc, 4),
	    "/dns4/relay.example.org/tcp/4001/p2p/" PID_C);
	cJSON_Delete(doc);
	inventory_free(inv);
}

static void
test_ports_are_strings_and_contract_keys(void **state)
{
	struct inventory *inv = load();
	cJSON *doc = render_a(inv, NULL, 0);
	const char *keys[] = { "port", "tcpport", "udpport", "cleanslate",
		"reachability", "bootstrap", "security", "scalability",
		"billing", "bench" };
	const cJSON *item;
	size_t i = 0;

	cJSON_ArrayForEach(item, doc) {
		assert_true(i < sizeof keys / sizeof *keys);
		assert_string_equal(item->string, keys[i++]);
	}
	assert_int_equal(i, sizeof keys / sizeof *keys);
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(doc,
	    "port")), "19090");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(doc,
	    "tcpport")), "19091");
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(doc,
	    "udpport")), "19092");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(doc, "cleanslate")));
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(doc,
	    "reachability")), "auto");
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(doc,
	    "security"), "require_signed_binary")));
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(doc,
	    "scalability"), "swim_enabled")));
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(cJSON_GetObjectItem(doc,
	    "billing"), "enabled")));
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(
	    cJSON_GetObjectItem(doc, "bench"), "run_id")),
	    "2026-11-30T19-20-48-f1672b");
	cJSON_Delete(doc);
	inventory_free(inv);
}

/* A tab-indented document makes the real node fall back to its defaults. */
static void
test_indented_with_spaces_no_tab(void **state)
{
	struct inventory *inv = load();
	struct bench_cfg_peer peer = { &inv->machines[0], 19091, PID_B };
	struct bench_cfg c = { .run_id = "r\tx", .http_port = 19090,
		.libp2p_port = 19091, .peers = &peer, .n_peers = 1 };
	char *text = bench_cfg_render(&c);
	cJSON *doc = cJSON_Parse(text);

	assert_null(strchr(text, '\t'));
	assert_non_null(strstr(text, "\n  \"port\": \"19090\",\n"));
	assert_non_null(strstr(text, "\n    \"static\": [\""));
	assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItem(
	    cJSON_GetObjectItem(doc, "bench"), "run_id")), "r\tx");
	cJSON_Delete(doc);
	free(text);
	inventory_free(inv);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_multiaddr_dns4_for_names_ip6_for_ipv6),
		cmocka_unit_test(test_multiaddr_ip4_for_dotted_literal),
		cmocka_unit_test(test_circuits_through_relays_and_reachability),
		cmocka_unit_test(test_bootstrap_order_peers_options_then_machine),
		cmocka_unit_test(test_ports_are_strings_and_contract_keys),
		cmocka_unit_test(test_indented_with_spaces_no_tab),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
