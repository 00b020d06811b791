/*
 * bench_path_infer(): a record's path from what the node reported
 * (connectedness, open circuits) and the reach checks (a TCP connect each
 * way), one case per rule of docs/otela-node.md's "How netprof knows the
 * path": Limited is a relay (reported); a source that dials the target's
 * address runs direct; the target's own dial, with no circuit open, is
 * direct; no TCP either way with no circuit open at either end is a
 * punched hole (the punch step's, or the nodes' own dials that met), with
 * a circuit open at one end a relay (the real node counts a circuit only
 * at the end that dialled it: its answers, read from fixtures, say so); a
 * probe that had no connection before ran over
 * what its own dial made; nothing known is unknown; a failed probe keeps
 * what the network said; a pair that could dial direct, with a circuit
 * open at an end, whose fastest round trip is nearer its legs through
 * the relay than the direct handshake plus the run's inflation, or with no
 * legs far over the direct handshake's, ran over a circuit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bench.h"
#include "bench_counters.h"
#include "bench_path.h"
#include "fixture.h"
#include "node_json.h"

#define T "12D3KooWNRmbXhUyjhq7y3nC3Ycy7ZwjPKk42r2Db4XLsFhVfz13"
#define PEER_R "12D3KooWDnZnC1cp9rfnCFGZEmdE7frZs2HZpgkpmdGhhPS3f3Wk"
#define PEER_S "12D3KooWD7H1mwxrpMEfQrMd5v8V15Y7n2bdQw41qxWdsgYpK7oU"
#define PEER_T "12D3KooWCgKn4dJv1ofWUKzHqdo3XcEC7yreF6UPVZRU8kHgHoNj"

static const struct bench_reach ok_ = { .tcp = 1 };
static const struct bench_reach refused = { .tcp = 0,
	.why = (char *)"Connection refused" };
static const struct bench_reach dropped = { .tcp = 0,
	.why = (char *)"no answer in 5 s" };
static const struct bench_reach unchecked = { .tcp = -1 };

/* h1 (198.18.0.2) probing h3 (198.19.0.4), as bench describes them. */
static struct bench_path_in
pair(const struct bench_reach *st, const struct bench_reach *ts,
    enum bench_conn conn, long cs, long ct)
{
	struct bench_path_in in = {
		.source = "h1", .target = "h3",
		.source_at = "198.18.0.2:19091", .target_at = "198.19.0.4:19091",
		.ok = 1, .st = st, .ts = ts, .conn = conn,
		.circuits_s = cs, .circuits_t = ct,
	};

	return in;
}

/* infer, check class and how known, and that the evidence holds want */
static void
expect(struct bench_path_in in, enum bench_path_class path, int reported,
    const char *want)
{
	struct bench_path_out out;

	assert_int_equal(bench_path_infer(&in, &out), 0);
	assert_int_equal(out.path, path);
	assert_int_equal(out.reported, reported);
	if (want == NULL)
		assert_null(out.evidence);
	else {
		assert_non_null(out.evidence);
		if (strstr(out.evidence, want) == NULL)
			fail_msg("evidence '%s' lacks '%s'", out.evidence, want);
	}
	free(out.evidence);
}

static void
limited_is_relayed_as_reported(void **state)
{
	(void)state;
	/* whatever the network says: only a limited circuit joins them */
	expect(pair(&ok_, &ok_, BENCH_CONN_LIMITED, 1, 1), BENCH_PATH_RELAYED,
	    1, "h1's connectedness to h3: Limited");
}

static void
a_source_that_dials_runs_direct(void **state)
{
	(void)state;
	expect(pair(&ok_, &refused, BENCH_CONN_CONNECTED, 2, 2),
	    BENCH_PATH_DIRECT, 0, "h1 \xe2\x86\x92 198.19.0.4:19091 connects");
	/* not connected before: the probe's dial took the address */
	expect(pair(&ok_, &dropped, BENCH_CONN_NONE, 0, 0), BENCH_PATH_DIRECT,
	    0, "NotConnected before the probe");
}

static void
the_targets_own_dial_is_direct(void **state)
{
	(void)state;
	/* h1 behind a firewall, h3 open: h3's dial, no circuit at h1 */
	expect(pair(&dropped, &ok_, BENCH_CONN_CONNECTED, 0, 3),
	    BENCH_PATH_DIRECT, 0, "opened by h3's own dial");
	/* circuits open at both ends: still direct, but only likely */
	expect(pair(&dropped, &ok_, BENCH_CONN_CONNECTED, 1, 1),
	    BENCH_PATH_DIRECT, 0, "circuits open");
}

