/*
 * The nodes' own counters (bench_counters.c): go-libp2p's GET /metrics
 * text read into the counters that speak of paths (the real registry's
 * labels and HELP lines, series that have not counted), their deltas as
 * run.json keeps them, and the checks of a record's path against them: a
 * relayed pair neither of whose ends had a circuit through the sweep (the
 * real node counts a circuit only where it was dialled), a relay that
 * relayed none, a hole punch no end counted, a circuit opened where a
 * punched pair had none; nothing said where they agree or are not known;
 * and the records written before the second read amended where they
 * disagree, every other byte of the file as it was.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bench.h"
#include "bench_counters.h"
#include "bench_path.h"
#include "file.h"
#include "inventory.h"
#include "json_write.h"
#include "util.h"

/* As the real node's registry writes it (go-libp2p's names and labels). */
static const char real[] =
    "# HELP libp2p_swarm_connections_opened_total Connections Opened\n"
    "# TYPE libp2p_swarm_connections_opened_total counter\n"
    "libp2p_swarm_connections_opened_total{dir=\"inbound\",early_muxer="
    "\"false\",ip_version=\"ip4\",muxer=\"/yamux/1.0.0\",security="
    "\"/noise\",transport=\"tcp\"} 7\n"
    "libp2p_swarm_connections_opened_total{dir=\"outbound\",early_muxer="
    "\"false\",ip_version=\"ip4\",muxer=\"/yamux/1.0.0\",security="
    "\"/noise\",transport=\"p2p-circuit\"} 3\n"
    "libp2p_swarm_connections_opened_total{dir=\"inbound\",early_muxer="
    "\"false\",ip_version=\"ip4\",muxer=\"/yamux/1.0.0\",security="
    "\"/noise\",transport=\"p2p-circuit\"} 2\n"
    "libp2p_swarm_connections_closed_total{dir=\"outbound\",early_muxer="
    "\"false\",ip_version=\"ip4\",muxer=\"/yamux/1.0.0\",security="
    "\"/noise\",transport=\"p2p-circuit\"} 1\n"
    "# HELP libp2p_relaysvc_connections_total Relay Connection Total\n"
    "libp2p_relaysvc_connections_total{type=\"closed\"} 4\n"
    "libp2p_relaysvc_connections_total{type=\"opened\"} 6\n"
    "libp2p_relaysvc_data_transferred_bytes_total 1.048576e+06\n"
    "libp2p_relaysvc_reservations_total{type=\"opened\"} 2\n"
    "libp2p_relaysvc_reservations_total{type=\"renewed\"} 9\n"
    "libp2p_holepunch_direct_dials_total{outcome=\"failed\"} 1\n"
    "libp2p_holepunch_outcomes_total{num_attempts=\"1\",outcome=\"success\""
    ",side=\"receiver\"} 2\n"
    "libp2p_holepunch_outcomes_total{num_attempts=\"3\",outcome=\"failed\","
    "side=\"initiator\"} 1\n"
    "libp2p_holepunch_outcomes_total{num_attempts=\"4\",outcome="
    "\"no_suitable_address\",side=\"initiator\"} 0\n"
    "libp2p_holepunch_address_outcomes_total{ipv=\"ip4\",num_attempts="
    "\"1\",outcome=\"success\",side=\"receiver\",transport=\"tcp\"} 5\n";

static void
test_read(void **state)
{
	struct bench_counters c;

	(void)state;
	assert_int_equal(bench_counters_read(real, sizeof real - 1, &c), 1);
	assert_true(c.taken && c.relay && c.holepunch);
	assert_true(c.circuits_opened == 5 && c.circuits_closed == 1);
	assert_true(bench_counters_open(&c) == 4);
	assert_true(c.relay_opened == 6 && c.relay_closed == 4);
	assert_true(c.relay_bytes == 1048576 && c.relay_reservations == 2);
	/* the outcomes overall, not by address */
	assert_true(c.punch[BENCH_HP_SUCCESS] == 2);
	assert_true(c.punch[BENCH_HP_FAILED] == 1);
	assert_true(c.punch[BENCH_HP_NO_ADDRESS] == 0);
	assert_true(c.punch[BENCH_HP_DIAL_FAILED] == 1);
	assert_true(c.punch[BENCH_HP_DIAL_SUCCESS] == 0);
}

