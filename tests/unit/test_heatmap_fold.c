/*
 * Folding records into cells as they are read (matrix_fold.c): of
 * duplicate records for a pair the latest by time wins, of equal or
 * missing times the one read last; the counts and the latest failure
 * (its text kept once for every cell); metrics met late, and a latest
 * failure clearing the values; cells kept while the grids grow past
 * their first size; the median over the ok records; the host bound; a
 * run.json's machines beyond the records' hosts (and beyond the bound)
 * covered by every grid; the memory budget, which stops the reading
 * with NP_ERR_BUDGET; and a bench record's path per cell, the latest's
 * (its class, whether reported, its relay by name or PeerID).
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
#include "heatmap.h"
#include "heatmap_cell.h"
#include "log.h"

#define PING(src, tgt, when, rest) \
	"{\"kind\":\"ping\",\"source\":\"" src "\",\"target\":\"" tgt "\"" \
	when "," rest "}\n"

static struct matrix *
fold_text(const char *text, enum matrix_aggregate agg, size_t budget,
    int want)
{
	struct matrix *hm = matrix_new();
	const char *path;

	assert_non_null(hm);
	matrix_set_aggregate(hm, agg);
	if (budget > 0)
		matrix_set_budget(hm, budget);
	path = temp_jsonl(text);
	assert_int_equal(matrix_read(hm, path, 0), want);
	unlink(path);
	if (want == 0)
		assert_int_equal(matrix_overlay_build(hm, agg, NULL), 0);
	return hm;
}

static void
test_duplicates_latest_wins(void **state)
{
	struct matrix *hm = fold_text(
	    /* by time: the 11:00:05 record, though read first */
	    PING("a", "b", ",\"timestamp\":\"2026-05-03T11:00:05Z\"",
	    "\"ok\":true,\"metrics\":{\"avg\":5}")
	    PING("a", "b", ",\"timestamp\":\"2026-05-03T11:00:01Z\"",
	    "\"ok\":true,\"metrics\":{\"avg\":1}")
	    /* equal times: the one read last */
	    PING("b", "a", ",\"timestamp\":\"2026-05-03T11:00:01Z\"",
	    "\"ok\":true,\"metrics\":{\"avg\":1}")
	    PING("b", "a", ",\"timestamp\":\"2026-05-03T11:00:01Z\"",
	    "\"ok\":true,\"metrics\":{\"avg\":2}")
	    /* a record without a time: the one read last */
	    PING("a", "c", ",\"timestamp\":\"2026-05-03T11:00:09Z\"",
	    "\"ok\":true,\"metrics\":{\"avg\":9}")
	    PING("a", "c", "", "\"ok\":true,\"metrics\":{\"avg\":3}"),
	    MATRIX_LATEST, 0, 0);

	(void)state;
	assert_true(value(hm, "ping", "a", "b", "avg") == 5);
	assert_int_equal(cell(hm, "ping", "a", "b")->count, 2);
	assert_true(cell(hm, "ping", "a", "b")->time ==
	    record_parse_time("2026-05-03T11:00:05Z"));
	assert_true(value(hm, "ping", "b", "a", "avg") == 2);
	assert_true(value(hm, "ping", "a", "c", "avg") == 3);
	assert_true(isnan(cell(hm, "ping", "a", "c")->time));
	assert_int_equal(matrix_find_kind(hm, "ping")->nrecords, 6);
	matrix_free(hm);
}

