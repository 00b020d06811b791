/*
 * The heatmap's reading and matrix model: latest record wins (by time, else
 * by reading order), the median aggregate, cell states (value, failed,
 * missing, self), natural host order, the colour scale's direction for
 * lower-better and higher-better metrics, and malformed-line handling
 * (skipped and counted, or fatal with --strict).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "error.h"
#include "fixture.h"
#include "heatmap.h"
#include "probe_kind.h"
#include "heatmap_cell.h"
#include "log.h"

static struct matrix *
load(const char *const *paths, enum matrix_aggregate agg, const char *kind)
{
	struct matrix *hm = matrix_new();

	assert_non_null(hm);
	matrix_set_aggregate(hm, agg);
	for (; *paths != NULL; paths++)
		assert_int_equal(matrix_read(hm, *paths, 0), 0);
	assert_int_equal(matrix_overlay_build(hm, agg, kind), 0);
	return hm;
}

/* alpha->beta ping: 0.5 ms at 11:10 (first line), 2.0 at 11:00, failed 11:05. */
static void
test_latest_wins_by_time_not_file_order(void **state)
{
	const char *paths[] = { fixture_path("heatmap", "collect.jsonl"), NULL };
	struct matrix *hm = load(paths, MATRIX_LATEST, NULL);
	const struct matrix_cell *c = cell(hm, "ping", "alpha", "beta");

	(void)state;
	assert_int_equal(c->state, CELL_VALUE);
	assert_int_equal(c->count, 3);
	assert_int_equal(c->nfail, 1);
	assert_true(value(hm, "ping", "alpha", "beta", "avg") == 0.5);
	assert_string_equal(c->last_failed->error_class, "unreachable");
	matrix_free(hm);
}

static void
test_latest_wins_by_file_order_without_time(void **state)
{
	const char *path = temp_jsonl(
	    "{\"kind\":\"ping\",\"source\":\"a\",\"target\":\"b\",\"ok\":true,"
	    "\"metrics\":{\"avg\":7}}\n"
	    "{\"kind\":\"ping\",\"source\":\"a\",\"target\":\"b\",\"ok\":true,"
	    "\"metrics\":{\"avg\":3}}\n");
	const char *paths[] = { path, NULL };
	struct matrix *hm = load(paths, MATRIX_LATEST, NULL);

	(void)state;
	assert_true(value(hm, "ping", "a", "b", "avg") == 3);
	matrix_free(hm);
	unlink(path);
}

static void
test_latest_failure_makes_the_cell_failed(void **state)
{
	const char *path = temp_jsonl(
	    "{\"kind\":\"ping\",\"source\":\"a\",\"target\":\"b\",\"ok\":false,"
	    "\"timestamp\":\"2026-05-03T11:00:02Z\",\"error\":\"timed out\"}\n"
	    "{\"kind\":\"ping\",\"source\":\"a\",\"target\":\"b\",\"ok\":true,"
	    "\"timestamp\":\"2026-05-03T11:00:01Z\",\"metrics\":{\"avg\":3}}\n");
	const char *paths[] = { path, NULL };
	struct matrix *hm = load(paths, MATRIX_LATEST, NULL);
	const struct matrix_cell *c = cell(hm, "ping", "a", "b");

	(void)state;
	assert_int_equal(c->state, CELL_FAILED);
	/* the latest record failed: it is the latest failure */
	assert_string_equal(c->last_failed->error_class, "timeout");
	matrix_free(hm);
	/* The median looks at the ok records only. */
	hm = load(paths, MATRIX_MEDIAN, NULL);
	assert_int_equal(cell(hm, "ping", "a", "b")->state, CELL_VALUE);
	assert_true(value(hm, "ping", "a", "b", "avg") == 3);
	matrix_free(hm);
	unlink(path);
}

static void
test_median_of_ok_records(void **state)
{
	const char *paths[] = { fixture_path("heatmap", "collect.jsonl"), NULL };
	struct matrix *hm = load(paths, MATRIX_MEDIAN, NULL);

	(void)state;
	/* ok records 2.0 and 0.5; the failed one is left out. */
	assert_true(fabs(value(hm, "ping", "alpha", "beta", "avg") - 1.25) <
	    1e-9);
	matrix_free(hm);
}