static void
no_tcp_either_way_is_relayed_or_punched(void **state)
{
	struct bench_path_in in;

	(void)state;
	expect(pair(&dropped, &refused, BENCH_CONN_CONNECTED, 2, 1),
	    BENCH_PATH_RELAYED, 0, "no direct TCP connection either way");
	/* connected, no circuit at either end, and the punch got through:
	   a punched hole */
	in = pair(&dropped, &refused, BENCH_CONN_CONNECTED, 0, 0);
	in.punched = 1;
	expect(in, BENCH_PATH_PUNCHED, 0, "no circuit open at h1 or h3");
	/* the same without a punch that got through: their own dials met
	   (seen with the real node on two firewalled sites: no circuit
	   anywhere, no relay_peer, and conntrack ESTABLISHED between the two
	   listen ports while the reach checks' SYNs from a new port went
	   unanswered), not a relay */
	expect(pair(&dropped, &refused, BENCH_CONN_CONNECTED, 0, 0),
	    BENCH_PATH_PUNCHED, 0, "the two nodes' own dials from their "
	    "listen ports met");
	/* a circuit at one end only: the one it dialled, which the other
	   end does not count (see real_node_counts_a_circuit_where_dialled) */
	in = pair(&dropped, &refused, BENCH_CONN_CONNECTED, 2, 0);
	in.punched = 1;
	expect(in, BENCH_PATH_RELAYED, 0, "so the connection is a circuit");
	expect(pair(&dropped, &refused, BENCH_CONN_CONNECTED, 0, 1),
	    BENCH_PATH_RELAYED, 0, "so the connection is a circuit");
	/* circuits open at both ends: a relay */
	expect(pair(&dropped, &refused, BENCH_CONN_CONNECTED, 1, 1),
	    BENCH_PATH_RELAYED, 0, "no direct TCP connection either way");
	/* not connected before, and the source cannot dial: a circuit */
	expect(pair(&dropped, &refused, BENCH_CONN_NONE, -1, -1),
	    BENCH_PATH_RELAYED, 0, "not connected before the probe");
	/* no view of the node: the network alone */
	expect(pair(&dropped, &refused, BENCH_CONN_UNKNOWN, -1, -1),
	    BENCH_PATH_RELAYED, 0, "h3 \xe2\x86\x92 198.18.0.2:19091 fails "
	    "(Connection refused)");
}

/*
 * h4 (behind a NAT) to h5 (open) on the real node: h4 reaches h5's port,
 * but h5 dialled first, through the relay, and the swarm kept that
 * circuit: 62 ms against a 20 ms handshake is not direct. With no circuit
 * open at an end, or a round trip near the handshake, or either unknown,
 * the rule does not apply.
 */
static void
a_round_trip_far_over_the_handshake_is_relayed(void **state)
{
	struct bench_path_in in;

	(void)state;
	in = pair(&ok_, &refused, BENCH_CONN_CONNECTED, 2, 1);
	in.handshake_ms = 20.3;
	in.rtt_ms = 62.4;
	expect(in, BENCH_PATH_RELAYED, 0, "fastest round trip through the "
	    "nodes, 62.4 ms, is more than twice the direct TCP handshake's "
	    "20.3 ms plus 10 ms");
	/* the other way: the target's dial is the only direct one */
	in = pair(&refused, &ok_, BENCH_CONN_CONNECTED, 1, 2);
	in.handshake_ms = 20.3;
	in.rtt_ms = 62.4;
	expect(in, BENCH_PATH_RELAYED, 0, "it ran over a circuit");
	/* just under the bound: direct (2 x 20.3 + 10 = 50.6) */
	in.rtt_ms = 50.5;
	expect(in, BENCH_PATH_DIRECT, 0, "circuits open");
	/* a slow node on a LAN pair: 9 ms against 0.1 ms stays direct */
	in = pair(&ok_, &ok_, BENCH_CONN_CONNECTED, 1, 1);
	in.handshake_ms = 0.1;
	in.rtt_ms = 9.0;
	expect(in, BENCH_PATH_DIRECT, 0, "direct: h1 dials");
	/* no circuit at either end: whatever the time, nothing else was
	   there */
	in = pair(&ok_, &refused, BENCH_CONN_CONNECTED, 0, 0);
	in.handshake_ms = 20.3;
	in.rtt_ms = 62.4;
	expect(in, BENCH_PATH_DIRECT, 0, "direct: h1 dials");
	/* one at h1 only: h1 may have dialled h3's circuit */
	in = pair(&ok_, &refused, BENCH_CONN_CONNECTED, 2, 0);
	in.handshake_ms = 20.3;
	in.rtt_ms = 62.4;
	expect(in, BENCH_PATH_RELAYED, 0, "it ran over a circuit");
	/* no handshake time (a bash before 5.0), or no round trip */
	in = pair(&ok_, &refused, BENCH_CONN_CONNECTED, 2, 1);
	in.rtt_ms = 62.4;
	expect(in, BENCH_PATH_DIRECT, 0, "direct: h1 dials");
	in.rtt_ms = 0;
	in.handshake_ms = 20.3;
	expect(in, BENCH_PATH_DIRECT, 0, "direct: h1 dials");
	/* what the node reports is not overruled */
	in = pair(&ok_, &ok_, BENCH_CONN_LIMITED, 1, 1);
	in.handshake_ms = 20.3;
	in.rtt_ms = 62.4;
	expect(in, BENCH_PATH_RELAYED, 1, "Limited");
}

