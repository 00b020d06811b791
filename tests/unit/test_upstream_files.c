/*
 * The upstream profiler's real files (tests/fixtures/upstream) read back
 * by the heatmap: every record of collect.jsonl and bench's
 * measurements.jsonl with each value where upstream puts it (pair, kind,
 * outcome, error text, timestamp, every metric; nanoseconds as the
 * milliseconds the page shows; sample counts), bench's run.json (machines,
 * convergence), a host of the run as a row under --kind even without a
 * record of that kind, ten-digit byte counts in line in the text matrix,
 * and netprof's older time forms read leniently.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include <cjson/cJSON.h>

#include "error.h"
#include "file.h"
#include "fixture.h"
#include "heatmap.h"
#include "diagnose.h"
#include "heatmap_text.h"

static const struct record_metric *
metric_of(const struct record *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->nmetrics; i++)
		if (strcmp(r->metrics[i].name, name) == 0)
			return &r->metrics[i];
	fail_msg("%s -> %s %s: no metric \"%s\"", r->source, r->target,
	    r->kind, name);
	return NULL;
}

static void
expect_metric(const struct record *r, const char *name, double want)
{
	double got = metric_of(r, name)->value;

	if (fabs(got - want) > 1e-9 * fmax(1.0, fabs(want)))
		fail_msg("%s -> %s %s: %s is %.17g, upstream wrote %.17g",
		    r->source, r->target, r->kind, name, got, want);
}

/* Every value of upstream's metrics object, in r. */
static void
expect_metrics(const struct record *r, const cJSON *metrics)
{
	const cJSON *m;
	char ms[128];
	long samples = -1;

	cJSON_ArrayForEach(m, metrics) {
		size_t n = strlen(m->string);

		if (cJSON_IsArray(m)) {
			if (cJSON_GetArraySize(m) > samples)
				samples = cJSON_GetArraySize(m);
			continue;
		}
		assert_true(cJSON_IsNumber(m));
		if (n > 3 && strcmp(m->string + n - 3, "_ns") == 0) {
			snprintf(ms, sizeof ms, "%.*s_ms", (int)(n - 3),
			    m->string);
			expect_metric(r, ms, m->valuedouble / 1e6);
		} else
			expect_metric(r, m->string, m->valuedouble);
	}
	assert_int_equal(r->nsamples, samples);
}

/* Read dir/name and hold each record against its line; returns count. */
static size_t
check_file(const char *name)
{
	struct record_input in;
	char *text = fixture_read("upstream", name), *line, *nl;
	size_t i = 0;

	memset(&in, 0, sizeof in);
	assert_int_equal(records_read_file(&in, fixture_path("upstream", name),
	    1), 0);
	assert_int_equal(in.malformed, 0);
	for (line = text; (nl = strchr(line, '\n')) != NULL; line = nl + 1) {
		cJSON *o;
		const cJSON *err;
		const struct record *r;

		*nl = '\0';
		assert_non_null(o = cJSON_Parse(line));
		assert_true(i < in.nrecords);
		r = in.records[i++];
		assert_string_equal(r->kind,
		    cJSON_GetObjectItem(o, "kind")->valuestring);
		assert_string_equal(r->source,
		    cJSON_GetObjectItem(o, "source")->valuestring);
		assert_string_equal(r->target,
		    cJSON_GetObjectItem(o, "target")->valuestring);
		assert_int_equal(r->ok, cJSON_IsTrue(cJSON_GetObjectItem(o,
		    "ok")));
		err = cJSON_GetObjectItem(o, "error");
		if (cJSON_IsNull(err))
			assert_null(r->error);
		else
			assert_string_equal(r->error, err->valuestring);
		assert_true(r->time == fixture_upstream_time(cJSON_GetObjectItem(o,
		    "timestamp")->valuestring));
		expect_metrics(r, cJSON_GetObjectItem(o, "metrics"));
		cJSON_Delete(o);
	}
	assert_int_equal(in.nrecords, i);
	record_input_free(&in);
	free(text);
	return i;
}

static void
collect_file_reads_every_value(void **state)
{
	assert_int_equal(check_file("collect.jsonl"), 6);
}

static void
bench_file_reads_every_value(void **state)
{
	assert_int_equal(check_file("bench-4/measurements.jsonl"), 36);
}

static void
run_json_reads_machines_and_convergence(void **state)
{
	struct record_input in;
	const struct run_info *run;
	size_t i;

	memset(&in, 0, sizeof in);
	assert_int_equal(records_read_file(&in, fixture_path("upstream",
	    "bench-4/run.json"), 1), 0);
	assert_int_equal(in.nrecords, 0);
	assert_int_equal(in.nruns, 1);
	run = in.runs[0];
	assert_string_equal(run->run_id, "2026-11-30T19-20-48-f1672b");
	assert_int_equal(run->nmachines, 4);
	assert_string_equal(run->machines[0], "h1");
	assert_string_equal(run->machines[3], "h4");
	assert_int_equal(run->nconvergence, 4);
	for (i = 0; i < 4; i++)
		assert_true(run->convergence[i].complete);
	assert_true(fabs(run->convergence[3].elapsed_s - 0.03) < 1e-12);
	record_input_free(&in);
}

