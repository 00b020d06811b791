/*
 * bench_path_infer(): a record's path from what the node reported
 * (connectedness, open circuits) and the reach checks (a TCP connect each
 * way), one case per rule of docs/otela-node.md's "How netprof knows the
 * path": Limited is a relay (reported); a source that dials the target's
 * address runs direct; the target's own dial, with no circuit open, is
 * direct; no TCP either way with no circuit open and a punch that got
 * through is a punched hole, else a relay; a probe that had no connection before ran over
 * what its own dial made; nothing known is unknown; a failed probe keeps
 * what the network said; a pair that could dial direct, with circuits
 * open at both ends, whose fastest round trip is far over the direct
 * handshake's, ran over a circuit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bench_path.h"

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
	/* connected, no circuit at one end, and the punch got through: a
	   punched hole */
	in = pair(&dropped, &refused, BENCH_CONN_CONNECTED, 2, 0);
	in.punched = 1;
	expect(in, BENCH_PATH_PUNCHED, 0, "no circuit open at h3");
	/* the same without a punch that got through (the real node's
	   metrics once showed no circuit at a relayed pair's end): relayed */
	expect(pair(&dropped, &refused, BENCH_CONN_CONNECTED, 2, 0),
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
	/* no circuit at h3: whatever the time, nothing else was there */
	in = pair(&ok_, &refused, BENCH_CONN_CONNECTED, 2, 0);
	in.handshake_ms = 20.3;
	in.rtt_ms = 62.4;
	expect(in, BENCH_PATH_DIRECT, 0, "direct: h1 dials");
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(limited_is_relayed_as_reported),
		cmocka_unit_test(a_source_that_dials_runs_direct),
		cmocka_unit_test(the_targets_own_dial_is_direct),
		cmocka_unit_test(no_tcp_either_way_is_relayed_or_punched),
		cmocka_unit_test(a_round_trip_far_over_the_handshake_is_relayed),
		cmocka_unit_test(what_does_not_tell_is_unknown),
		cmocka_unit_test(a_failed_probe_keeps_what_the_network_said),
		cmocka_unit_test(connectedness_words),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
