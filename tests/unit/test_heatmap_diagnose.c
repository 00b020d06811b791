/*
 * Each diagnosis rule of the heatmap on the fixture lab (collect,
 * measurements and run.json of four hosts, each failure pattern planted
 * once), the pairs it names, and that a clean upstream file triggers none
 * of the libp2p rules. Also the failures table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "fixture.h"
#include "heatmap.h"
#include "heatmap_diagnose.h"


struct lab {
	struct matrix *hm;
	struct diagnosis dx;
};

static struct lab *
lab_load(const char *const *names)
{
	struct lab *lab = calloc(1, sizeof *lab);

	assert_non_null(lab);
	lab->hm = matrix_new();
	for (; *names != NULL; names++)
		assert_int_equal(matrix_read(lab->hm, fixture_path("heatmap", *names), 0), 0);
	assert_int_equal(heatmap_build(lab->hm, MATRIX_LATEST, NULL), 0);
	assert_int_equal(heatmap_diagnose(lab->hm, &lab->dx), 0);
	return lab;
}

static int
setup_full(void **state)
{
	static const char *const names[] = { "collect.jsonl",
	    "measurements.jsonl", "run.json", NULL };

	*state = lab_load(names);
	return 0;
}

static int
teardown(void **state)
{
	struct lab *lab = *state;

	heatmap_diagnosis_free(&lab->dx);
	heatmap_diagnosis_free(&lab->dx);	/* a no-op the second time */
	matrix_free(lab->hm);
	free(lab);
	return 0;
}

/* The finding of rule, which must have exactly n items, one starting with want. */
static void
expect(const struct lab *lab, const char *rule, size_t n, const char *want)
{
	const struct finding *f = heatmap_diagnosis_find(&lab->dx, rule);
	size_t i;

	assert_non_null(f);
	assert_non_null(f->advice);
	assert_int_equal(f->nitems, n);
	for (i = 0; i < f->nitems; i++)
		if (strncmp(f->items[i], want, strlen(want)) == 0)
			return;
	fail_msg("%s: no item starts with \"%s\" (first: \"%s\")", rule, want,
	    f->items[0]);
}

static void
test_relay_reservation(void **state)
{
	expect(*state, "relay_reservation", 2, "delta -> beta: latency failed");
	expect(*state, "relay_reservation", 2,
	    "delta -> beta: throughput failed");
}

static void
test_dial_backoff(void **state)
{
	expect(*state, "dial_backoff", 2, "delta -> beta (latency)");
	assert_non_null(strstr(heatmap_diagnosis_find(&((struct lab *)*state)->dx,
	    "dial_backoff")->advice, "--bootstrap"));
}

static void
test_convergence_incomplete(void **state)
{
	expect(*state, "convergence", 1, "delta: gave up after 60.0 s");
	assert_non_null(strstr(heatmap_diagnosis_find(&((struct lab *)*state)->dx,
	    "convergence")->advice, "bootstrap_extra"));
}

static void
test_intermittent_peer(void **state)
{
	expect(*state, "intermittent_peer", 1,
	    "beta -> gamma: 3 of 20 samples failed");
}

/* rule's item that starts with prefix ends with want. */
static void
expect_with(const struct lab *lab, const char *rule, const char *prefix,
    const char *want)
{
	const struct finding *f = heatmap_diagnosis_find(&lab->dx, rule);
	size_t i, n;

	assert_non_null(f);
	for (i = 0; i < f->nitems; i++) {
		if (strncmp(f->items[i], prefix, strlen(prefix)) != 0)
			continue;
		n = strlen(f->items[i]);
		if (n < strlen(want) || strcmp(f->items[i] + n - strlen(want),
		    want) != 0)
			fail_msg("%s: \"%s\" does not end with \"%s\"", rule,
			    f->items[i], want);
		return;
	}
	fail_msg("%s: no item starts with \"%s\"", rule, prefix);
}

static void
test_one_way_means_inbound_firewall(void **state)
{
	expect(*state, "one_way", 4, "ping: alpha -> delta ok, delta -> alpha "
	    "failed");
	expect(*state, "one_way", 4, "iperf3: delta -> gamma ok");
	/* what to open: the ports the records and run.json show */
	expect_with(*state, "one_way", "iperf3: ",
	    "inbound firewall on delta (TCP port 5301)?");
	expect_with(*state, "one_way", "latency: ",
	    "inbound firewall on beta (TCP port 19291, libp2p)?");
	expect_with(*state, "one_way", "ping: ",
	    "inbound firewall on alpha (ICMP echo)?");
}

/*
 * 40 ms over a 1 ms RTT is a finding; 4 ms over 0.5 ms (alpha -> beta) is
 * a ratio of two small numbers, below DIAGNOSE_GAP_MIN_MS.
 */