static void
test_read_absent(void **state)
{
	static const char other[] = "# a node of another kind\n"
	    "go_goroutines 12\nlibp2p_swarm_connections_opened_totals 3\n";
	static const char bare[] =
	    "libp2p_swarm_connections_opened_total{transport=\"tcp\"} 2\n";
	static const char registered[] =
	    "libp2p_swarm_connections_opened_total{transport=\"tcp\"} 2\n"
	    "# TYPE libp2p_relaysvc_status gauge\nlibp2p_relaysvc_status 0\n";
	struct bench_counters c;

	(void)state;
	assert_int_equal(bench_counters_read(other, sizeof other - 1, &c), 0);
	assert_false(c.taken);
	/* swarm counters but no circuit yet, no relay service, no tracer */
	assert_int_equal(bench_counters_read(bare, sizeof bare - 1, &c), 1);
	assert_true(c.taken && !c.relay && !c.holepunch);
	assert_true(c.circuits_opened == 0 && bench_counters_open(&c) == 0);
	/* the relay service registered, nothing relayed yet: 0, not absent */
	assert_int_equal(bench_counters_read(registered,
	    sizeof registered - 1, &c), 1);
	assert_true(c.relay && c.relay_opened == 0 && c.relay_bytes == 0);
}

static void
test_json(void **state)
{
	struct bench_counters a = { .taken = 1, .relay = 1, .holepunch = 1,
	    .circuits_opened = 3, .circuits_closed = 1, .relay_opened = 2,
	    .relay_bytes = 100, .relay_reservations = 2 };
	struct bench_counters z = a, none = { 0 };
	char *text;
	cJSON *o;

	(void)state;
	z.circuits_opened = 5;
	z.circuits_closed = 2;
	z.relay_opened = 4;
	z.relay_bytes = 1124;
	z.punch[BENCH_HP_SUCCESS] = 1;
	o = bench_counters_json(&a, &z);
	assert_non_null(o);
	json_sort_keys(o);
	text = json_print(o, 0);
	assert_string_equal(text, "{\"circuits_closed\": 1, "
	    "\"circuits_open_before\": 2, \"circuits_opened\": 2, "
	    "\"holepunch_since_start\": {\"direct_dial_failed\": 0, "
	    "\"direct_dial_success\": 0, \"failed\": 0, "
	    "\"no_suitable_address\": 0, \"success\": 1}, \"relay_bytes\": "
	    "1024, "
	    "\"relay_circuits_served\": 2, \"relay_reservations\": 0}");
	free(text);
	cJSON_Delete(o);
	/* a read missing: no deltas */
	assert_null(bench_counters_json(&a, &none));
	assert_null(bench_counters_json(&none, &z));
}

/* Counters of one end: circuits open before, opened during the sweep. */
static void
end(struct bench_counters *b, struct bench_counters *a, double open,
    double opened)
{
	memset(b, 0, sizeof *b);
	b->taken = 1;
	b->circuits_opened = 2 + open;
	b->circuits_closed = 2;
	*a = *b;
	a->circuits_opened += opened;
}