/*
 * Under load the nodes' round trips stretch (their own time) and the
 * kernel's handshake does not: h1 and h2 are 0.1 ms apart, the relay 20 ms
 * from each. A direct pair at 15 ms is nearer its direct prediction than
 * its legs' 40 ms; with no legs, the run's inflation (its direct pairs'
 * round trips over their handshakes) lifts the bound; legs far above a
 * 20 ms pair at 45 ms keep it direct.
 */
static void
a_loaded_direct_pair_stays_direct(void **state)
{
	struct bench_path_in in;

	(void)state;
	in = pair(&ok_, &ok_, BENCH_CONN_CONNECTED, 2, 2);
	in.handshake_ms = 0.1;
	in.rtt_ms = 15.0;
	in.legs_ms[0] = 20.2;
	in.legs_ms[1] = 20.4;
	expect(in, BENCH_PATH_DIRECT, 0, "its fastest round trip, 15.0 ms, "
	    "against 0.1 ms direct (handshake 0.1 ms, no inflation known) and "
	    "40.6 ms through its relay");
	/* no legs: over twice the handshake plus 10 ms, but not once the
	   run's inflation is added */
	in.legs_ms[0] = in.legs_ms[1] = 0;
	expect(in, BENCH_PATH_RELAYED, 0, "0.1 ms plus 10 ms (no inflation "
	    "known)");
	in.excess_ms = 12.0;
	expect(in, BENCH_PATH_DIRECT, 0, "against 12.1 ms direct (handshake "
	    "0.1 ms, the run's inflation 12.0 ms)");
	/* a 20 ms pair at 45 ms, its legs measured at 100 ms */
	in = pair(&ok_, &refused, BENCH_CONN_CONNECTED, 2, 1);
	in.handshake_ms = 20.3;
	in.rtt_ms = 45.0;
	in.legs_ms[0] = 60.0;
	in.legs_ms[1] = 40.0;
	in.legs_measured = 1;
	expect(in, BENCH_PATH_DIRECT, 0, "and 100.0 ms through its relay");
}

/*
 * h2 and h5 0.2 ms apart, yet 43.3 ms: h5's first connection was the
 * circuit through the relay, whose legs are 21.1 and 21.2 ms. Relayed by
 * its measured legs, and by their handshakes plus the run's inflation
 * when the legs have not run yet; a circuit pair under load too.
 */
static void
a_circuit_pair_at_its_legs_is_relayed(void **state)
{
	struct bench_path_in in;

	(void)state;
	in = pair(&ok_, &refused, BENCH_CONN_CONNECTED, 2, 2);
	in.handshake_ms = 0.2;
	in.rtt_ms = 43.3;
	in.legs_ms[0] = 21.1;
	in.legs_ms[1] = 21.2;
	in.legs_measured = 1;
	expect(in, BENCH_PATH_RELAYED, 0, "43.3 ms, is nearer the 42.3 ms "
	    "through its relay (legs 21.1 + 21.2 ms through the nodes) than "
	    "0.2 ms direct");
	in.legs_ms[0] = 20.1;
	in.legs_ms[1] = 20.2;
	in.legs_measured = 0;
	in.excess_ms = 1.5;
	expect(in, BENCH_PATH_RELAYED, 0, "(legs 20.1 + 20.2 ms, TCP "
	    "handshakes, plus the inflation) than 1.7 ms direct (handshake "
	    "0.2 ms, the run's inflation 1.5 ms)");
	/* loaded: direct 20.3 + 8 ms, through the relay 40.5 + 20.2 + 8 */
	in.handshake_ms = 20.3;
	in.excess_ms = 8.0;
	in.legs_ms[0] = 40.5;
	in.legs_ms[1] = 20.2;
	in.rtt_ms = 70.0;
	expect(in, BENCH_PATH_RELAYED, 0, "it ran over a circuit");
	/* within 10 ms of direct is direct, whatever the legs */
	in.legs_ms[0] = in.legs_ms[1] = 10.0;
	in.rtt_ms = 37.0;
	expect(in, BENCH_PATH_DIRECT, 0, "28.3 ms direct");
}