static void
test_states_and_natural_host_order(void **state)
{
	const char *paths[] = { fixture_path("heatmap", "upstream-form-collect.jsonl"), NULL };
	struct matrix *hm = load(paths, MATRIX_LATEST, NULL);
	const char *path;

	(void)state;
	assert_int_equal(hm->nhosts, 3);
	assert_string_equal(hm->hosts[0], "n1");
	assert_string_equal(hm->hosts[1], "n2");
	assert_string_equal(hm->hosts[2], "n10");
	assert_int_equal(cell(hm, "ping", "n1", "n1")->state, CELL_SELF);
	assert_int_equal(cell(hm, "ping", "n10", "n1")->state, CELL_FAILED);
	assert_int_equal(cell(hm, "ping", "n1", "n2")->state, CELL_VALUE);
	assert_int_equal(matrix_find_kind(hm, "ping")->nrecords, 6);
	assert_int_equal(matrix_find_kind(hm, "ping")->default_metric,
	    (size_t)matrix_find_metric(matrix_find_kind(hm, "ping"), "avg"));
	matrix_free(hm);

	path = temp_jsonl("{\"kind\":\"ping\",\"source\":\"a\","
	    "\"target\":\"b\",\"ok\":true,\"metrics\":{\"avg\":1}}\n");
	hm = matrix_new();
	assert_int_equal(matrix_read(hm, path, 0), 0);
	unlink(path);
	assert_int_equal(matrix_overlay_build(hm, MATRIX_LATEST, NULL), 0);
	assert_int_equal(cell(hm, "ping", "b", "a")->state, CELL_MISSING);
	matrix_free(hm);
	/* No records at all: an empty model, not a crash. */
	hm = matrix_new();
	assert_int_equal(matrix_overlay_build(hm, MATRIX_LATEST, NULL), 0);
	assert_int_equal(hm->nkinds, 0);
	matrix_free(hm);
}

static void
test_only_kind_and_overlay(void **state)
{
	const char *both[] = { fixture_path("heatmap", "collect.jsonl"),
	    fixture_path("heatmap", "measurements.jsonl"), NULL };
	struct matrix *hm = load(both, MATRIX_LATEST, NULL);
	const struct matrix_kind *o = matrix_find_kind(hm, "overlay");

	(void)state;
	assert_int_equal(hm->nkinds, 6);
	assert_string_equal(hm->kinds[0].name, "ping");
	assert_string_equal(hm->kinds[4].name, "throughput");
	assert_non_null(o);
	assert_true(o->derived);
	/* latency alpha->gamma p50 40 ms over ICMP avg 1 ms. */
	assert_true(fabs(value(hm, "overlay", "alpha", "gamma",
	    "latency_x_rtt") - 40.0) < 1e-9);
	assert_true(value(hm, "overlay", "alpha", "beta",
	    "throughput_x_iperf3") < 1);
	/* 4 ms over 0.5 ms: the RTT is taken as at least 1 ms, 4x not 8x */
	assert_true(fabs(value(hm, "overlay", "alpha", "beta",
	    "latency_x_rtt") - 4.0) < 1e-9);
	matrix_free(hm);

	hm = matrix_new();
	assert_int_equal(matrix_read(hm, fixture_path("heatmap", "collect.jsonl"), 0), 0);
	assert_int_equal(matrix_overlay_build(hm, MATRIX_LATEST, "latency"),
	    NP_ERR_NOT_FOUND);
	matrix_free(hm);
	hm = load(both, MATRIX_LATEST, "iperf3");
	assert_int_equal(hm->nkinds, 1);
	assert_string_equal(hm->kinds[0].name, "iperf3");
	matrix_free(hm);
}

/*
 * connect in round trips of the pair's ICMP RTT, libp2p over iperf3 as a
 * fraction; a node that did not know the kind leaves no cell.
 */