static void
test_relayed(void **state)
{
	struct bench_counters sb, sa, tb, ta, rb, ra;
	struct bench_counters_end s = { "h1", &sb, &sa }, t = { "h3", &tb, &ta };
	struct bench_counters_end r = { "relay1", &rb, &ra };
	struct bench_counters_end unread = { "h2", NULL, NULL };
	char *n;

	(void)state;
	/* circuits at both ends (one open before, one opened): agreed */
	end(&sb, &sa, 1, 0);
	end(&tb, &ta, 0, 1);
	assert_null(bench_counters_disagree("relayed", &s, &t, NULL, 0));
	/* the target never counted one: the source dialled it, and
	   go-libp2p counts a circuit it accepts under transport tcp (seen:
	   h1, Connected to h3 only through the relay, no p2p-circuit series
	   at all; metrics_real_circuit_target.txt) */
	end(&tb, &ta, 0, 0);
	assert_null(bench_counters_disagree("relayed", &s, &t, NULL, 0));
	/* neither end had one */
	end(&sb, &sa, 0, 0);
	n = bench_counters_disagree("relayed", &s, &t, NULL, 0);
	assert_string_equal(n, "counters disagree: neither h1 nor h3 had a "
	    "circuit open at the sweep's start or opened one during it");
	free(n);
	end(&sb, &sa, 1, 0);
	/* an end not read cannot tell; a relay that relayed none can */
	end(&tb, &ta, 0, 2);
	end(&rb, &ra, 0, 0);
	rb.relay = ra.relay = 1;
	rb.relay_opened = ra.relay_opened = rb.relay_closed = ra.relay_closed =
	    3;
	assert_null(bench_counters_disagree("relayed", &s, &unread, NULL, 0));
	n = bench_counters_disagree("relayed", &s, &t, &r, 0);
	assert_string_equal(n, "counters disagree: relay1, named its relay, "
	    "relayed no circuit at the sweep's start or during it");
	free(n);
	ra.relay_opened = 4;	/* it relayed one during the sweep */
	assert_null(bench_counters_disagree("relayed", &s, &t, &r, 0));
	/* direct is never checked */
	end(&sb, &sa, 0, 0);
	assert_null(bench_counters_disagree("direct", &s, &t, &r, 0));
}

static void
test_punched(void **state)
{
	struct bench_counters sb, sa, tb, ta;
	struct bench_counters_end s = { "h1", &sb, &sa }, t = { "h3", &tb, &ta };
	char *n;

	(void)state;
	end(&sb, &sa, 0, 0);
	end(&tb, &ta, 0, 0);
	assert_null(bench_counters_disagree("hole-punched", &s, &t, NULL, 1));
	/* both tracers there, no punch counted, yet the punch step joined
	   them */
	sa.holepunch = ta.holepunch = 1;
	n = bench_counters_disagree("hole-punched", &s, &t, NULL, 1);
	assert_string_equal(n, "counters disagree: the punch step joined "
	    "them, yet neither h1 nor h3 counted a hole punch or direct dial "
	    "that succeeded");
	free(n);
	assert_null(bench_counters_disagree("hole-punched", &s, &t, NULL, 0));
	ta.punch[BENCH_HP_SUCCESS] = 1;
	assert_null(bench_counters_disagree("hole-punched", &s, &t, NULL, 1));
	/* none open at h1's start, some opened, and h3 had one */
	end(&sb, &sa, 0, 2);
	end(&tb, &ta, 1, 0);
	n = bench_counters_disagree("hole-punched", &s, &t, NULL, 0);
	assert_string_equal(n, "counters disagree: h1 opened circuits during "
	    "the sweep with none open at its start, and h3 had one: the pair "
	    "may have run over one");
	free(n);
	/* the other end had none at all: the pair's was not one */
	end(&tb, &ta, 0, 0);
	assert_null(bench_counters_disagree("hole-punched", &s, &t, NULL, 0));
}

#define NOTE(s, t) "counters disagree: neither " s " nor " t " had a " \
	"circuit open at the sweep's start or opened one during it"