/* A node's open circuits as bench reads them from its GET /metrics. */
static long
circuits_in(const char *fixture)
{
	char *text = fixture_read("node", fixture);
	struct bench_counters c;

	assert_int_equal(bench_counters_read(text, strlen(text), &c), 1);
	free(text);
	return (long)bench_counters_open(&c);
}

/*
 * The real node on a lab of a firewalled site (h1), a symmetric NAT's
 * (h3) and an open host (h5), a public relay: h1 had TCP connections to
 * the relay and its site's other host only, yet was Connected to h3 and
 * h5. Its /metrics counts no circuit (an accepted circuit goes under
 * transport "tcp"); h3's counts the one it dialled. Neither reaches the
 * other's port, and their round trip (64 ms) is the legs' (42 + 21), not
 * the 20 ms of a direct path: relayed, both ways, not hole-punched. h1
 * reaches h5's port (a 25.5 ms handshake), yet h5 had dialled h1's
 * circuit first: 43.3 ms, the legs' 21.9 + 21.8.
 */
static void
real_node_counts_a_circuit_where_dialled(void **state)
{
	long h1 = circuits_in("metrics_real_circuit_target.txt");
	long h3 = circuits_in("metrics_real_circuit_source.txt");
	struct bench_reach h3_h1 = { .tcp = 0,
		.why = (char *)"no answer in 5 s" };
	struct bench_reach h1_h3 = { .tcp = 0,
		.why = (char *)"Network is unreachable" };
	struct bench_path_in in;

	(void)state;
	assert_int_equal(h1, 0);
	assert_int_equal(h3, 1);
	in = pair(&h3_h1, &h1_h3, bench_conn_of("Connected"), h3, h1);
	in.source = "h3";
	in.target = "h1";
	expect(in, BENCH_PATH_RELAYED, 0, "relayed: no direct TCP connection "
	    "either way, so the connection is a circuit (h3: Connected before "
	    "the probe, circuits open)");
	in = pair(&h1_h3, &h3_h1, bench_conn_of("Connected"), h1, h3);
	expect(in, BENCH_PATH_RELAYED, 0, "so the connection is a circuit");
	/* h1 -> h5: h5's circuits are the three it dialled */
	in = pair(&ok_, &dropped, bench_conn_of("Connected"), h1, 3);
	in.target = "h5";
	in.handshake_ms = 25.45;
	in.rtt_ms = 43.3;
	in.legs_ms[0] = 21.9;
	in.legs_ms[1] = 21.8;
	in.legs_measured = 1;
	expect(in, BENCH_PATH_RELAYED, 0, "nearer the 43.7 ms through its "
	    "relay");
}

/* ---- a record's path in a run: what it is held against --------------- */

#define RUN_HOSTS 3
#define RUN_TASKS 8

/* Hosts h1 h2 h3 and the --bootstrap relay; circuits open per host; h1's
   view of h2 names the relay (its circuit address). */
struct run {
	struct bench b;
	struct bench_host hosts[RUN_HOSTS];
	struct machine m[RUN_HOSTS];
	struct bench_path_host ph[RUN_HOSTS];
	struct bench_reach reach[RUN_HOSTS][RUN_HOSTS + 1];
	struct bench_peer_view h1_peers[1];
	struct bench_relay relay;
	struct bench_task tasks[RUN_TASKS];
};

static char *names[] = { "h1", "h2", "h3" };
static char *addrs[] = { "198.18.0.2", "198.18.0.3", "198.18.0.4" };
static char *ids[] = { PEER_S, PEER_T, T };