/* --kind iperf3: bc has no iperf3 record but was in the run. */
static void
host_without_records_of_the_kind_is_a_row(void **state)
{
	struct matrix *hm = matrix_new();
	const struct matrix_kind *k;
	long bc, a;

	assert_int_equal(matrix_read(hm, fixture_path("upstream",
	    "collect.jsonl"), 1), 0);
	assert_int_equal(matrix_overlay_build(hm, MATRIX_LATEST, "iperf3"), 0);
	assert_int_equal(hm->nhosts, 3);
	assert_non_null(k = matrix_find_kind(hm, "iperf3"));
	bc = matrix_host_index(hm, "bc");
	a = matrix_host_index(hm, "a");
	assert_true(bc >= 0 && a >= 0);
	assert_int_equal(matrix_cell_at(hm, k, (size_t)bc, (size_t)a)->state,
	    CELL_MISSING);
	assert_int_equal(matrix_cell_at(hm, k, (size_t)a, (size_t)bc)->state,
	    CELL_MISSING);
	matrix_free(hm);
}

/* --metric bytes: every line of the matrix is as long as its header. */
static void
text_matrix_columns_fit_byte_counts(void **state)
{
	struct matrix *hm = matrix_new();
	struct diagnosis dx;
	char *text = NULL, *line, *nl;
	size_t len = 0, width = 0;
	int metric, rows = 0;
	FILE *f;

	memset(&dx, 0, sizeof dx);
	assert_int_equal(matrix_read(hm, fixture_path("upstream",
	    "collect.jsonl"), 1), 0);
	assert_int_equal(matrix_overlay_build(hm, MATRIX_LATEST, "iperf3"), 0);
	metric = matrix_find_metric(&hm->kinds[0], "bytes");
	assert_true(metric >= 0);
	assert_non_null(f = open_memstream(&text, &len));
	assert_int_equal(heatmap_write_text(hm, &dx, 0, metric, 0, 0, f), 0);
	fclose(f);
	assert_non_null(strstr(text, "2890006528"));
	line = strstr(text, "\niperf3: bytes");	/* the matrix's title */
	assert_non_null(line);
	line = strchr(line + 1, '\n') + 1;	/* after the title line */
	for (; (nl = strchr(line, '\n')) != NULL && nl > line; line = nl + 1) {
		if (width == 0)
			width = (size_t)(nl - line);
		else if ((size_t)(nl - line) != width)
			fail_msg("matrix line %d is %zu wide, the header %zu: "
			    "%.*s", rows, (size_t)(nl - line), width,
			    (int)(nl - line), line);
		rows++;
	}
	assert_int_equal(rows, 4);
	free(text);
	matrix_free(hm);
}

/* netprof's own earlier files: Unix seconds, and "...Z" strings. */
static void
older_netprof_times_are_read(void **state)
{
	static const char *const lines[] = {
		"{\"kind\":\"ping\",\"source\":\"a\",\"target\":\"b\","
		    "\"ok\":true,\"started_at\":1796028911.417,"
		    "\"ended_at\":1796028912.5}",
		"{\"kind\":\"ping\",\"source\":\"a\",\"target\":\"b\","
		    "\"ok\":true,\"timestamp\":\"2026-11-30T08:55:11.417Z\","
		    "\"ended_at\":\"2026-11-30T08:55:12.500Z\"}",
		"{\"kind\":\"ping\",\"source\":\"a\",\"target\":\"b\","
		    "\"ok\":true,\"timestamp\":\"2026-11-30T08:55:12+00:00\","
		    "\"ended_at\":\"2026-11-30T08:55:12.500+00:00\"}",
	};
	struct record *r;
	char *cause;
	size_t i;

	for (i = 0; i < 3; i++) {
		assert_int_equal(record_parse(lines[i], strlen(lines[i]), &r,
		    &cause), 0);
		assert_true(fabs(r->time - 1796028912.5) < 1e-6);
		record_free(r);
	}
}

/* Phases begun in the same hundredth of a second (run.json's
 * precision): drawn in the order a run begins them, whatever the order
 * of run.json's keys (sorted, as upstream's json.dumps writes them). */
static void
phases_begun_together_keep_the_runs_order(void **state)
{
	static const char text[] = "{\"run_id\": \"r\", \"phases\": {}, \"phase_times\": "
	    "{\"baseline\": [1.6, 2.0], \"configure\": [1.0, 1.5], "
	    "\"discover\": [1.0, 1.0], \"init\": [0.1, 1.0], "
	    "\"start\": [1.6, 9.0]}}\n";
	static const char *const want[] = { "init", "discover", "configure",
		"baseline", "start" };
	struct record_input in;
	FILE *f;
	size_t i;

	(void)state;
	memset(&in, 0, sizeof in);
	assert_non_null(f = tmpfile());
	assert_int_equal(fputs(text, f) >= 0, 1);
	rewind(f);
	assert_int_equal(records_read_stream(&in, f, "run.json", 1), 0);
	fclose(f);
	assert_int_equal(in.nruns, 1);
	assert_int_equal(in.runs[0]->nphases, 5);
	for (i = 0; i < 5; i++)
		assert_string_equal(in.runs[0]->phases[i].phase, want[i]);
	record_input_free(&in);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(collect_file_reads_every_value),
		cmocka_unit_test(bench_file_reads_every_value),
		cmocka_unit_test(run_json_reads_machines_and_convergence),
		cmocka_unit_test(host_without_records_of_the_kind_is_a_row),
		cmocka_unit_test(text_matrix_columns_fit_byte_counts),
		cmocka_unit_test(older_netprof_times_are_read),
		cmocka_unit_test(phases_begun_together_keep_the_runs_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