static void
test_overlay_connect_and_fractions(void **state)
{
	const char *paths[] = { fixture_path("heatmap", "connect.jsonl"),
	    NULL };
	struct matrix *hm = load(paths, MATRIX_LATEST, NULL);

	(void)state;
	assert_true(fabs(value(hm, "overlay", "a", "b", "connect_x_rtt") -
	    5.0) < 1e-9);
	assert_true(fabs(value(hm, "overlay", "b", "a", "connect_x_rtt") -
	    3.0) < 1e-9);
	/* 4 ms over 0.3 ms: the RTT is taken as at least 1 ms */
	assert_true(fabs(value(hm, "overlay", "b", "c", "connect_x_rtt") -
	    4.0) < 1e-9);
	assert_true(fabs(value(hm, "overlay", "a", "b",
	    "throughput_x_iperf3") - 0.18) < 1e-9);
	assert_true(fabs(value(hm, "overlay", "b", "a",
	    "throughput_x_iperf3") - 0.5) < 1e-9);
	assert_true(fabs(value(hm, "overlay", "a", "c",
	    "libp2p_ping_x_rtt") - 41.0 / 40.0) < 1e-9);
	/* no iperf3 for a->c: no fraction */
	assert_true(isnan(value(hm, "overlay", "a", "c",
	    "throughput_x_iperf3")));
	/* unsupported: neither a cell nor a failure */
	assert_int_equal(cell(hm, "connect", "c", "a")->state, CELL_MISSING);
	assert_int_equal(matrix_find_kind(hm, "connect")->nfailed, 0);
	assert_int_equal(matrix_find_kind(hm, "connect")->nrecords, 3);
	matrix_free(hm);
}

static void
test_colour_direction(void **state)
{
	unsigned char best[3], worst[3];

	(void)state;
	/* Lower is better (latency): the low end is best. */
	assert_true(heatmap_badness(1, 1, 9, 0, 0) == 0);
	assert_true(heatmap_badness(9, 1, 9, 0, 0) == 1);
	assert_true(heatmap_badness(5, 1, 9, 0, 0) == 0.5);
	/* Higher is better (throughput): reversed. */
	assert_true(heatmap_badness(9, 1, 9, 1, 0) == 0);
	assert_true(heatmap_badness(1, 1, 9, 1, 0) == 1);
	/* Log scale: 10 is half way between 1 and 100. */
	assert_true(fabs(heatmap_badness(10, 1, 100, 0, 1) - 0.5) < 1e-12);
	assert_true(heatmap_badness(3, 3, 3, 0, 0) == 0);
	heatmap_color(0, best);
	heatmap_color(1, worst);
	assert_true(best[1] > best[0]);		/* green */
	assert_true(worst[0] > worst[1]);	/* red */
}

/*
 * The colours spread over at least 10 % of the value and the unit's floor:
 * 0.01 against 0.04 ms stays near green; 10 against 60 ms keeps its range.
 */
static void
test_colour_span_floor(void **state)
{
	struct matrix_metric ms, mbps;
	double lo, hi;

	(void)state;
	matrix_metric_describe("ping", "avg", &ms);
	matrix_metric_describe("iperf3", "mbps", &mbps);
	lo = 0.01;
	hi = 0.04;
	heatmap_scale_span(&ms, &lo, &hi);
	assert_true(lo == 0.01 && fabs(hi - 1.01) < 1e-12);
	assert_true(heatmap_badness(0.04, lo, hi, 0, 0) < 0.05);
	lo = 10;
	hi = 60;
	heatmap_scale_span(&ms, &lo, &hi);
	assert_true(lo == 10 && hi == 60);
	/* higher is better: the floor widens downwards from the best */
	lo = 930;
	hi = 941;
	heatmap_scale_span(&mbps, &lo, &hi);
	assert_true(hi == 941 && fabs(lo - 846.9) < 1e-9);
	assert_true(heatmap_badness(930, lo, hi, 1, 0) < 0.15);
}