static void
run_init(struct run *r, const long circuits[RUN_HOSTS])
{
	size_t i, k;

	memset(r, 0, sizeof *r);
	r->relay = (struct bench_relay){ .name = (char *)"relay",
	    .address = (char *)"198.18.0.254", .port = 19091,
	    .peer_id = (char *)PEER_R };
	r->b.hosts = r->hosts;
	r->b.n = RUN_HOSTS;
	r->b.relays = &r->relay;
	r->b.n_relays = 1;
	r->b.pairs.tasks = r->tasks;
	for (i = 0; i < RUN_HOSTS; i++) {
		r->m[i].name = names[i];
		r->m[i].address = addrs[i];
		r->hosts[i] = (struct bench_host){ .b = &r->b, .m = &r->m[i],
		    .peer_id = ids[i], .libp2p_port = 19091,
		    .path = &r->ph[i] };
		r->ph[i].reach = r->reach[i];
		r->ph[i].views[0].taken = 1;
		r->ph[i].views[0].circuits = circuits[i];
		for (k = 0; k <= RUN_HOSTS; k++)
			r->reach[i][k].tcp = -1;
	}
	r->h1_peers[0] = (struct bench_peer_view){ .id = (char *)PEER_T,
	    .conn = BENCH_CONN_CONNECTED, .relay_peer = (char *)PEER_R,
	    .circuit = 1 };
	r->ph[0].views[0].peers = r->h1_peers;
	r->ph[0].views[0].n = 1;
	r->ph[0].views[0].status_read = 1;
}

/* from can dial to, its connect taking ms; or not (ms < 0) */
static void
run_reach(struct run *r, size_t from, size_t to, double ms)
{
	r->reach[from][to].tcp = ms >= 0;
	r->reach[from][to].connect_us = ms >= 0 ? (long)(ms * 1000) : 0;
}

/* A probe from src to dst whose fastest sample took min_ms, written: its
   path, and the evidence holding want. */
static void
run_probe(struct run *r, size_t src, size_t dst, double min_ms,
    const char *path, const char *want)
{
	struct bench_task *t = &r->tasks[r->b.pairs.n++];
	struct record rec = { 0 };
	char *evidence;
	cJSON *m = cJSON_CreateObject();

	*t = (struct bench_task){ .b = &r->b, .src = src, .dst = dst,
	    .rec = { .ok = 1 } };
	cJSON_AddNumberToObject(m, "min_ms", min_ms);
	assert_int_equal(record_set_metrics(&t->rec, m), 0);
	bench_path_record(&r->b, t, &rec, &evidence);
	record_finish_free(&t->rec);
	assert_non_null(evidence);
	assert_string_equal(rec.path, path);
	if (want != NULL && strstr(evidence, want) == NULL)
		fail_msg("evidence '%s' lacks '%s'", evidence, want);
	free(evidence);
}

/*
 * On a loaded lab (h1 -> h2: 7.6 ms handshake, through the relay 33.5 +
 * 22.6 ms): the pair's latency record at 36.1 ms, after its libp2p_ping at
 * 5.1 ms, is held against the pair's fastest, and stays direct.
 */
static void
a_slower_kind_does_not_make_a_pair_slow(void **state)
{
	static const long circuits[RUN_HOSTS] = { 2, 4, 0 };
	struct run r;

	(void)state;
	run_init(&r, circuits);
	run_reach(&r, 0, 1, 7.6);
	run_reach(&r, 1, 0, -1);
	run_reach(&r, 0, RUN_HOSTS, 33.5);
	run_reach(&r, 1, RUN_HOSTS, 22.6);
	run_probe(&r, 0, 1, 5.1, "direct", "its fastest round trip, 5.1 ms, "
	    "against 7.6 ms direct (handshake 7.6 ms, no inflation known) "
	    "and 56.1 ms through its relay");
	run_probe(&r, 0, 1, 36.1, "direct", "its fastest round trip, 5.1 ms");
}

/*
 * The run's inflation from the pairs only a direct connection can carry
 * (no circuit open at either end: h1 and h3): h3 -> h1 at 12.2 ms over a
 * 0.2 ms handshake.
 * h1 -> h2, 0.1 ms apart, at 15 ms is then direct. Legs through the
 * relay measured at 21.1 and 21.2 ms make h1 -> h2 at 43.3 ms relayed.
 */