static void
test_amend(void **state)
{
	static const char lines[] =
	    "{\"kind\": \"libp2p_ping\", \"path\": \"relayed\", "
	    "\"path_evidence\": \"relayed: no direct TCP connection\", "
	    "\"relay\": null, \"source\": \"h1\", \"target\": \"h2\", "
	    "\"v\": 1.0}\n"
	    "{\"kind\": \"latency\", \"path\": \"direct\", "
	    "\"path_evidence\": \"direct\", \"source\": \"h2\", \"target\": "
	    "\"h1\"}\n"
	    "{\"kind\": \"latency\", \"path\": \"relayed\", "
	    "\"path_evidence\": null, \"source\": \"h2\", \"target\": "
	    "\"h1\"}\n";
	struct inventory *inv = NULL;
	struct bench_path_host ph[2];
	struct bench_host hosts[2];
	struct bench_task task = { .src = 0, .dst = 1, .state = 2,
	    .path = BENCH_PATH_RELAYED, .relay = -1 };
	struct bench b;
	char dir[] = "/tmp/test_bench_counters.XXXXXX", *text, *cause = NULL;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(inventory_parse("{\"machines\": [{\"name\": \"h1\","
	    " \"address\": \"198.18.0.2\"}, {\"name\": \"h2\", \"address\":"
	    " \"198.18.0.3\"}]}", "m.json", &inv, &cause), 0);
	memset(&b, 0, sizeof b);
	memset(hosts, 0, sizeof hosts);
	memset(ph, 0, sizeof ph);
	b.n = 2;
	b.hosts = hosts;
	b.records_path = str_printf("%s/measurements.jsonl", dir);
	hosts[0].m = &inv->machines[0];
	hosts[1].m = &inv->machines[1];
	hosts[0].path = &ph[0];
	hosts[1].path = &ph[1];
	end(&hosts[0].counters[0], &hosts[0].counters[1], 1, 0);
	end(&hosts[1].counters[0], &hosts[1].counters[1], 1, 0);
	/* agreed: the file is not touched */
	b.task_sets[BENCH_SWEEP] = &task;
	b.n_task_sets[BENCH_SWEEP] = 1;
	assert_int_equal(bench_counters_amend(&b, bench_path_punched, &cause), 0);
	assert_int_equal(access(b.records_path, F_OK), -1);
	assert_int_equal(file_write_atomic(b.records_path, lines,
	    sizeof lines - 1, 0644, &cause), 0);
	/* h2 never had a circuit: h1's was theirs */
	end(&hosts[1].counters[0], &hosts[1].counters[1], 0, 0);
	assert_int_equal(bench_counters_amend(&b, bench_path_punched, &cause), 0);
	assert_int_equal(file_read(b.records_path, &text, NULL, &cause), 0);
	assert_string_equal(text, lines);
	free(text);
	/* nor h1: both relayed records say so */
	end(&hosts[0].counters[0], &hosts[0].counters[1], 0, 0);
	assert_int_equal(bench_counters_amend(&b, bench_path_punched, &cause), 0);
	assert_int_equal(file_read(b.records_path, &text, NULL, &cause), 0);
	assert_string_equal(text, "{\"kind\": \"libp2p_ping\", \"path\": "
	    "\"relayed\", \"path_evidence\": \"relayed: no direct TCP "
	    "connection; " NOTE("h1", "h2") "\", \"relay\": null, \"source\": \"h1\", "
	    "\"target\": \"h2\", \"v\": 1.0}\n"
	    "{\"kind\": \"latency\", \"path\": \"direct\", "
	    "\"path_evidence\": \"direct\", \"source\": \"h2\", \"target\": "
	    "\"h1\"}\n"
	    "{\"kind\": \"latency\", \"path\": \"relayed\", "
	    "\"path_evidence\": \"" NOTE("h2", "h1") "\", \"source\": \"h2\", \"target\": "
	    "\"h1\"}\n");
	free(text);
	unlink(b.records_path);
	rmdir(dir);
	free(b.records_path);
	inventory_free(inv);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read),
		cmocka_unit_test(test_read_absent),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_relayed),
		cmocka_unit_test(test_punched),
		cmocka_unit_test(test_amend),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