static void
test_failures_counted_and_latest_kept(void **state)
{
	struct matrix *hm = fold_text(
	    PING("a", "b", ",\"timestamp\":\"2026-05-03T11:00:03Z\"",
	    "\"ok\":false,\"error\":\"Request timeout for icmp_seq 1\"")
	    PING("a", "b", ",\"timestamp\":\"2026-05-03T11:00:01Z\"",
	    "\"ok\":false,\"error\":\"connect: No route to host\"")
	    PING("a", "b", ",\"timestamp\":\"2026-05-03T11:00:02Z\"",
	    "\"ok\":true,\"metrics\":{\"avg\":2}")
	    PING("b", "a", ",\"timestamp\":\"2026-05-03T11:00:02Z\"",
	    "\"ok\":false,\"error\":\"Request timeout for icmp_seq 1\"")
	    PING("c", "a", "", "\"ok\":true,\"metrics\":{\"avg\":1}")
	    PING("c", "a", "", "\"ok\":false,\"error\":\"x\","
	    "\"error_class\":\"auth\""),
	    MATRIX_LATEST, 0, 0);
	const struct matrix_cell *ab = cell(hm, "ping", "a", "b");
	const struct matrix_cell *ba = cell(hm, "ping", "b", "a");
	const struct matrix_cell *ca = cell(hm, "ping", "c", "a");

	(void)state;
	/* the latest (11:00:03) failed: the cell is failed, no values */
	assert_int_equal(ab->state, CELL_FAILED);
	assert_int_equal(ab->count, 3);
	assert_int_equal(ab->nfail, 2);
	assert_true(isnan(value(hm, "ping", "a", "b", "avg")));
	assert_string_equal(ab->last_failed->error,
	    "Request timeout for icmp_seq 1");
	assert_string_equal(ab->last_failed->error_class, "timeout");
	/* one copy of a text however many cells have it */
	assert_ptr_equal(ab->last_failed->error, ba->last_failed->error);
	/* a failure after an ok record without times: failed */
	assert_int_equal(ca->state, CELL_FAILED);
	assert_string_equal(ca->last_failed->error_class, "auth");
	assert_int_equal(matrix_find_kind(hm, "ping")->nfailed, 4);
	assert_int_equal(cell(hm, "ping", "b", "c")->state, CELL_MISSING);
	assert_null(cell(hm, "ping", "b", "c")->last_failed);
	assert_int_equal(cell(hm, "ping", "b", "c")->nsamples, -1);
	matrix_free(hm);
}

static void
test_metrics_met_late(void **state)
{
	struct matrix *hm = fold_text(
	    PING("a", "b", "", "\"ok\":true,\"metrics\":{\"avg\":1}")
	    PING("b", "a", "", "\"ok\":true,\"metrics\":{\"avg\":2,"
	    "\"max\":4,\"loss_pct\":0,\"samples_ms\":[1,2,3]}")
	    PING("a", "c", "", "\"ok\":false,\"error\":\"x\","
	    "\"metrics\":{\"failed_samples\":3}"),
	    MATRIX_LATEST, 0, 0);
	const struct matrix_kind *k = matrix_find_kind(hm, "ping");

	(void)state;
	assert_int_equal(k->nmetrics, 4);
	/* the first row widened: its value kept, the new metrics NAN */
	assert_true(value(hm, "ping", "a", "b", "avg") == 1);
	assert_true(isnan(value(hm, "ping", "a", "b", "max")));
	assert_true(value(hm, "ping", "b", "a", "max") == 4);
	assert_int_equal(cell(hm, "ping", "b", "a")->nsamples, 3);
	/* a failed record's metric is in the list, not in the cell */
	assert_true(matrix_find_metric(k, "failed_samples") >= 0);
	assert_true(isnan(value(hm, "ping", "a", "c", "failed_samples")));
	matrix_free(hm);
}

/* Records of n hosts, a full mesh, avg = 1000 * source + target. */
static char *
mesh(size_t n)
{
	size_t i, j, len = 0, size = n * n * 100 + 1;
	char *text = malloc(size);

	assert_non_null(text);
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (i != j)
				len += (size_t)snprintf(text + len, size - len,
				    "{\"kind\":\"ping\",\"source\":\"h%zu\","
				    "\"target\":\"h%zu\",\"ok\":true,"
				    "\"metrics\":{\"avg\":%zu}}\n", i, j,
				    1000 * i + j);
	return text;
}

static void
test_grids_grow_and_median(void **state)
{
	char *text = mesh(40), *twice;
	struct matrix *hm = fold_text(text, MATRIX_LATEST, 0, 0);
	size_t len = strlen(text);

	(void)state;
	assert_int_equal(hm->nhosts, 40);
	/* natural order; the first cells folded survived three doublings */
	assert_string_equal(hm->hosts[2], "h2");
	assert_string_equal(hm->hosts[10], "h10");
	assert_true(value(hm, "ping", "h0", "h1", "avg") == 1);
	assert_true(value(hm, "ping", "h39", "h17", "avg") == 39017);
	assert_int_equal(cell(hm, "ping", "h3", "h3")->state, CELL_SELF);
	matrix_free(hm);

	/* the mesh and a second record for two pairs (and a failed one,
	 * left out of the median): the median of the two */
	twice = malloc(2 * len + 1);
	assert_non_null(twice);
	memcpy(twice, text, len + 1);
	hm = fold_text(text, MATRIX_MEDIAN, 0, 0);
	assert_true(value(hm, "ping", "h0", "h1", "avg") == 1);
	matrix_free(hm);
	strcat(twice, PING("h0", "h1", "", "\"ok\":true,"
	    "\"metrics\":{\"avg\":3}")
	    PING("h39", "h17", "", "\"ok\":true,\"metrics\":{\"avg\":39019}")
	    PING("h39", "h17", "", "\"ok\":false,\"error\":\"x\","
	    "\"metrics\":{\"avg\":0}"));
	hm = fold_text(twice, MATRIX_MEDIAN, 0, 0);
	assert_true(value(hm, "ping", "h0", "h1", "avg") == 2);
	assert_true(value(hm, "ping", "h39", "h17", "avg") == 39018);
	assert_int_equal(cell(hm, "ping", "h39", "h17")->state, CELL_VALUE);
	matrix_free(hm);
	free(twice);
	free(text);
}