static void
a_run_holds_its_pairs_against_its_inflation_and_legs(void **state)
{
	static const long circuits[RUN_HOSTS] = { 0, 2, 0 };
	struct run r;

	(void)state;
	run_init(&r, circuits);
	run_reach(&r, 2, 0, 0.2);
	run_reach(&r, 0, 1, 0.1);
	r.h1_peers[0].relay_peer = NULL;	/* no legs */
	run_probe(&r, 2, 0, 12.2, "direct", NULL);
	run_probe(&r, 0, 1, 15.0, "direct", "against 12.1 ms direct "
	    "(handshake 0.1 ms, the run's inflation 12.0 ms)");
	/* another run: the relay's legs measured from each host first */
	run_init(&r, circuits);
	run_reach(&r, 0, 1, 0.1);
	run_reach(&r, 0, RUN_HOSTS, 20.3);
	run_reach(&r, 1, RUN_HOSTS, 20.4);
	run_probe(&r, 0, RUN_HOSTS, 21.1, "direct", NULL);
	run_probe(&r, 1, RUN_HOSTS, 21.2, "direct", NULL);
	run_probe(&r, 0, 1, 43.3, "relayed", "nearer the 42.3 ms through its "
	    "relay (legs 21.1 + 21.2 ms through the nodes)");
}

static void
what_does_not_tell_is_unknown(void **state)
{
	struct bench_path_in in = pair(NULL, NULL, BENCH_CONN_UNKNOWN, -1,
	    -1);

	(void)state;
	expect(in, BENCH_PATH_UNKNOWN, 0, "no reach check and no node view");
	expect(pair(&unchecked, &unchecked, BENCH_CONN_CONNECTED, 1, 1),
	    BENCH_PATH_UNKNOWN, 0, "the checks do not tell");
	/* the source cannot dial, the way back was not checked */
	expect(pair(&dropped, NULL, BENCH_CONN_CONNECTED, 1, -1),
	    BENCH_PATH_UNKNOWN, 0, "unknown");
}

static void
a_failed_probe_keeps_what_the_network_said(void **state)
{
	struct bench_path_in in = pair(&dropped, &refused, BENCH_CONN_NONE,
	    0, 0);

	(void)state;
	in.ok = 0;
	expect(in, BENCH_PATH_UNKNOWN, 0, "only a relay can join them");
	in = pair(NULL, NULL, BENCH_CONN_NONE, 0, 0);
	in.ok = 0;
	expect(in, BENCH_PATH_UNKNOWN, 0, NULL);
	/* a limited circuit that reset (the throughput it cannot carry) */
	in = pair(&dropped, &refused, BENCH_CONN_LIMITED, 1, 1);
	in.ok = 0;
	expect(in, BENCH_PATH_RELAYED, 1, "Limited");
}

static void
connectedness_words(void **state)
{
	(void)state;
	assert_int_equal(bench_conn_of("Connected"), BENCH_CONN_CONNECTED);
	assert_int_equal(bench_conn_of("Limited"), BENCH_CONN_LIMITED);
	assert_int_equal(bench_conn_of("NotConnected"), BENCH_CONN_NONE);
	assert_int_equal(bench_conn_of("CanConnect"), BENCH_CONN_NONE);
	assert_int_equal(bench_conn_of(NULL), BENCH_CONN_UNKNOWN);
}

/* ---- the node's view ------------------------------------------------ */

static size_t compares;

static int
counted(const void *a, const void *b)
{
	compares++;
	return bench_view_cmp(a, b);
}

/* n peers "idNNNNN", from n - 1 down to 0, each with conn or relay */
static struct node_peer *
peers_down(size_t n, const char *conn, const char *relay)
{
	struct node_peer *p = calloc(n, sizeof *p);
	char id[16];
	size_t i;

	assert_non_null(p);
	for (i = 0; i < n; i++) {
		snprintf(id, sizeof id, "id%05zu", n - 1 - i);
		p[i].id = strdup(id);
		p[i].connectedness = conn != NULL ? strdup(conn) : NULL;
		p[i].relay_peer = relay != NULL ? strdup(relay) : NULL;
	}
	return p;
}

/* A node's table of 30,000 peers in descending order (4 MiB of answer):
   sorted once, n log n comparisons, not one insertion at a time (n^2/2,
   4.5e8, on the loop every host shares). */