static void
test_metric_meaning(void **state)
{
	struct matrix_metric m;

	(void)state;
	matrix_metric_describe("throughput", "mbps", &m);
	assert_true(m.higher_better);
	assert_string_equal(m.unit, "Mbit/s");
	matrix_metric_describe("latency", "p50_ms", &m);
	assert_false(m.higher_better);
	assert_string_equal(m.unit, "ms");
	matrix_metric_describe("ping", "avg", &m);
	assert_string_equal(m.unit, "ms");
	matrix_metric_describe("ping", "loss_pct", &m);
	assert_false(m.higher_better);
	/* a metric no row lists: from its name */
	matrix_metric_describe("other_tool", "rx_mbps", &m);
	assert_true(m.higher_better);
	assert_string_equal(m.unit, "Mbit/s");
	matrix_metric_describe("overlay", "latency_x_rtt", &m);
	assert_string_equal(m.unit, "x ICMP RTT");
	assert_string_equal(matrix_default_metric("ping"), "avg");
	assert_string_equal(matrix_default_metric("iperf3"), "mbps");
	assert_string_equal(matrix_default_metric("libp2p_ping"), "p50_ms");
	assert_string_equal(matrix_default_metric("latency"), "p50_ms");
	assert_string_equal(matrix_default_metric("throughput"), "mbps");
}

/*
 * The rows of the kinds the heatmap knew before the kinds' table describe
 * each of their metrics as the names alone did: unit, direction, label
 * and colour floor (the pages and tables of these kinds are unchanged).
 */
static void
test_table_units_as_names_say(void **state)
{
	static const char *const kinds[] = { "ping", "iperf3", "libp2p_ping",
	    "latency", "throughput" };
	const struct probe_metric *pm;
	struct matrix_metric a, b;
	size_t i, n = 0;

	(void)state;
	for (i = 0; i < sizeof kinds / sizeof *kinds; i++) {
		const struct probe_kind *k = probe_kind_find(kinds[i]);

		assert_non_null(k);
		for (pm = k->metrics; pm->name != NULL; pm++, n++) {
			matrix_metric_describe(k->name, pm->name, &a);
			matrix_metric_describe("no_such_kind", pm->name, &b);
			assert_string_equal(a.unit, b.unit);
			assert_int_equal(a.higher_better, b.higher_better);
			assert_string_equal(a.label, b.label);
			assert_true(a.span_min == b.span_min);
		}
	}
	assert_true(n >= 30);
}

static void
test_malformed_lines_skipped_or_fatal(void **state)
{
	struct record_input in;

	(void)state;
	log_set_level(LOG_QUIET);
	memset(&in, 0, sizeof in);
	assert_int_equal(records_read_file(&in, fixture_path("heatmap", "malformed.jsonl"), 0),
	    0);
	assert_int_equal(in.nrecords, 2);
	assert_int_equal(in.malformed, 3);
	assert_int_equal(in.records[1]->line, 6);
	record_input_free(&in);

	assert_int_equal(records_read_file(&in, fixture_path("heatmap", "malformed.jsonl"), 1),
	    NP_ERR_PARSE);
	assert_int_equal(in.nrecords, 1);
	record_input_free(&in);
	assert_int_equal(records_read_file(&in, "/nonexistent/x.jsonl", 0),
	    NP_ERR_IO);
	record_input_free(&in);
	log_set_level(LOG_NORMAL);
}

/* Input no tool should write is refused or made harmless, never UB. */
static void
test_record_parse_hostile(void **state)
{
	static const char nul[] = "{\"kind\":\"ping\",\"source\":\"a\\u0000x\","
	    "\"target\":\"b\"}";
	static const char raw_nul[] = "{\"kind\":\"ping\",\"source\":\"a\0x\","
	    "\"target\":\"b\"}";
	static const char dup[] = "{\"kind\":\"ping\",\"source\":\"a\","
	    "\"target\":\"b\",\"ok\":true,\"metrics\":{\"avg\":1,\"x_y\":2,"
	    "\"x\":{\"y\":3},\"avg\":4},\"source\":\"c\",\"ended_at\":1e300}";
	struct record *r;
	char *cause;

	(void)state;
	assert_int_equal(record_parse(nul, strlen(nul), &r, &cause),
	    NP_ERR_PARSE);
	assert_string_equal(cause, "column 27: a \\u0000 (NUL) in a string is "
	    "not supported");
	free(cause);
	assert_int_equal(record_parse(raw_nul, sizeof raw_nul - 1, &r, &cause),
	    NP_ERR_PARSE);
	free(cause);
	assert_int_equal(record_parse(dup, strlen(dup), &r, &cause), 0);
	assert_string_equal(r->source, "c");	/* the last wins */
	assert_int_equal(r->nmetrics, 2);	/* one avg, one x_y */
	assert_string_equal(r->metrics[0].name, "x_y");
	assert_true(r->metrics[0].value == 3);
	assert_string_equal(r->metrics[1].name, "avg");
	assert_true(r->metrics[1].value == 4);
	assert_true(isnan(r->time));		/* outside Date's range */
	record_free(r);
	assert_true(isnan(record_parse_time("2026-05-03T11:37:1e300Z")));
	assert_true(isnan(record_parse_time("2026-05-03T11:37:infZ")));
	assert_true(isnan(record_parse_time("2026-05-03T11:37:-5Z")));
	assert_true(isnan(record_parse_time("2026-99-03T11:37:00Z")));
}