#define LAT(src, tgt, when, rest) \
	"{\"kind\":\"libp2p_ping\",\"source\":\"" src "\",\"target\":\"" \
	tgt "\",\"ok\":true,\"metrics\":{\"p50_ms\":1},\"timestamp\":\"" \
	when "\"," rest "}\n"

static void
test_path_per_cell(void **state)
{
	struct matrix *hm = fold_text(
	    LAT("a", "b", "2026-05-03T11:00:01Z", "\"path\":\"relayed\","
	    "\"path_known\":\"inferred\",\"relay\":\"relay\","
	    "\"relay_peer_id\":\"QmR\"")
	    /* a later record of the pair: its path wins */
	    LAT("a", "b", "2026-05-03T11:00:05Z", "\"path\":\"relayed\","
	    "\"path_known\":\"reported\",\"relay\":\"relay2\"")
	    LAT("b", "a", "2026-05-03T11:00:01Z", "\"path\":\"direct\","
	    "\"path_known\":\"inferred\"")
	    LAT("a", "c", "2026-05-03T11:00:01Z", "\"path\":\"hole-punched\"")
	    /* a relay named only by its PeerID; an unknown word; none */
	    LAT("c", "a", "2026-05-03T11:00:01Z", "\"path\":\"relayed\","
	    "\"relay\":null,\"relay_peer_id\":\"QmOnlyPeer\"")
	    LAT("b", "c", "2026-05-03T11:00:01Z", "\"path\":\"sideways\"")
	    LAT("c", "b", "2026-05-03T11:00:01Z", "\"path\":null"),
	    MATRIX_LATEST, 0, 0);
	const struct matrix_cell *c;
	const struct matrix_relay *r;

	(void)state;
	c = cell(hm, "libp2p_ping", "a", "b");
	assert_int_equal(matrix_cell_path(c), MATRIX_PATH_RELAYED);
	assert_int_equal(matrix_cell_path_reported(c), 1);
	assert_non_null(r = matrix_cell_relay(hm, c));
	assert_string_equal(r->name, "relay2");
	assert_null(r->peer_id);
	c = cell(hm, "libp2p_ping", "b", "a");
	assert_int_equal(matrix_cell_path(c), MATRIX_PATH_DIRECT);
	assert_int_equal(matrix_cell_path_reported(c), 0);
	assert_null(matrix_cell_relay(hm, c));
	assert_int_equal(matrix_cell_path(cell(hm, "libp2p_ping", "a", "c")),
	    MATRIX_PATH_PUNCHED);
	c = cell(hm, "libp2p_ping", "c", "a");
	assert_string_equal(matrix_cell_relay(hm, c)->name, "QmOnlyPeer");
	assert_string_equal(matrix_cell_relay(hm, c)->peer_id, "QmOnlyPeer");
	assert_int_equal(matrix_cell_path(cell(hm, "libp2p_ping", "b", "c")),
	    MATRIX_PATH_UNKNOWN);
	assert_int_equal(matrix_cell_path(cell(hm, "libp2p_ping", "c", "b")),
	    MATRIX_PATH_UNKNOWN);
	assert_int_equal(hm->nrelays, 3);
	assert_string_equal(matrix_path_name(MATRIX_PATH_PUNCHED),
	    "hole-punched");
	assert_null(matrix_path_name(MATRIX_PATH_UNKNOWN));
	matrix_free(hm);
}