static void
a_large_table_is_sorted_once(void **state)
{
	enum { N = 30000 };
	struct bench_view v = { .circuits = -1 };
	struct node_peer *p;
	const struct bench_peer_view *pv;
	size_t i, log2n = 0, bound;
	char id[16];

	(void)state;
	for (i = N; i > 1; i >>= 1)
		log2n++;
	bound = 3 * (size_t)N * (log2n + 1);	/* insertion: N * N / 2 */
	p = peers_down(N, "Connected", NULL);
	compares = 0;
	assert_int_equal(bench_view_take(&v, p, N, counted), 0);
	node_peers_free(p, N);
	if (compares > bound)
		fail_msg("%zu comparisons for %d peers (n log n: %zu)",
		    compares, N, bound);
	assert_int_equal(v.n, N);
	for (i = 0; i < N; i++) {
		snprintf(id, sizeof id, "id%05zu", i);
		assert_string_equal(v.peers[i].id, id);
		assert_int_equal(v.peers[i].conn, BENCH_CONN_CONNECTED);
	}
	/* the table over the status: an id once, each filled in */
	p = peers_down(N, NULL, PEER_R);
	compares = 0;
	assert_int_equal(bench_view_take(&v, p, N, counted), 0);
	node_peers_free(p, N);
	if (compares > 2 * bound)
		fail_msg("%zu comparisons for %d more peers", compares, N);
	assert_int_equal(v.n, N);
	for (i = 0; i < N; i++) {
		snprintf(id, sizeof id, "id%05zu", i);
		assert_non_null(pv = bench_view_peer(&v, id));
		assert_int_equal(pv->conn, BENCH_CONN_CONNECTED);
		assert_string_equal(pv->relay_peer, PEER_R);
	}
	bench_view_clear(&v);
}

/* An id the answer gives twice is kept once, its first entry filled in by
   the later ones (a hostile table's second relay does not replace the
   first). */
static void
an_id_twice_is_kept_once(void **state)
{
	struct node_peer p[4] = {
		{ .id = strdup("b"), .connectedness = strdup("Limited") },
		{ .id = strdup("a") },
		{ .id = strdup("b"), .connectedness = strdup("Connected") },
		{ .id = strdup("a"), .relay_peer = strdup(PEER_R) },
	};
	struct node_peer q[1] = {
		{ .id = strdup("a"), .relay_peer = strdup(PEER_S) },
	};
	struct bench_view v = { .circuits = -1 };
	size_t i;

	(void)state;
	assert_int_equal(bench_view_take(&v, p, 4, bench_view_cmp), 0);
	assert_int_equal(bench_view_take(&v, q, 1, bench_view_cmp), 0);
	assert_int_equal(v.n, 2);
	assert_string_equal(v.peers[0].id, "a");
	assert_string_equal(v.peers[0].relay_peer, PEER_R);
	assert_int_equal(v.peers[0].conn, BENCH_CONN_UNKNOWN);
	assert_string_equal(v.peers[1].id, "b");
	assert_int_equal(v.peers[1].conn, BENCH_CONN_LIMITED);
	for (i = 0; i < 4; i++)		/* what was not taken */
		free(p[i].connectedness);
	bench_view_clear(&v);
}

/* host's view `view' with target T's relay_peer relay */
static void
host_names(struct bench_path_host *h, int view, const char *relay)
{
	struct node_peer p = { .id = strdup(T), .relay_peer = strdup(relay) };

	assert_int_equal(bench_view_take(&h->views[view], &p, 1,
	    bench_view_cmp), 0);
	free(p.id);
	free(p.relay_peer);
}

/* A pair's relay comes from its own ends' tables: the source's (this
   view, then the first), else the destination's; no other node's table
   is asked, so a third node cannot name the relay of others' pairs. */
static void
a_pairs_relay_is_its_own_ends(void **state)
{
	struct bench_path_host s = { 0 }, d = { 0 };
	int w;

	(void)state;
	assert_null(bench_path_relay_peer(&s, &d, NULL, T, 1, NULL));
	host_names(&d, 0, PEER_S);
	assert_string_equal(bench_path_relay_peer(&s, &d, NULL, T, 1, NULL), PEER_S);
	assert_null(bench_path_relay_peer(&s, NULL, NULL, T, 1, NULL));
	host_names(&s, 0, PEER_R);
	assert_string_equal(bench_path_relay_peer(&s, &d, NULL, T, 1, NULL), PEER_R);
	host_names(&s, 1, PEER_T);
	assert_string_equal(bench_path_relay_peer(&s, &d, NULL, T, 1, NULL), PEER_T);
	assert_string_equal(bench_path_relay_peer(&s, &d, NULL, T, 0, NULL), PEER_R);
	assert_null(bench_path_relay_peer(&s, &d, NULL, PEER_R, 1, NULL));
	for (w = 0; w < BENCH_N_VIEWS; w++) {
		bench_view_clear(&s.views[w]);
		bench_view_clear(&d.views[w]);
	}
}