static void
test_record_parse(void **state)
{
	static const char garbage[] = "{\"kind\":\"ping\",\"source\":\"a\","
	    "\"target\":\"b\",\"ok\":true} trailing";
	static const char bench[] = "{\"kind\":\"latency\",\"source\":\"a\","
	    "\"target\":\"b\",\"ok\":true,\"metrics\":{\"p50_ms\":2.5,"
	    "\"p50_ns\":2500000,\"samples_ns\":[1,2,3],\"failed_samples\":1,"
	    "\"sender\":{\"mbps\":9}},\"unknown\":[1]}";
	struct record *r;
	char *cause;

	(void)state;
	assert_int_equal(record_parse(garbage, strlen(garbage), &r, &cause),
	    NP_ERR_PARSE);
	assert_non_null(cause);
	free(cause);
	assert_int_equal(record_parse(bench, strlen(bench), &r, &cause), 0);
	assert_int_equal(r->nsamples, 3);
	assert_int_equal(r->nmetrics, 3);	/* p50_ms, failed_samples, sender_mbps */
	assert_string_equal(r->metrics[0].name, "p50_ms");
	assert_string_equal(r->metrics[2].name, "sender_mbps");
	assert_true(isnan(r->time));
	record_free(r);
	record_free(NULL);

	assert_true(record_parse_time("2026-05-03T11:37:42.5Z") ==
	    1777808262.5);
	assert_true(record_parse_time("2026-05-03T13:37:42+02:00") ==
	    1777808262.0);
	assert_true(isnan(record_parse_time("yesterday")));
	/* as timegm() counts: leap years, before 1970, days and hours past
	 * their range carried over; the forms sscanf reads still read */
	assert_true(record_parse_time("2024-02-29T12:00:00Z") == 1709208000);
	assert_true(record_parse_time("2100-03-01T00:00:00Z") == 4107542400);
	assert_true(record_parse_time("2000-12-31 23:59:59") == 978307199);
	assert_true(record_parse_time("1969-07-20T20:17:40Z") == -14182940);
	assert_true(record_parse_time("2026-02-31T24:00:00Z") == 1772582400);
	assert_true(record_parse_time("2026-5-3T11:37:42Z") == 1777808262);
	assert_true(isnan(record_parse_time("2026-05-03T11:37:Z")));
	assert_string_equal(record_classify_error("ping: timed out"),
	    "timeout");
	assert_string_equal(record_classify_error(
	    "all dials failed: dial backoff"), "unreachable");
	assert_string_equal(record_classify_error(
	    "bash: iperf3: command not found"), "tool_missing");
	assert_string_equal(record_classify_error("exit status 3"),
	    "tool_failed");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_latest_wins_by_time_not_file_order),
		cmocka_unit_test(test_latest_wins_by_file_order_without_time),
		cmocka_unit_test(test_latest_failure_makes_the_cell_failed),
		cmocka_unit_test(test_median_of_ok_records),
		cmocka_unit_test(test_states_and_natural_host_order),
		cmocka_unit_test(test_only_kind_and_overlay),
		cmocka_unit_test(test_overlay_connect_and_fractions),
		cmocka_unit_test(test_colour_direction),
		cmocka_unit_test(test_colour_span_floor),
		cmocka_unit_test(test_metric_meaning),
		cmocka_unit_test(test_table_units_as_names_say),
		cmocka_unit_test(test_malformed_lines_skipped_or_fatal),
		cmocka_unit_test(test_record_parse),
		cmocka_unit_test(test_record_parse_hostile),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