static void
test_http_overhead_gap(void **state)
{
	const struct finding *f;
	size_t i;

	expect(*state, "http_overhead", 1, "alpha -> gamma: latency p50 40 ms");
	f = heatmap_diagnosis_find(&((struct lab *)*state)->dx, "http_overhead");
	for (i = 0; i < f->nitems; i++)
		assert_null(strstr(f->items[i], "alpha -> beta"));
}

/* One switch: ratios of hundreds between tiny numbers, and no finding. */
static void
test_microsecond_lab_has_no_finding(void **state)
{
	static const char *const names[] = { "microsecond-lab.jsonl", NULL };
	struct lab *lab = lab_load(names);

	(void)state;
	assert_int_equal(lab->dx.nfindings, 0);
	teardown((void **)&lab);
}

static void
test_findings_in_documentation_order(void **state)
{
	const struct lab *lab = *state;

	assert_int_equal(lab->dx.nfindings, 6);
	assert_string_equal(lab->dx.findings[0].rule, "relay_reservation");
	assert_string_equal(lab->dx.findings[5].rule, "http_overhead");
}

static void
test_failures_table(void **state)
{
	const struct lab *lab = *state;
	struct failure_row *rows;
	size_t n;

	assert_int_equal(heatmap_failures(lab->hm, &rows, &n), 0);
	assert_int_equal(n, 5);
	assert_string_equal(rows[0].kind->name, "ping");
	assert_string_equal(lab->hm->hosts[rows[0].src], "alpha");
	assert_int_equal(rows[0].cell->nfail, 1);
	assert_int_equal(rows[0].cell->count, 3);
	assert_string_equal(rows[0].cell->last_failed->error_class,
	    "unreachable");
	free(rows);
}

static void
test_clean_upstream_file_has_no_libp2p_findings(void **state)
{
	static const char *const names[] = { "upstream-form-collect.jsonl", NULL };
	struct lab *lab = lab_load(names);

	(void)state;
	assert_null(heatmap_diagnosis_find(&lab->dx, "relay_reservation"));
	assert_null(heatmap_diagnosis_find(&lab->dx, "dial_backoff"));
	assert_null(heatmap_diagnosis_find(&lab->dx, "intermittent_peer"));
	assert_null(heatmap_diagnosis_find(&lab->dx, "convergence"));
	assert_null(heatmap_diagnosis_find(&lab->dx, "http_overhead"));
	expect(lab, "one_way", 1, "ping: n1 -> n10 ok");
	teardown((void **)&lab);
}

/*
 * The WAN fixture: the relayed pair (libp2p_ping 130 ms over a 70 ms ICMP
 * RTT) both ways and nothing else, not the slowed link (libp2p and ICMP
 * slowed alike) nor the 0.7 over 0.3 ms of a site.
 */
static void
test_wan_relayed_pair(void **state)
{
	struct lab *lab = calloc(1, sizeof *lab);
	const struct finding *f;
	static const char *const files[] = { "collect.jsonl",
	    "measurements.jsonl", NULL };
	size_t i;

	(void)state;
	lab->hm = matrix_new();
	for (i = 0; files[i] != NULL; i++)
		assert_int_equal(matrix_read(lab->hm, fixture_path("wan",
		    files[i]), 0), 0);
	assert_int_equal(heatmap_build(lab->hm, MATRIX_LATEST, NULL), 0);
	assert_int_equal(heatmap_diagnose(lab->hm, &lab->dx), 0);
	f = heatmap_diagnosis_find(&lab->dx, "relayed");
	assert_non_null(f);
	assert_int_equal(f->nitems, 2);
	assert_non_null(strstr(f->items[0], "n1 -> n6: libp2p_ping p50 13"));
	assert_non_null(strstr(f->items[1], "n6 -> n1: libp2p_ping p50 13"));
	teardown((void **)&lab);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_relay_reservation),
		cmocka_unit_test(test_dial_backoff),
		cmocka_unit_test(test_convergence_incomplete),
		cmocka_unit_test(test_intermittent_peer),
		cmocka_unit_test(test_one_way_means_inbound_firewall),
		cmocka_unit_test(test_http_overhead_gap),
		cmocka_unit_test(test_microsecond_lab_has_no_finding),
		cmocka_unit_test(test_wan_relayed_pair),
		cmocka_unit_test(test_findings_in_documentation_order),
		cmocka_unit_test(test_failures_table),
		cmocka_unit_test(test_clean_upstream_file_has_no_libp2p_findings),
	};

	return cmocka_run_group_tests(tests, setup_full, teardown);
}