/* A source that knows no relay of the target's: their one connection is
   the target's dial of the source's circuit, whose relay the target's
   view names; the source's own knowledge of the target comes first. */
static void
the_sources_circuit_when_the_target_has_none(void **state)
{
	struct bench_path_host s = { 0 }, d = { 0 };
	struct node_peer src = { .id = strdup(PEER_S),
	    .relay_peer = strdup(PEER_R), .circuit = 1 };
	enum bench_relay_how how = BENCH_RELAY_TABLE;
	int w;

	(void)state;
	assert_int_equal(bench_view_take(&d.views[0], &src, 1,
	    bench_view_cmp), 0);
	assert_null(bench_path_relay_peer(&s, &d, NULL, T, 0, &how));
	assert_string_equal(bench_path_relay_peer(&s, &d, PEER_S, T, 0, &how),
	    PEER_R);
	assert_int_equal(how, BENCH_RELAY_SOURCE);
	host_names(&s, 0, PEER_T);
	assert_string_equal(bench_path_relay_peer(&s, &d, PEER_S, T, 0, &how),
	    PEER_T);
	assert_int_equal(how, BENCH_RELAY_TABLE);
	free(src.id);
	free(src.relay_peer);
	for (w = 0; w < BENCH_N_VIEWS; w++) {
		bench_view_clear(&s.views[w]);
		bench_view_clear(&d.views[w]);
	}
}

/* The relay of the target's circuit address in the source's peer store
   (the view's step before the table) is the pair's, whatever relay_peer
   the table names after it, and is said to be the circuit's; a table's
   relay_peer alone is said to be the table's. */
static void
circuit_relay_before_table(void **state)
{
	struct bench_path_host s = { 0 };
	struct node_peer c = { .id = strdup(T), .relay_peer = strdup(PEER_S),
	    .circuit = 1 };
	struct node_peer t = { .id = strdup(T), .relay_peer = strdup(PEER_R) };
	enum bench_relay_how how = BENCH_RELAY_SOURCE;
	int w;

	(void)state;
	assert_int_equal(bench_view_take(&s.views[0], &c, 1, bench_view_cmp),
	    0);
	assert_int_equal(bench_view_take(&s.views[0], &t, 1, bench_view_cmp),
	    0);
	assert_string_equal(bench_path_relay_peer(&s, NULL, NULL, T, 0, &how),
	    PEER_S);
	assert_int_equal(how, BENCH_RELAY_CIRCUIT);
	t.id = strdup(T);
	t.relay_peer = strdup(PEER_R);
	assert_int_equal(bench_view_take(&s.views[1], &t, 1, bench_view_cmp),
	    0);
	assert_string_equal(bench_path_relay_peer(&s, NULL, NULL, T, 1, &how),
	    PEER_R);
	assert_int_equal(how, BENCH_RELAY_TABLE);
	free(c.id);
	free(c.relay_peer);
	free(t.id);
	free(t.relay_peer);
	for (w = 0; w < BENCH_N_VIEWS; w++)
		bench_view_clear(&s.views[w]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(limited_is_relayed_as_reported),
		cmocka_unit_test(a_source_that_dials_runs_direct),
		cmocka_unit_test(the_targets_own_dial_is_direct),
		cmocka_unit_test(no_tcp_either_way_is_relayed_or_punched),
		cmocka_unit_test(a_round_trip_far_over_the_handshake_is_relayed),
		cmocka_unit_test(real_node_counts_a_circuit_where_dialled),
		cmocka_unit_test(a_loaded_direct_pair_stays_direct),
		cmocka_unit_test(a_circuit_pair_at_its_legs_is_relayed),
		cmocka_unit_test(a_slower_kind_does_not_make_a_pair_slow),
		cmocka_unit_test(a_run_holds_its_pairs_against_its_inflation_and_legs),
		cmocka_unit_test(what_does_not_tell_is_unknown),
		cmocka_unit_test(a_failed_probe_keeps_what_the_network_said),
		cmocka_unit_test(connectedness_words),
		cmocka_unit_test(a_large_table_is_sorted_once),
		cmocka_unit_test(an_id_twice_is_kept_once),
		cmocka_unit_test(a_pairs_relay_is_its_own_ends),
		cmocka_unit_test(circuit_relay_before_table),
		cmocka_unit_test(the_sources_circuit_when_the_target_has_none),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