static void
test_host_bound(void **state)
{
	size_t i, len = 0, size = (MATRIX_MAX_HOSTS + 10) * 100;
	char *text = malloc(size);
	struct matrix *hm;

	(void)state;
	assert_non_null(text);
	for (i = 0; i < MATRIX_MAX_HOSTS / 2 + 5; i++)
		len += (size_t)snprintf(text + len, size - len,
		    "{\"kind\":\"ping\",\"source\":\"s%zu\",\"target\":"
		    "\"t%zu\",\"ok\":true,\"metrics\":{\"avg\":1}}\n", i, i);
	hm = fold_text(text, MATRIX_LATEST, 0, 0);
	assert_int_equal(hm->nhosts, MATRIX_MAX_HOSTS);
	assert_int_equal(hm->left_out, 5);
	assert_int_equal(hm->nread, MATRIX_MAX_HOSTS / 2 + 5);
	matrix_free(hm);
	free(text);
}

/* A run.json listing n machines m0 ... */
static char *
run_json(size_t n)
{
	size_t i, len = 0, size = n * 32 + 64;
	char *text = malloc(size);

	assert_non_null(text);
	len += (size_t)snprintf(text, size, "{\"run_id\":\"r\","
	    "\"convergence\":{},\"machines\":[");
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, size - len,
		    "%s{\"name\":\"m%zu\"}", i ? "," : "", i);
	snprintf(text + len, size - len, "]}\n");
	return text;
}

/* Records of two hosts, then a run.json of more machines than the grids
 * were grown for while folding: every host is a row and a column. */
static void
test_run_json_hosts_beyond_the_records(void **state)
{
	static const size_t counts[] = { 40, 3000 };
	static const enum matrix_aggregate aggs[] = { MATRIX_LATEST,
	    MATRIX_MEDIAN };
	size_t i, a, s, t, want;
	struct matrix *hm;
	const struct matrix_kind *k;
	const char *path;
	char *run;

	(void)state;
	for (i = 0; i < 2; i++)
		for (a = 0; a < 2; a++) {
			hm = matrix_new();
			assert_non_null(hm);
			matrix_set_aggregate(hm, aggs[a]);
			path = temp_jsonl(PING("a", "b", "", "\"ok\":true,"
			    "\"metrics\":{\"avg\":7}"));
			assert_int_equal(matrix_read(hm, path, 0), 0);
			unlink(path);
			run = run_json(counts[i]);
			path = temp_jsonl(run);
			free(run);
			assert_int_equal(matrix_read(hm, path, 0), 0);
			unlink(path);
			assert_int_equal(matrix_overlay_build(hm, aggs[a], NULL), 0);
			want = counts[i] + 2 < MATRIX_MAX_HOSTS ?
			    counts[i] + 2 : MATRIX_MAX_HOSTS;
			assert_int_equal(hm->nhosts, want);
			assert_int_equal(hm->machines_left_out,
			    counts[i] + 2 - want);
			assert_true(value(hm, "ping", "a", "b", "avg") == 7);
			k = matrix_find_kind(hm, "ping");
			for (s = 0; s < hm->nhosts; s++)
				for (t = 0; t < hm->nhosts; t++) {
					const struct matrix_cell *c =
					    matrix_cell_at(hm, k, s, t);

					if (s == t)
						assert_int_equal(c->state,
						    CELL_SELF);
					else if (c->count != 0)
						assert_int_equal(c->count, 1);
					else
						assert_int_equal(c->state,
						    CELL_MISSING);
				}
			assert_int_equal(k->nrecords, 1);
			matrix_free(hm);
		}
}

static void
test_budget(void **state)
{
	char *text = mesh(60);
	struct matrix *hm;

	(void)state;
	log_set_level(LOG_QUIET);	/* the budget's error is expected */
	/* 64 x 64 cells of about 40 bytes are over 64 KiB */
	hm = fold_text(text, MATRIX_LATEST, 64 << 10, NP_ERR_BUDGET);
	assert_true(hm->used <= (size_t)64 << 10);
	matrix_free(hm);
	/* within a budget: what is used is counted, and below it */
	hm = fold_text(text, MATRIX_LATEST, 8 << 20, 0);
	assert_true(hm->used > 64 * 64 * sizeof(struct matrix_cell));
	assert_true(hm->used <= (size_t)8 << 20);
	matrix_free(hm);
	free(text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_duplicates_latest_wins),
		cmocka_unit_test(test_failures_counted_and_latest_kept),
		cmocka_unit_test(test_metrics_met_late),
		cmocka_unit_test(test_grids_grow_and_median),
		cmocka_unit_test(test_path_per_cell),
		cmocka_unit_test(test_host_bound),
		cmocka_unit_test(test_run_json_hosts_beyond_the_records),
		cmocka_unit_test(test_budget),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
